/*
 * aarch64.c - control-transfer classes of A64 instructions.
 *
 * Encodings from the Arm ARM (DDI 0487), "Branches, exception generating
 * and system instructions".  Pointer-authenticated forms (BLRAA, BRAA,
 * RETAA, ...) are calls, jumps and returns like their plain forms.
 */
#include "../isa.h"

static int64_t sign_extend(uint64_t v, int bits)
{
	uint64_t m = 1ull << (bits - 1);
	return (int64_t)((v ^ m) - m);
}

static uint32_t word(const uint8_t *b)
{
	return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void set(struct zi_insn *out, enum zi_class cls, uint64_t pc, int64_t offset, int direct)
{
	out->cls = cls;
	out->direct = direct;
	out->target = direct ? pc + (uint64_t)offset : 0;
}

void isa_aarch64_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out)
{
	set(out, ZI_OTHER, pc, 0, 0);
	if (len != 4)
		return;
	uint32_t w = word(b);
	int64_t imm26 = sign_extend(w & 0x3ffffff, 26) * 4;
	int64_t imm19 = sign_extend((w >> 5) & 0x7ffff, 19) * 4;
	int64_t imm14 = sign_extend((w >> 5) & 0x3fff, 14) * 4;
	if ((w & 0xfc000000) == 0x94000000)
		set(out, ZI_CALL, pc, imm26, 1); /* BL */
	else if ((w & 0xfc000000) == 0x14000000)
		set(out, ZI_JUMP, pc, imm26, 1); /* B */
	else if ((w & 0xfffffc1f) == 0xd63f0000 || (w & 0xfffff81f) == 0xd63f081f ||
		 (w & 0xfffff800) == 0xd73f0800)
		set(out, ZI_CALL, pc, 0, 0); /* BLR, BLRAAZ/BLRABZ, BLRAA/BLRAB */
	else if ((w & 0xfffffc1f) == 0xd61f0000 || (w & 0xfffff81f) == 0xd61f081f ||
		 (w & 0xfffff800) == 0xd71f0800)
		set(out, ZI_IJUMP, pc, 0, 0); /* BR, BRAAZ/BRABZ, BRAA/BRAB */
	else if ((w & 0xfffffc1f) == 0xd65f0000 || w == 0xd65f0bff || w == 0xd65f0fff)
		set(out, ZI_RET, pc, 0, 0); /* RET, RETAA, RETAB */
	else if ((w & 0xff000000) == 0x54000000)
		set(out, ZI_COND, pc, imm19, 1); /* B.cond, BC.cond */
	else if ((w & 0x7e000000) == 0x34000000)
		set(out, ZI_COND, pc, imm19, 1); /* CBZ, CBNZ */
	else if ((w & 0x7e000000) == 0x36000000)
		set(out, ZI_COND, pc, imm14, 1); /* TBZ, TBNZ */
	else if ((w & 0xffe0001f) == 0xd4000001)
		set(out, ZI_SYSCALL, pc, 0, 0); /* SVC */
}

/*
 * Data processing (immediate; register but for the one-source group, which
 * holds the pointer-authentication checks that may fault), SIMD and FP
 * data processing (FP exceptions do not trap in user mode), and direct
 * branches cannot raise exceptions.  Loads, stores and system
 * instructions can.
 */
int isa_aarch64_may_stop(const uint8_t *b, size_t len)
{
	if (len != 4)
		return 1;
	uint32_t w = word(b), op0 = (w >> 25) & 0xf;
	if ((op0 & 0xe) == 0x8) /* 100x: data processing, immediate */
		return 0;
	if ((op0 & 0x7) == 0x5) /* x101: data processing, register */
		return (w & 0x5fe00000) == 0x5ac00000; /* data processing, 1 source */
	if ((op0 & 0x7) == 0x7) /* x111: SIMD and FP data processing */
		return 0;
	/* B, BL, B.cond, CBZ/CBNZ, TBZ/TBNZ */
	return !((w & 0x7c000000) == 0x14000000 || (w & 0xff000010) == 0x54000000 ||
		 (w & 0x7c000000) == 0x34000000);
}
