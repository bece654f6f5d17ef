/*
 * rv_decode.h - one RISC-V instruction decoded for what zond asks of code:
 * its length, whether and where it moves the pc (jumps, branches, calls),
 * auipc's value, and which integer register it writes.  Freestanding
 * (<stdint.h> only, static inline): the bare-metal runtime counts the
 * instructions around its probes with it (sites.c), zond inject plans and
 * relocates entries with it (tool/inject/arch/riscv/).
 *
 * RV32/RV64 I, M, A, C, Zicsr, and F/D as far as which register they write;
 * little-endian.  An instruction is 2 bytes (C) when its low two bits are
 * not 11, else 4; longer encodings are not decoded (no standard extension
 * has them): rv_decode_insn gives len 0 for them.
 */
#ifndef ZOND_RV_DECODE_H
#define ZOND_RV_DECODE_H

#include <stdint.h>

enum rv_kind {
	RV_PLAIN,  /* runs the same anywhere */
	RV_AUIPC,  /* rd = pc + imm */
	RV_JAL,    /* rd = pc + len; pc = target (c.j, c.jal: rd 0 or ra) */
	RV_BRANCH, /* if (rs1 cond rs2) pc = target (c.beqz/c.bnez: rs2 = 0) */
	RV_JALR,   /* rd = pc + len; pc = rs1 + imm (c.jr, c.jalr) */
};

struct rv_insn {
	uint32_t len; /* 2 or 4; 0: not decodable (reserved, longer) */
	enum rv_kind kind;
	uint32_t raw; /* the bits (the low 16 for a compressed one) */
	int rd, rs1, rs2;
	uint32_t funct3; /* a branch's condition (beq 0, bne 1, blt 4, bge 5, bltu 6, bgeu 7) */
	int64_t imm;     /* AUIPC: the added value; JAL/BRANCH: target - pc; JALR: the offset */
	int wr;          /* the integer register it writes, 0: none (x0, memory, f registers) */
};

#define RV_RA 1
#define RV_SP 2

static inline uint32_t rv_bits(uint32_t v, int hi, int lo)
{
	return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}

static inline int64_t rv_sext(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);
	return (int64_t)((v ^ m) - m);
}

/* The length of the instruction whose first halfword is h: 2, 4, or 0 (longer). */
static inline uint32_t rv_insn_len(uint32_t h)
{
	return (h & 3) != 3 ? 2 : (h & 0x1c) != 0x1c ? 4 : 0;
}

/* The integer register a compressed instruction writes (quadrant, funct3), or 0. */
static inline int rv_written16(uint32_t r, int xlen)
{
	uint32_t q = r & 3, f3 = rv_bits(r, 15, 13), rd = rv_bits(r, 11, 7);
	uint32_t rdp = rv_bits(r, 4, 2) + 8; /* quadrant 0's rd' */
	/* quadrant 0: c.addi4spn, c.lw, c.ld (rv64; rv32's is c.flw) */
	if (q == 0)
		return f3 == 0 || f3 == 2 || (f3 == 3 && xlen == 64) ? (int)rdp : 0;
	if (q == 1) {
		if (f3 == 1) /* c.jal (rv32) links ra; c.addiw (rv64) */
			return xlen == 32 ? RV_RA : (int)rd;
		if (f3 == 4) /* c.srli .. c.and: rd' */
			return (int)rv_bits(r, 9, 7) + 8;
		return f3 <= 3 ? (int)rd : 0; /* c.addi, c.li, c.lui/c.addi16sp; jumps, branches */
	}
	if (f3 == 0 || f3 == 2 || (f3 == 3 && xlen == 64)) /* c.slli, c.lwsp, c.ldsp */
		return (int)rd;
	if (f3 == 4) /* c.mv, c.add: rd; c.jalr links ra; c.jr, c.ebreak none */
		return rv_bits(r, 6, 2) ? (int)rd : rv_bits(r, 12, 12) && rd ? RV_RA : 0;
	return 0; /* c.fldsp, c.flwsp, stores */
}

/* The integer register a 32-bit instruction writes, or 0. */
static inline int rv_written32(uint32_t r)
{
	switch (r & 0x7f) {
	case 0x37:
	case 0x17:
	case 0x6f:
	case 0x67:
	case 0x03:
	case 0x13:
	case 0x1b:
	case 0x33:
	case 0x3b:
	case 0x2f: return (int)rv_bits(r, 11, 7);
	case 0x73: /* csr*: rd; ecall, ebreak, mret: none */
		return rv_bits(r, 14, 12) ? (int)rv_bits(r, 11, 7) : 0;
	case 0x53: /* fcmp, fcvt to integer, fmv.x, fclass write x; the rest f */
		return rv_bits(r, 31, 27) == 0x14 || rv_bits(r, 31, 27) == 0x18 ||
				       rv_bits(r, 31, 27) == 0x1c
			       ? (int)rv_bits(r, 11, 7)
			       : 0;
	}
	return 0;
}

