/*
 * sites.c - an instrumented function's instructions outside its probed
 * interval (bare.h: zb_before, zb_after), read from its code.
 *
 * gcc's -finstrument-functions puts the entry hook's call after the
 * prologue and the exit hook's before the epilogue; both are straight-line
 * code, so counting their instructions once per call site is exact.  The
 * decoder is rv_decode.h (zond inject's too).  The counts are cached by the hook's return
 * address (one call site each); a collision only costs a recount, inside
 * zond's own accounted time.
 */
#include "bare.h"
#include "rv_decode.h"

enum { SITES = 256, MAX_WALK = 64, UNKNOWN = 0xffff };

static uintptr_t site_key[SITES];
static uint16_t site_count[SITES];
uint32_t zb_inexact_sites;

/* The instruction at pc (rv_decode.h, the decoder zond inject uses too). */
static struct rv_insn insn_at(uintptr_t pc)
{
	const uint16_t *h = (const uint16_t *)pc;
	struct rv_insn in;
	rv_decode_insn(rv_insn_len(h[0]) == 4 ? (uint32_t)h[0] | (uint32_t)h[1] << 16 : h[0],
		       __riscv_xlen, &in);
	return in;
}

/* IMAC code has no longer instructions: an undecodable one is taken as 2 bytes. */
static uintptr_t insn_bytes(const struct rv_insn *in)
{
	return in->len ? in->len : 2;
}

/* A call: jal/jalr linking through ra, c.jalr, and c.jal (rv32 only; rv64's is c.addiw). */
static int is_call(const struct rv_insn *in)
{
	return (in->kind == RV_JAL || in->kind == RV_JALR) && in->rd == RV_RA;
}

/* Any instruction that can move the pc elsewhere than to the next one. */
static int is_transfer(const struct rv_insn *in)
{
	return in->kind == RV_JAL || in->kind == RV_BRANCH || in->kind == RV_JALR;
}

/*
 * ret (jalr x0, 0(ra); c.jr ra), and the returns of a trap handler (mret,
 * sret): an interrupt handler's epilogue restores the interrupted code's ra,
 * which is no return address of its own -- taken for one, its frame was left
 * open until the interrupted function returned (zb_ra_slot's deferral).
 */
static int is_return(const struct rv_insn *in)
{
	return in->raw == 0x00008067u || in->raw == 0x8082u || in->raw == 0x30200073u ||
	       in->raw == 0x10200073u;
}

/* The target of an unconditional jump that links nothing (j, c.j), or 0. */
static uintptr_t jump_target(uintptr_t pc, const struct rv_insn *in)
{
	return in->kind == RV_JAL && in->rd == 0 ? pc + (uintptr_t)in->imm : 0;
}

/* Instructions from fn up to the call that returns to ra, or UNKNOWN. */
static uint32_t count_before(uintptr_t fn, uintptr_t ra)
{
	uintptr_t pc = fn;
	for (uint32_t n = 0; n < MAX_WALK && pc < ra; n++) {
		struct rv_insn in = insn_at(pc);
		pc += insn_bytes(&in);
		if (pc == ra)
			return is_call(&in) ? n : UNKNOWN;
		if (is_transfer(&in))
			return UNKNOWN;
	}
	return UNKNOWN;
}

/* Instructions from ra to the function's return, that included, or UNKNOWN. */
static uint32_t count_after(uintptr_t ra)
{
	uintptr_t pc = ra;
	for (uint32_t n = 1; n <= MAX_WALK; n++) {
		struct rv_insn in = insn_at(pc);
		uintptr_t to = jump_target(pc, &in);
		if (is_return(&in))
			return n;
		if (to)
			pc = to;
		else if (is_transfer(&in))
			return UNKNOWN;
		else
			pc += insn_bytes(&in);
	}
	return UNKNOWN;
}

/* Calibration's fake functions and sites lie below the program (port.c). */
static int is_code(uintptr_t a)
{
	return a >= 0x1000;
}

static uint32_t cached(uintptr_t fn, uintptr_t ra, int after)
{
	uint32_t i = (uint32_t)(ra >> 1) % SITES;
	if (site_key[i] != ra) {
		uint32_t n = after ? count_after(ra) : count_before(fn, ra);
		if (n == UNKNOWN)
			zb_inexact_sites++;
		site_key[i] = ra;
		site_count[i] = (uint16_t)n;
	}
	return site_count[i] == UNKNOWN ? 0 : site_count[i];
}

uint32_t zb_before(uintptr_t fn, uintptr_t ra)
{
	return is_code(fn) && fn < ra ? cached(fn, ra, 0) : 0;
}

uint32_t zb_after(uintptr_t ra)
{
	return is_code(ra) ? cached(0, ra, 1) : 0;
}

int zb_after_known(uintptr_t ra)
{
	if (!is_code(ra))
		return 1;
	cached(0, ra, 1);
	return site_count[(uint32_t)(ra >> 1) % SITES] != UNKNOWN;
}

/* The offset from sp that restores ra (lw/ld ra, off(sp); c.lwsp/c.ldsp ra), or -1. */
static int32_t ra_load(uint32_t insn)
{
	int wide = __riscv_xlen == 64;
	if ((insn & 3) == 3)
		return (insn & 0x7f) == 0x03 && rv_bits(insn, 14, 12) == (wide ? 3u : 2u) &&
				       rv_bits(insn, 11, 7) == 1 && rv_bits(insn, 19, 15) == 2
			       ? (int32_t)insn >> 20
			       : -1;
	if ((insn & 3) != 2 || rv_bits(insn, 11, 7) != 1)
		return -1;
	if (!wide && rv_bits(insn, 15, 13) == 2) /* c.lwsp */
		return (int32_t)(rv_bits(insn, 12, 12) << 5 | rv_bits(insn, 6, 4) << 2 |
				 rv_bits(insn, 3, 2) << 6);
	if (wide && rv_bits(insn, 15, 13) == 3) /* c.ldsp */
		return (int32_t)(rv_bits(insn, 12, 12) << 5 | rv_bits(insn, 6, 5) << 3 |
				 rv_bits(insn, 4, 2) << 6);
	return -1;
}

int32_t zb_ra_slot(uintptr_t ra)
{
	if (!is_code(ra))
		return -1;
	uintptr_t pc = ra;
	for (uint32_t n = 0; n < MAX_WALK; n++) {
		struct rv_insn in = insn_at(pc);
		int32_t off = ra_load(in.raw);
		if (off >= 0)
			return off;
		uintptr_t to = jump_target(pc, &in);
		if (to)
			pc = to;
		else if (is_call(&in))
			pc += insn_bytes(&in); /* comes back here; callees keep sp */
		else if (is_transfer(&in) || in.wr == RV_RA || in.wr == RV_SP)
			return -1;
		else
			pc += insn_bytes(&in);
	}
	return -1;
}
