/*
 * x86_64.c - control-transfer classes of x86-64 instructions, through the
 * Zydis decoder library.
 *
 * Why Zydis: unlike A64 or RISC-V, x86 has no fixed fields to mask.  An
 * instruction's length alone depends on legacy, REX, VEX, EVEX and XOP
 * prefixes, opcode maps, ModRM/SIB and displacement and immediate sizes,
 * and every extension adds to it; a decoder of our own would be long and
 * error-prone.  Zydis is a complete, maintained decoder (Debian:
 * libzydis-dev), used here for lengths, mnemonics and operands only.
 *
 *   call rel32, call r/m (and far call)      ZI_CALL
 *   ret, ret imm16 (and far ret)             ZI_RET
 *   jmp rel8/rel32                           ZI_JUMP (direct)
 *   jmp r/m (and far jmp)                    ZI_IJUMP
 *   jcc, jrcxz/jecxz, loop/loope/loopne      ZI_COND (direct)
 *   syscall, sysenter, int n                 ZI_SYSCALL
 *   xbegin (an abort goes to its operand)    ZI_OTHER
 *
 * Prefixes (bnd, notrack, rep, segment overrides) do not change the class.
 * Without Zydis (ZOND_HAVE_ZYDIS undefined) the architecture is unknown.
 */
#ifdef ZOND_HAVE_ZYDIS
#include <Zydis/Zydis.h>

#include "../isa.h"

static int decode(const uint8_t *b, size_t n, ZydisDecodedInstruction *in,
		  ZydisDecodedOperand *ops)
{
	ZydisDecoder d;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return -1;
	if (ops)
		return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, b, n, in, ops)) ? 0 : -1;
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d, NULL, b, n, in)) ? 0 : -1;
}

/* Bytes of the instruction at b; 0 if n is too short or the bytes are no instruction. */
size_t isa_x86_64_length(const uint8_t *b, size_t n)
{
	ZydisDecodedInstruction in;
	return decode(b, n, &in, NULL) == 0 ? in.length : 0;
}

void isa_x86_64_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out)
{
	out->cls = ZI_OTHER;
	out->direct = 0;
	out->target = 0;
	ZydisDecodedInstruction in;
	if (decode(b, len, &in, NULL) < 0 || in.length != len)
		return;
	switch (in.mnemonic) {
	case ZYDIS_MNEMONIC_CALL: out->cls = ZI_CALL; break;
	case ZYDIS_MNEMONIC_RET: out->cls = ZI_RET; break;
	case ZYDIS_MNEMONIC_JMP: out->cls = ZI_IJUMP; break;
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT: out->cls = ZI_SYSCALL; return;
	default:
		/* XBEGIN is filed with them, but its target is where an abort goes later. */
		if (in.meta.category != ZYDIS_CATEGORY_COND_BR || in.mnemonic == ZYDIS_MNEMONIC_XBEGIN)
			return;
		out->cls = ZI_COND; /* jcc, jrcxz, jecxz, loop, loope, loopne */
	}
	/* rel8/rel32: relative to the next instruction (the far forms have none). */
	for (int i = 0; i < 2; i++)
		if (in.raw.imm[i].is_relative) {
			out->direct = 1;
			out->target = pc + len + (uint64_t)in.raw.imm[i].value.s;
			if (out->cls == ZI_IJUMP)
				out->cls = ZI_JUMP;
			return;
		}
	if (out->cls == ZI_COND) /* cannot be: every conditional branch is relative */
		out->cls = ZI_OTHER;
}

/* A rep-prefixed string instruction (movs, stos, cmps, scas, lods, ins, outs). */
int isa_x86_64_repeats(const uint8_t *b, size_t len)
{
	ZydisDecodedInstruction in;
	if (decode(b, len, &in, NULL) < 0 || in.length != len)
		return 0;
	return in.meta.category == ZYDIS_CATEGORY_STRINGOP &&
	       (in.attributes &
		(ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)) != 0;
}

/*
 * Cannot raise an exception in user mode: base-ISA integer instructions on
 * registers and immediates only (data transfer, arithmetic but division,
 * logic, shifts, bit tests, conversions, conditional moves, nops) and
 * direct jumps and branches.  Anything touching memory (explicitly or, as
 * push, pop, call and ret do, on the stack), division, SSE/AVX and x87
 * arithmetic (unmasked FP exceptions trap on x86), extensions the guest's
 * CPU may lack, segment registers and system instructions may.
 */
int isa_x86_64_may_stop(const uint8_t *b, size_t len)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (decode(b, len, &in, ops) < 0 || in.length != len)
		return 1;
	if (in.meta.isa_ext != ZYDIS_ISA_EXT_BASE && in.meta.isa_ext != ZYDIS_ISA_EXT_LONGMODE)
		return 1;
	switch (in.meta.category) {
	case ZYDIS_CATEGORY_BINARY:
	case ZYDIS_CATEGORY_LOGICAL:
	case ZYDIS_CATEGORY_SHIFT:
	case ZYDIS_CATEGORY_ROTATE:
	case ZYDIS_CATEGORY_BITBYTE:
	case ZYDIS_CATEGORY_CMOV:
	case ZYDIS_CATEGORY_DATAXFER:
	case ZYDIS_CATEGORY_CONVERT:
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
		break;
	default:
		return 1;
	}
	if (in.mnemonic == ZYDIS_MNEMONIC_DIV || in.mnemonic == ZYDIS_MNEMONIC_IDIV ||
	    in.mnemonic == ZYDIS_MNEMONIC_XLAT)
		return 1;
	for (unsigned i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *o = &ops[i];
		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.type != ZYDIS_MEMOP_TYPE_AGEN)
			return 1; /* lea only computes its address */
		if (o->type == ZYDIS_OPERAND_TYPE_POINTER)
			return 1; /* far transfers */
		if (o->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR8 &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR16 &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR32 &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_GPR64 &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_FLAGS &&
		    ZydisRegisterGetClass(o->reg.value) != ZYDIS_REGCLASS_IP)
			return 1; /* segment, control, debug, vector registers */
	}
	/* An indirect jump through a register only: its target may be anywhere. */
	if (in.mnemonic == ZYDIS_MNEMONIC_JMP && !in.raw.imm[0].is_relative)
		return 1;
	return 0;
}
#else
typedef int zond_no_zydis; /* ISO C: a translation unit is not empty */
#endif
