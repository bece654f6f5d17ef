/*
 * riscv.h - the RISC-V instructions zond inject reads and writes: the
 * decoder (runtime/bare/rv_decode.h, the bare-metal runtime's too) over
 * bytes, and encoders of the few instructions the relocated copies and the
 * payloads use.  Internal to arch/riscv/.
 *
 * Little-endian; instructions of 2 bytes (C) or 4 (the low two bits 11);
 * longer encodings are not decoded (no standard extension has them).
 */
#ifndef ZOND_INJECT_RISCV_H
#define ZOND_INJECT_RISCV_H

#include <stddef.h>
#include <stdint.h>

#include "../../../../runtime/bare/rv_decode.h" /* struct rv_insn, shared with the runtime */

/* Decodes the instruction at b (n bytes there) for a hart of xlen 32 or 64. */
void rv_decode(const uint8_t *b, size_t n, int xlen, struct rv_insn *in);

/* Whether control never goes on to the next instruction (j, jr, ret, tail). */
int rv_ends_flow(const struct rv_insn *in);

/* Encoders (the 32-bit forms); imm ranges are the caller's to check. */
uint32_t rv_jal(int rd, int64_t off);                       /* off: +-1 MiB, even */
uint32_t rv_branch(uint32_t funct3, int rs1, int rs2, int64_t off); /* +-4 KiB */
uint32_t rv_auipc(int rd, int64_t hi20);                     /* rd = pc + (hi20 << 12) */
uint32_t rv_itype(uint32_t opcode, uint32_t funct3, int rd, int rs1, int64_t imm);
uint32_t rv_stype(uint32_t opcode, uint32_t funct3, int rs1, int rs2, int64_t imm);
uint32_t rv_rtype(uint32_t opcode, uint32_t funct3, uint32_t funct7, int rd, int rs1, int rs2);
uint32_t rv_csrr(int rd, uint32_t csr);

/* The upper part of a value for auipc/lui + addi (rounded for addi's sign). */
static inline int64_t rv_hi20(int64_t v)
{
	return (v + 0x800) >> 12;
}
static inline int64_t rv_lo12(int64_t v)
{
	return v - rv_hi20(v) * 4096;
}
static inline int rv_fits(int64_t v, int bits)
{
	return v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1));
}

#define RV_T0 5
#define RV_T1 6
#define RV_T2 7
#define RV_A0 10
#define RV_A1 11

#endif
