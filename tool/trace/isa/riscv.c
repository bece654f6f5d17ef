/*
 * riscv.c - control-transfer classes of RISC-V instructions (RV32/RV64 with
 * the C extension).
 *
 * Calls and returns follow the return-address-stack hints of the RISC-V
 * unprivileged spec (table "Return-address stack prediction hints"): x1
 * (ra) and x5 (t0) are link registers.  A JAL/JALR writing a link register
 * is a call; a JALR that writes none and reads one is a return (so the
 * `jr t0` that ends -msave-restore's __riscv_save_N returns); any other
 * JALR is an indirect jump.  C.JAL exists on RV32 only (on RV64 that
 * encoding is C.ADDIW).
 */
#include "../isa.h"

static int64_t sign_extend(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);
	return (int64_t)((v ^ m) - m);
}

static uint32_t bits(uint32_t w, int hi, int lo)
{
	return (w >> lo) & ((1u << (hi - lo + 1)) - 1);
}

static int is_link(uint32_t r)
{
	return r == 1 || r == 5;
}

size_t isa_riscv_length(const uint8_t *b, size_t n)
{
	size_t len = (b[0] & 3) != 3 ? 2 : (b[0] & 0x1c) != 0x1c ? 4 : (b[0] & 0x3f) == 0x1f ? 6 : 8;
	return n >= len ? len : 0;
}

static void set(struct zi_insn *out, enum zi_class cls, uint64_t pc, int64_t offset, int direct)
{
	out->cls = cls;
	out->direct = direct;
	out->target = direct ? pc + (uint64_t)offset : 0;
}

static void classify_32bit(uint32_t w, uint64_t pc, struct zi_insn *out)
{
	uint32_t op = w & 0x7f, rd = bits(w, 11, 7), rs1 = bits(w, 19, 15);
	if (op == 0x6f) { /* JAL */
		int64_t imm = sign_extend(bits(w, 31, 31) << 20 | bits(w, 19, 12) << 12 |
						  bits(w, 20, 20) << 11 | bits(w, 30, 21) << 1,
					  21);
		set(out, is_link(rd) ? ZI_CALL : ZI_JUMP, pc, imm, 1);
	} else if (op == 0x67 && bits(w, 14, 12) == 0) { /* JALR */
		set(out, is_link(rd) ? ZI_CALL : is_link(rs1) ? ZI_RET : ZI_IJUMP, pc, 0, 0);
	} else if (op == 0x63 && bits(w, 14, 12) != 2 && bits(w, 14, 12) != 3) { /* BEQ..BGEU */
		int64_t imm = sign_extend(bits(w, 31, 31) << 12 | bits(w, 7, 7) << 11 |
						  bits(w, 30, 25) << 5 | bits(w, 11, 8) << 1,
					  13);
		set(out, ZI_COND, pc, imm, 1);
	} else if (w == 0x00000073) { /* ECALL */
		set(out, ZI_SYSCALL, pc, 0, 0);
	}
}

static int64_t cj_offset(uint32_t h)
{
	return sign_extend(bits(h, 12, 12) << 11 | bits(h, 11, 11) << 4 | bits(h, 10, 9) << 8 |
				   bits(h, 8, 8) << 10 | bits(h, 7, 7) << 6 | bits(h, 6, 6) << 7 |
				   bits(h, 5, 3) << 1 | bits(h, 2, 2) << 5,
			   12);
}

static void classify_16bit(uint32_t h, uint64_t pc, int rv32, struct zi_insn *out)
{
	uint32_t quadrant = h & 3, funct3 = bits(h, 15, 13);
	if (quadrant == 1 && funct3 == 5) { /* C.J */
		set(out, ZI_JUMP, pc, cj_offset(h), 1);
	} else if (quadrant == 1 && funct3 == 1 && rv32) { /* C.JAL */
		set(out, ZI_CALL, pc, cj_offset(h), 1);
	} else if (quadrant == 1 && (funct3 == 6 || funct3 == 7)) { /* C.BEQZ, C.BNEZ */
		int64_t imm = sign_extend(bits(h, 12, 12) << 8 | bits(h, 11, 10) << 3 |
						  bits(h, 6, 5) << 6 | bits(h, 4, 3) << 1 |
						  bits(h, 2, 2) << 5,
					  9);
		set(out, ZI_COND, pc, imm, 1);
	} else if (quadrant == 2 && funct3 == 4 && bits(h, 6, 2) == 0 && bits(h, 11, 7) != 0) {
		uint32_t rs1 = bits(h, 11, 7);
		if (bits(h, 12, 12) == 0) /* C.JR */
			set(out, is_link(rs1) ? ZI_RET : ZI_IJUMP, pc, 0, 0);
		else /* C.JALR */
			set(out, ZI_CALL, pc, 0, 0);
	}
}

static void classify(const uint8_t *b, size_t len, uint64_t pc, int rv32, struct zi_insn *out)
{
	set(out, ZI_OTHER, pc, 0, 0);
	if (len == 2)
		classify_16bit(b[0] | (uint32_t)b[1] << 8, pc, rv32, out);
	else if (len == 4)
		classify_32bit(b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				       (uint32_t)b[3] << 24,
			       pc, out);
	if (rv32)
		out->target &= 0xffffffffu;
}

void isa_riscv64_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out)
{
	classify(b, len, pc, 0, out);
}

void isa_riscv32_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out)
{
	classify(b, len, pc, 1, out);
}

/*
 * Integer arithmetic (OP, OP-IMM, their 32-bit forms, LUI, AUIPC), branches
 * and JAL and their compressed forms cannot raise exceptions; loads,
 * stores, AMOs, system and FP instructions (an invalid rounding mode is an
 * illegal instruction) and reserved encodings can.  JALR may trap on a
 * misaligned target only without the C extension: counted as may-stop.
 */
int isa_riscv_may_stop(const uint8_t *b, size_t len)
{
	if (len == 4) {
		uint32_t op = b[0] & 0x7f;
		return !(op == 0x13 || op == 0x33 || op == 0x37 || op == 0x17 || op == 0x1b ||
			 op == 0x3b || op == 0x63 || op == 0x6f);
	}
	if (len != 2)
		return 1;
	uint32_t h = b[0] | (uint32_t)b[1] << 8, quadrant = h & 3, funct3 = bits(h, 15, 13);
	if (h == 0)
		return 1; /* the defined illegal instruction */
	if (quadrant == 0) /* C.ADDI4SPN with a non-zero immediate; the rest load or store */
		return !(funct3 == 0 && bits(h, 12, 5) != 0);
	if (quadrant == 1) /* arithmetic, C.J, C.BEQZ/C.BNEZ; C.LUI/C.ADDI16SP may be reserved */
		return funct3 == 3;
	/* quadrant 2: C.SLLI, C.MV, C.ADD; loads and stores from sp, C.EBREAK, C.JR/C.JALR */
	return !(funct3 == 0 || (funct3 == 4 && bits(h, 6, 2) != 0));
}