static inline void rv_decode16(uint32_t r, int xlen, struct rv_insn *in)
{
	uint32_t op = r & 3, f3 = rv_bits(r, 15, 13);
	if (op == 1 && (f3 == 5 || (f3 == 1 && xlen == 32))) { /* c.j, c.jal */
		/* inst[12|11|10:9|8|7|6|5:3|2] = off[11|4|9:8|10|6|7|3:1|5] */
		in->kind = RV_JAL;
		in->rd = f3 == 1 ? RV_RA : 0;
		in->imm = rv_sext(rv_bits(r, 12, 12) << 11 | rv_bits(r, 11, 11) << 4 |
					  rv_bits(r, 10, 9) << 8 | rv_bits(r, 8, 8) << 10 |
					  rv_bits(r, 7, 7) << 6 | rv_bits(r, 6, 6) << 7 |
					  rv_bits(r, 5, 3) << 1 | rv_bits(r, 2, 2) << 5,
				  12);
	} else if (op == 1 && (f3 == 6 || f3 == 7)) { /* c.beqz, c.bnez */
		/* inst[12|11:10|6:5|4:3|2] = off[8|4:3|7:6|2:1|5] */
		in->kind = RV_BRANCH;
		in->rs1 = (int)rv_bits(r, 9, 7) + 8;
		in->rs2 = 0;
		in->funct3 = f3 == 6 ? 0 : 1;
		in->imm = rv_sext(rv_bits(r, 12, 12) << 8 | rv_bits(r, 11, 10) << 3 |
					  rv_bits(r, 6, 5) << 6 | rv_bits(r, 4, 3) << 1 |
					  rv_bits(r, 2, 2) << 5,
				  9);
	} else if (op == 2 && f3 == 4 && rv_bits(r, 6, 2) == 0 && rv_bits(r, 11, 7) != 0) {
		in->kind = RV_JALR; /* c.jr (bit 12 clear), c.jalr (set) */
		in->rs1 = (int)rv_bits(r, 11, 7);
		in->rd = rv_bits(r, 12, 12) ? RV_RA : 0;
	}
	in->wr = rv_written16(r, xlen);
}

static inline void rv_decode32(uint32_t r, struct rv_insn *in)
{
	in->rd = (int)rv_bits(r, 11, 7);
	in->rs1 = (int)rv_bits(r, 19, 15);
	in->rs2 = (int)rv_bits(r, 24, 20);
	in->funct3 = rv_bits(r, 14, 12);
	switch (r & 0x7f) {
	case 0x17:
		in->kind = RV_AUIPC;
		in->imm = (int32_t)(r & 0xfffff000);
		break;
	case 0x6f:
		in->kind = RV_JAL;
		in->imm = rv_sext(rv_bits(r, 31, 31) << 20 | rv_bits(r, 30, 21) << 1 |
					  rv_bits(r, 20, 20) << 11 | rv_bits(r, 19, 12) << 12,
				  21);
		break;
	case 0x63:
		in->kind = RV_BRANCH;
		in->imm = rv_sext(rv_bits(r, 31, 31) << 12 | rv_bits(r, 30, 25) << 5 |
					  rv_bits(r, 11, 8) << 1 | rv_bits(r, 7, 7) << 11,
				  13);
		break;
	case 0x67:
		in->kind = RV_JALR;
		in->imm = rv_sext(rv_bits(r, 31, 20), 12);
		break;
	}
	in->wr = rv_written32(r);
}

/*
 * Decodes the instruction whose bits are r (the first halfword in the low
 * 16 bits, the second, for a 32-bit one, in the high 16) for a hart of
 * xlen 32 or 64.
 */
static inline void rv_decode_insn(uint32_t r, int xlen, struct rv_insn *in)
{
	*in = (struct rv_insn){0};
	in->len = rv_insn_len(r & 0xffff);
	if (in->len == 2) {
		in->raw = r & 0xffff;
		rv_decode16(in->raw, xlen, in);
	} else if (in->len == 4) {
		in->raw = r;
		rv_decode32(r, in);
	}
}

#endif
