/* decode.c - the RISC-V instructions zond inject reads and writes (riscv.h). */
#include <string.h>

#include "riscv.h"

static uint32_t bits(uint32_t v, int hi, int lo)
{
	return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}

static int64_t sext(uint64_t v, int bitsn)
{
	uint64_t m = 1ull << (bitsn - 1);
	return (int64_t)((v ^ m) - m);
}

/* c.j / c.jal offset: inst[12|11|10:9|8|7|6|5:3|2] = off[11|4|9:8|10|6|7|3:1|5] */
static int64_t cj_imm(uint32_t r)
{
	uint32_t v = bits(r, 12, 12) << 11 | bits(r, 11, 11) << 4 | bits(r, 10, 9) << 8 |
		     bits(r, 8, 8) << 10 | bits(r, 7, 7) << 6 | bits(r, 6, 6) << 7 |
		     bits(r, 5, 3) << 1 | bits(r, 2, 2) << 5;
	return sext(v, 12);
}

/* c.beqz / c.bnez offset: inst[12|11:10|6:5|4:3|2] = off[8|4:3|7:6|2:1|5] */
static int64_t cb_imm(uint32_t r)
{
	uint32_t v = bits(r, 12, 12) << 8 | bits(r, 11, 10) << 3 | bits(r, 6, 5) << 6 |
		     bits(r, 4, 3) << 1 | bits(r, 2, 2) << 5;
	return sext(v, 9);
}

static void decode16(uint32_t r, int xlen, struct rv_insn *in)
{
	uint32_t op = r & 3, f3 = bits(r, 15, 13);
	if (op == 1 && (f3 == 5 || (f3 == 1 && xlen == 32))) { /* c.j, c.jal */
		in->kind = RV_JAL;
		in->rd = f3 == 1 ? RV_RA : 0;
		in->imm = cj_imm(r);
	} else if (op == 1 && (f3 == 6 || f3 == 7)) { /* c.beqz, c.bnez */
		in->kind = RV_BRANCH;
		in->rs1 = (int)bits(r, 9, 7) + 8;
		in->rs2 = 0;
		in->funct3 = f3 == 6 ? 0 : 1;
		in->imm = cb_imm(r);
	} else if (op == 2 && f3 == 4 && bits(r, 6, 2) == 0 && bits(r, 11, 7) != 0) {
		in->kind = RV_JALR; /* c.jr (bit 12 clear), c.jalr (set) */
		in->rs1 = (int)bits(r, 11, 7);
		in->rd = bits(r, 12, 12) ? RV_RA : 0;
	}
}

static void decode32(uint32_t r, struct rv_insn *in)
{
	in->rd = (int)bits(r, 11, 7);
	in->rs1 = (int)bits(r, 19, 15);
	in->rs2 = (int)bits(r, 24, 20);
	in->funct3 = bits(r, 14, 12);
	switch (r & 0x7f) {
	case 0x17:
		in->kind = RV_AUIPC;
		in->imm = (int32_t)(r & 0xfffff000);
		break;
	case 0x6f:
		in->kind = RV_JAL;
		in->imm = sext(bits(r, 31, 31) << 20 | bits(r, 30, 21) << 1 | bits(r, 20, 20) << 11 |
				       bits(r, 19, 12) << 12,
			       21);
		break;
	case 0x63:
		in->kind = RV_BRANCH;
		in->imm = sext(bits(r, 31, 31) << 12 | bits(r, 30, 25) << 5 | bits(r, 11, 8) << 1 |
				       bits(r, 7, 7) << 11,
			       13);
		break;
	case 0x67:
		in->kind = RV_JALR;
		in->imm = sext(bits(r, 31, 20), 12);
		break;
	}
}

void rv_decode(const uint8_t *b, size_t n, int xlen, struct rv_insn *in)
{
	memset(in, 0, sizeof *in);
	if (n < 2)
		return;
	uint32_t r = (uint32_t)b[0] | (uint32_t)b[1] << 8;
	if ((r & 3) != 3) {
		in->len = 2;
		in->raw = r;
		decode16(r, xlen, in);
		return;
	}
	if ((r & 0x1c) == 0x1c || n < 4) /* 48 bits and longer: no standard extension */
		return;
	r |= (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	in->len = 4;
	in->raw = r;
	decode32(r, in);
}

int rv_ends_flow(const struct rv_insn *in)
{
	return (in->kind == RV_JAL || in->kind == RV_JALR) && in->rd == 0;
}

uint32_t rv_jal(int rd, int64_t off)
{
	uint32_t o = (uint32_t)off;
	return bits(o, 20, 20) << 31 | bits(o, 10, 1) << 21 | bits(o, 11, 11) << 20 |
	       bits(o, 19, 12) << 12 | (uint32_t)rd << 7 | 0x6f;
}

uint32_t rv_branch(uint32_t funct3, int rs1, int rs2, int64_t off)
{
	uint32_t o = (uint32_t)off;
	return bits(o, 12, 12) << 31 | bits(o, 10, 5) << 25 | (uint32_t)rs2 << 20 |
	       (uint32_t)rs1 << 15 | funct3 << 12 | bits(o, 4, 1) << 8 | bits(o, 11, 11) << 7 |
	       0x63;
}

uint32_t rv_auipc(int rd, int64_t hi20)
{
	return ((uint32_t)hi20 & 0xfffff) << 12 | (uint32_t)rd << 7 | 0x17;
}

uint32_t rv_itype(uint32_t opcode, uint32_t funct3, int rd, int rs1, int64_t imm)
{
	return ((uint32_t)imm & 0xfff) << 20 | (uint32_t)rs1 << 15 | funct3 << 12 |
	       (uint32_t)rd << 7 | opcode;
}

uint32_t rv_stype(uint32_t opcode, uint32_t funct3, int rs1, int rs2, int64_t imm)
{
	uint32_t i = (uint32_t)imm;
	return bits(i, 11, 5) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | funct3 << 12 |
	       bits(i, 4, 0) << 7 | opcode;
}

uint32_t rv_rtype(uint32_t opcode, uint32_t funct3, uint32_t funct7, int rd, int rs1, int rs2)
{
	return funct7 << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | funct3 << 12 |
	       (uint32_t)rd << 7 | opcode;
}

uint32_t rv_csrr(int rd, uint32_t csr)
{
	return csr << 20 | 2u << 12 | (uint32_t)rd << 7 | 0x73; /* csrrs rd, csr, x0 */
}
