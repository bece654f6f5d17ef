/* decode.c - the RISC-V instructions zond inject reads and writes (riscv.h). */
#include <string.h>

#include "riscv.h"

void rv_decode(const uint8_t *b, size_t n, int xlen, struct rv_insn *in)
{
	memset(in, 0, sizeof *in);
	if (n < 2)
		return;
	uint32_t r = (uint32_t)b[0] | (uint32_t)b[1] << 8;
	if (rv_insn_len(r) == 4 && n >= 4)
		r |= (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	else if (rv_insn_len(r) != 2)
		return; /* longer, or cut */
	rv_decode_insn(r, xlen, in);
}

int rv_ends_flow(const struct rv_insn *in)
{
	return (in->kind == RV_JAL || in->kind == RV_JALR) && in->rd == 0;
}

uint32_t rv_jal(int rd, int64_t off)
{
	uint32_t o = (uint32_t)off;
	return rv_bits(o, 20, 20) << 31 | rv_bits(o, 10, 1) << 21 | rv_bits(o, 11, 11) << 20 |
	       rv_bits(o, 19, 12) << 12 | (uint32_t)rd << 7 | 0x6f;
}

uint32_t rv_branch(uint32_t funct3, int rs1, int rs2, int64_t off)
{
	uint32_t o = (uint32_t)off;
	return rv_bits(o, 12, 12) << 31 | rv_bits(o, 10, 5) << 25 | (uint32_t)rs2 << 20 |
	       (uint32_t)rs1 << 15 | funct3 << 12 | rv_bits(o, 4, 1) << 8 |
	       rv_bits(o, 11, 11) << 7 | 0x63;
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
	return rv_bits(i, 11, 5) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | funct3 << 12 |
	       rv_bits(i, 4, 0) << 7 | opcode;
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
