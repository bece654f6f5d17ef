/*
 * sites.c - an instrumented function's instructions outside its probed
 * interval (bare.h: zb_before, zb_after), read from its code.
 *
 * gcc's -finstrument-functions puts the entry hook's call after the
 * prologue and the exit hook's before the epilogue; both are straight-line
 * code, so counting their instructions once per call site is exact.  Only
 * RV32/RV64 IMAC is decoded: an instruction is 2 bytes when its low two
 * bits are not 11, else 4.  The counts are cached by the hook's return
 * address (one call site each); a collision only costs a recount, inside
 * zond's own accounted time.
 */
#include "bare.h"

enum { SITES = 256, MAX_WALK = 64, UNKNOWN = 0xffff };

static uintptr_t site_key[SITES];
static uint16_t site_count[SITES];
uint32_t zb_inexact_sites;

static uint32_t insn_at(uintptr_t pc)
{
	const uint16_t *h = (const uint16_t *)pc;
	return (h[0] & 3) != 3 ? h[0] : (uint32_t)h[0] | (uint32_t)h[1] << 16;
}

static uintptr_t insn_bytes(uint32_t insn)
{
	return (insn & 3) != 3 ? 2 : 4;
}

static uint32_t field(uint32_t insn, int lo, int bits)
{
	return insn >> lo & ((1u << bits) - 1);
}

/* The low `bits` bits of v as a signed offset. */
static intptr_t sign_extend(uint32_t v, int bits)
{
	return (intptr_t)((int32_t)(v << (32 - bits)) >> (32 - bits));
}

/* A call: jal/jalr linking through ra, c.jalr, and c.jal (rv32 only; rv64's is c.addiw). */
static int is_call(uint32_t insn)
{
	if ((insn & 3) == 3)
		return ((insn & 0x7f) == 0x6f || (insn & 0x7f) == 0x67) && field(insn, 7, 5) == 1;
	if ((insn & 3) == 1)
		return __riscv_xlen == 32 && field(insn, 13, 3) == 1;
	return (insn & 3) == 2 && field(insn, 13, 3) == 4 && field(insn, 12, 1) &&
	       field(insn, 7, 5) && !field(insn, 2, 5);
}

/* Any instruction that can move the pc elsewhere than to the next one. */
static int is_transfer(uint32_t insn)
{
	if ((insn & 3) == 3) {
		uint32_t op = insn & 0x7f;
		return op == 0x63 || op == 0x6f || op == 0x67;
	}
	uint32_t f3 = field(insn, 13, 3);
	if ((insn & 3) == 1)
		return f3 == 5 || f3 == 6 || f3 == 7 || (__riscv_xlen == 32 && f3 == 1);
	/* c.jr, c.jalr (c.mv and c.add have rs2 != 0; c.ebreak traps) */
	return (insn & 3) == 2 && f3 == 4 && field(insn, 7, 5) && !field(insn, 2, 5);
}

static int is_return(uint32_t insn)
{
	return insn == 0x00008067u || insn == 0x8082u;
}

/* The target of an unconditional jump that links nothing (j, c.j), or 0. */
static uintptr_t jump_target(uintptr_t pc, uint32_t insn)
{
	if ((insn & 3) == 3) {
		if ((insn & 0x7f) != 0x6f || field(insn, 7, 5))
			return 0;
		return pc + sign_extend(field(insn, 31, 1) << 20 | field(insn, 12, 8) << 12 |
					       field(insn, 20, 1) << 11 | field(insn, 21, 10) << 1,
				       21);
	}
	if ((insn & 3) != 1 || field(insn, 13, 3) != 5)
		return 0;
	return pc + sign_extend(field(insn, 12, 1) << 11 | field(insn, 8, 1) << 10 |
				       field(insn, 9, 2) << 8 | field(insn, 6, 1) << 7 |
				       field(insn, 7, 1) << 6 | field(insn, 2, 1) << 5 |
				       field(insn, 11, 1) << 4 | field(insn, 3, 3) << 1,
			       12);
}

/* Instructions from fn up to the call that returns to ra, or UNKNOWN. */
static uint32_t count_before(uintptr_t fn, uintptr_t ra)
{
	uintptr_t pc = fn;
	for (uint32_t n = 0; n < MAX_WALK && pc < ra; n++) {
		uint32_t insn = insn_at(pc);
		pc += insn_bytes(insn);
		if (pc == ra)
			return is_call(insn) ? n : UNKNOWN;
		if (is_transfer(insn))
			return UNKNOWN;
	}
	return UNKNOWN;
}

/* Instructions from ra to the function's return, that included, or UNKNOWN. */
static uint32_t count_after(uintptr_t ra)
{
	uintptr_t pc = ra;
	for (uint32_t n = 1; n <= MAX_WALK; n++) {
		uint32_t insn = insn_at(pc);
		uintptr_t to = jump_target(pc, insn);
		if (is_return(insn))
			return n;
		if (to)
			pc = to;
		else if (is_transfer(insn))
			return UNKNOWN;
		else
			pc += insn_bytes(insn);
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

/* The register an instruction writes, or 0 (none, or not known to be sp or ra). */
static uint32_t written(uint32_t insn)
{
	if ((insn & 3) == 3) {
		uint32_t op = insn & 0x7f;
		return op == 0x23 || op == 0x63 || op == 0x27 ? 0 : field(insn, 7, 5);
	}
	/* quadrant 0 writes x8..x15 only; c.swsp/c.sdsp/c.fsdsp store */
	if ((insn & 3) == 0 || ((insn & 3) == 2 && field(insn, 13, 3) >= 5))
		return 0;
	return field(insn, 7, 5);
}

/* The offset from sp that restores ra (lw/ld ra, off(sp); c.lwsp/c.ldsp ra), or -1. */
static int32_t ra_load(uint32_t insn)
{
	int wide = __riscv_xlen == 64;
	if ((insn & 3) == 3)
		return (insn & 0x7f) == 0x03 && field(insn, 12, 3) == (wide ? 3u : 2u) &&
				       field(insn, 7, 5) == 1 && field(insn, 15, 5) == 2
			       ? (int32_t)insn >> 20
			       : -1;
	if ((insn & 3) != 2 || field(insn, 7, 5) != 1)
		return -1;
	if (!wide && field(insn, 13, 3) == 2) /* c.lwsp */
		return (int32_t)(field(insn, 12, 1) << 5 | field(insn, 4, 3) << 2 |
				 field(insn, 2, 2) << 6);
	if (wide && field(insn, 13, 3) == 3) /* c.ldsp */
		return (int32_t)(field(insn, 12, 1) << 5 | field(insn, 5, 2) << 3 |
				 field(insn, 2, 3) << 6);
	return -1;
}

int32_t zb_ra_slot(uintptr_t ra)
{
	if (!is_code(ra))
		return -1;
	uintptr_t pc = ra;
	for (uint32_t n = 0; n < MAX_WALK; n++) {
		uint32_t insn = insn_at(pc);
		int32_t off = ra_load(insn);
		if (off >= 0)
			return off;
		uintptr_t to = jump_target(pc, insn);
		uint32_t rd = written(insn);
		if (to)
			pc = to;
		else if (is_call(insn))
			pc += insn_bytes(insn); /* comes back here; callees keep sp */
		else if (is_transfer(insn) || rd == 1 || rd == 2)
			return -1;
		else
			pc += insn_bytes(insn);
	}
	return -1;
}
