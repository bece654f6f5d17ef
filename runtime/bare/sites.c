/*
 * sites.c - an instrumented function's instructions outside its probed
 * interval (bare.h: zb_before, zb_after), read from its code.
 *
 * gcc's -finstrument-functions puts the entry hook's call after the
 * prologue and the exit hook's before the epilogue; both are straight-line
 * code (with -msave-restore, calls and jumps into libgcc's straight-line
 * millicode), so counting their instructions once per call site is exact.  The
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

/*
 * The target of a jal at pc, or of a jalr through the register the auipc
 * before it (prev, at prev_pc) set: a call or tail beyond a jal's reach
 * (auipc t1, hi; jalr t0, lo(t1), code in RAM calling millicode in flash);
 * 0 for any other instruction.
 */
static uintptr_t link_target(uintptr_t pc, const struct rv_insn *in, uintptr_t prev_pc,
			     const struct rv_insn *prev)
{
	if (in->kind == RV_JAL)
		return pc + (uintptr_t)in->imm;
	if (in->kind == RV_JALR && prev->kind == RV_AUIPC && prev->rd && in->rs1 == prev->rd)
		return prev_pc + (uintptr_t)prev->imm + (uintptr_t)in->imm;
	return 0;
}

enum { RV_T0 = 5 };

/*
 * gcc's -msave-restore prologue calls libgcc's millicode, jal t0,
 * __riscv_save_N: straight-line code (its entries fall through, or jump on)
 * that saves ra and the s registers and returns with jr t0.  Its
 * instructions are the function's: from the millicode at pc to that
 * return, that included, or UNKNOWN.  (The epilogue's tail __riscv_restore_N
 * is a plain jump to code ending at ret: count_after follows it.)
 */
static uint32_t count_millicode(uintptr_t pc)
{
	for (uint32_t n = 1; n <= MAX_WALK; n++) {
		struct rv_insn in = insn_at(pc);
		uintptr_t to = jump_target(pc, &in);
		if (in.kind == RV_JALR && in.rd == 0 && in.rs1 == RV_T0 && in.imm == 0)
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

/* Instructions from fn up to the call that returns to ra, or UNKNOWN. */
static uint32_t count_before(uintptr_t fn, uintptr_t ra)
{
	uintptr_t pc = fn, prev_pc = 0;
	struct rv_insn prev = {0};
	for (uint32_t n = 0; n < MAX_WALK && pc < ra; n++) {
		struct rv_insn in = insn_at(pc);
		uintptr_t at = pc, to = link_target(at, &in, prev_pc, &prev);
		pc += insn_bytes(&in);
		if (pc == ra)
			return is_call(&in) ? n : UNKNOWN;
		if (in.rd == RV_T0 && to) { /* -msave-restore: comes back to pc */
			uint32_t m = count_millicode(to);
			if (m == UNKNOWN)
				return UNKNOWN;
			n += m;
		} else if (is_transfer(&in)) {
			return UNKNOWN;
		}
		prev = in;
		prev_pc = at;
	}
	return UNKNOWN;
}

/* Instructions from ra to the function's return, that included, or UNKNOWN. */
static uint32_t count_after(uintptr_t ra)
{
	uintptr_t pc = ra, prev_pc = 0;
	struct rv_insn prev = {0};
	for (uint32_t n = 1; n <= MAX_WALK; n++) {
		struct rv_insn in = insn_at(pc);
		uintptr_t at = pc, to = in.rd == 0 ? link_target(pc, &in, prev_pc, &prev) : 0;
		if (is_return(&in))
			return n;
		if (to) /* j, or a tail beyond a jal's reach (-msave-restore's __riscv_restore_N) */
			pc = to;
		else if (is_transfer(&in))
			return UNKNOWN;
		else
			pc += insn_bytes(&in);
		prev = in;
		prev_pc = at;
	}
	return UNKNOWN;
}

/* Calibration's fake functions and sites lie below the program (port.c). */
static int is_code(uintptr_t a)
{
	return a >= 0x1000;
}

/*
 * A site's count, once: never inlined into cached, whose every call (three
 * per instrumented call) would otherwise save the registers the walks need.
 */
__attribute__((noinline)) static void count_site(uint32_t i, uintptr_t fn, uintptr_t ra,
						 int after)
{
	uint32_t n = after ? count_after(ra) : count_before(fn, ra);
	if (n == UNKNOWN && ++zb_inexact_sites && zrt.hdr) /* in the raw data: zond warns */
		zrt.hdr->inexact_sites = zb_inexact_sites;
	site_key[i] = ra;
	site_count[i] = (uint16_t)n;
}

static uint32_t cached(uintptr_t fn, uintptr_t ra, int after)
{
	uint32_t i = (uint32_t)(ra >> 1) % SITES;
	if (site_key[i] != ra)
		count_site(i, fn, ra, after);
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

/*
 * What addi sp, sp, imm adds to sp (addi, c.addi, c.addi16sp), in *add: 1,
 * or 0 for any other instruction.
 */
static int sp_add(uint32_t insn, int32_t *add)
{
	if ((insn & 3) == 3) {
		*add = (int32_t)insn >> 20;
		return (insn & 0x707f) == 0x13 && rv_bits(insn, 11, 7) == RV_SP &&
		       rv_bits(insn, 19, 15) == RV_SP;
	}
	if ((insn & 3) != 1 || rv_bits(insn, 11, 7) != RV_SP)
		return 0;
	uint32_t f3 = rv_bits(insn, 15, 13);
	if (f3 == 0) /* c.addi sp */
		*add = (int32_t)rv_sext(rv_bits(insn, 12, 12) << 5 | rv_bits(insn, 6, 2), 6);
	else if (f3 == 3) /* c.addi16sp */
		*add = (int32_t)rv_sext(rv_bits(insn, 12, 12) << 9 | rv_bits(insn, 6, 6) << 4 |
						rv_bits(insn, 5, 5) << 6 | rv_bits(insn, 4, 3) << 7 |
						rv_bits(insn, 2, 2) << 5,
					10);
	return f3 == 0 || f3 == 3;
}

/*
 * The offset from sp at the exit hook's call of the slot ra is reloaded
 * from, found in the code from ra (calls stepped over: callees keep sp;
 * jumps followed, a tail beyond a jal's reach too; sp moved only by addi
 * sp, sp, imm, as -msave-restore's __riscv_restore_N does between its
 * loads), or -1.
 */
int32_t zb_ra_slot(uintptr_t ra)
{
	if (!is_code(ra))
		return -1;
	uintptr_t pc = ra, prev_pc = 0;
	struct rv_insn prev = {0};
	int32_t moved = 0;
	for (uint32_t n = 0; n < MAX_WALK; n++) {
		struct rv_insn in = insn_at(pc);
		int32_t off = ra_load(in.raw);
		if (off >= 0)
			return moved + off;
		uintptr_t at = pc, to = in.rd == 0 ? link_target(pc, &in, prev_pc, &prev) : 0;
		int32_t add = 0;
		if (in.wr == RV_SP && !sp_add(in.raw, &add))
			return -1; /* sp set some other way: the slot is not known */
		moved += add;
		if (to)
			pc = to;
		else if (is_call(&in))
			pc += insn_bytes(&in); /* comes back here; callees keep sp */
		else if (is_transfer(&in) || in.wr == RV_RA)
			return -1;
		else
			pc += insn_bytes(&in);
		prev = in;
		prev_pc = at;
	}
	return -1;
}
