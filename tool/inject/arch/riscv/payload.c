/*
 * payload.c - the RISC-V payload of zond inject, generated as machine code
 * for the addresses it will run at (no assembler at build time).
 *
 * One stub per function, in the trampoline area (stub_len bytes, then the
 * relocated copy):
 *
 *     .word id
 *     addi sp, sp, -16; sw ra, 0(sp)     (sd on RV64)   <- the entry's jal lands here
 *     jal  ra, za_entry
 *     lw   ra, 0(sp); addi sp, sp, 16                   (ra is now za_exit)
 *     <relocated entry instructions, jal back>
 *
 * za_entry takes a frame on the shadow stack (real return address, id,
 * start, payload cost below), counts the activation, replaces the saved
 * return address by za_exit and reads mcycle last (or another counter CSR:
 * inject_riscv_payload_reading).  The function's `ret`
 * lands in za_exit, which reads mcycle first, pops the frame, and adds to
 * the function's statistics (results.h, thread block 0: calls, inclusive
 * of the outermost activation, self, min, max) and to the call edge from
 * the frame below (a sentinel frame 0 stands for "no measured caller"),
 * then returns to the real address.  Both keep every register but ra at
 * the return (ra is the caller's to lose): t0-t6 are saved on the
 * program's stack below sp, which is moved first (no red zone in the ABI:
 * an interrupt may come at any time).  Machine interrupts are masked from
 * before the first access of anything shared (the shadow stack, the open
 * counts, the sums) to after the last, and MIE put back as it was: a
 * handler may call a measured function through this payload at any
 * instruction (irq_off; doc/inject.md, "Interrupts").
 *
 * Every path is straight-line (min, max and "outermost" by masks, not
 * branches; only a full shadow stack branches, to a path of its own
 * whose cost is constant too), so the payload's cost in instructions is
 * a constant: under QEMU's -icount shift=0 mcycle counts retired
 * instructions and the compensation is exact.  c0 is the payload's part inside a measured
 * interval, cpair all of one call's payload; the relocated copy's own
 * extra instructions (a jal back, an auipc made two) are per function:
 * `extra[id]` in the private area, added to the start, and with the
 * entry's own (a far jump's second instruction) to the payload cost the
 * caller sees.  RV32: a call's interval is the low 32 bits of
 * mcycle (calls under 2^32 cycles), sums are 64-bit.
 *
 * With a second counter (struct inject_riscv_second) each read of the
 * first is followed by one of the second, so both intervals hold the same
 * payload instructions and one c0 and cpair serve both; its start and
 * children's sum are frame words 5 and 6, its sums a second stats (and
 * edge) table.
 *
 * Private area (args->threads): depth word, depth + 1 frames of 8 words
 * (frame 0 the sentinel, its id nfuncs, its last word the frames there
 * are: the entry's bound, read rather than built into the code so that
 * the payload's length and cost are the same for any --depth), then per
 * id two words: extra (the copy's, taken out of the start) and the
 * caller's extra (the copy's and the entry's jump beyond one instruction:
 * a far jump's second).
 *
 * A call made with the shadow stack full is not measured and leaves its
 * return address alone (nothing written beyond the frames): the full path
 * counts it (the header's deep, lost_depth_calls) and adds its own cost
 * and its copy's extra instructions to the top frame's payload cost, so
 * the measured calls around it stay exact (its instructions are its
 * measured caller's self).
 */
#include <string.h>

#include "../../arch.h"
#include "../../results.h"
#include "payload.h"
#include "riscv.h"

#define FR_WORDS   8
#define F_RET      0
#define F_ID       1
#define F_START    2
#define F_CHILD    3 /* compensated inclusive cost of measured children */
#define F_OVH      4 /* payload cost inside this call's interval, below it */
#define F_START2   5 /* the second counter's (inject_riscv_second) */
#define F_CHILD2   6
#define F_LIMIT     7 /* the sentinel's: the frames there are (private_init) */
#define CSR_MCYCLE 0xb00
#define RV_T3      28
#define RV_T4      29
#define RV_T5      30
#define RV_T6      31
#define RV_A2      12
#define RV_A3      13
#define CSR_MSTATUS 0x300
#define MSTATUS_MIE 8
/* The stub's instructions: before the jal to za_entry, after its ret. */
#define STUB_BEFORE 3
#define STUB_AFTER  2
#define SAVE(w)    ((w) == 8 ? 48 : 32) /* bytes below sp for t0-t4 (entry), 16-aligned */

struct gen {
	uint8_t *b;
	size_t n, cap;
	uint64_t at;
	int w; /* bytes per word */
	int full;
	uint32_t csr; /* the counter read (0: mcycle) */
	const struct inject_riscv_second *two; /* NULL: one counter */
};

static void emit(struct gen *g, uint32_t v)
{
	if (g->n + 4 > g->cap) {
		g->full = 1;
		return;
	}
	for (int i = 0; i < 4; i++)
		g->b[g->n + (size_t)i] = (uint8_t)(v >> (8 * i));
	g->n += 4;
}

static uint64_t here(const struct gen *g)
{
	return g->at + g->n;
}

/* word load and store (lw/sw or ld/sd), 32-bit ones */
static void ldw(struct gen *g, int rd, int rs, int64_t off)
{
	emit(g, rv_itype(0x03, g->w == 8 ? 3 : 2, rd, rs, off));
}
static void stw(struct gen *g, int rs2, int rs1, int64_t off)
{
	emit(g, rv_stype(0x23, g->w == 8 ? 3 : 2, rs1, rs2, off));
}
static void ld32(struct gen *g, int rd, int rs, int64_t off)
{
	emit(g, rv_itype(0x03, 2, rd, rs, off));
}
static void st32(struct gen *g, int rs2, int rs1, int64_t off)
{
	emit(g, rv_stype(0x23, 2, rs1, rs2, off));
}
static void addi(struct gen *g, int rd, int rs, int64_t imm)
{
	emit(g, rv_itype(0x13, 0, rd, rs, imm));
}
static void rop(struct gen *g, uint32_t f3, uint32_t f7, int rd, int a, int b)
{
	emit(g, rv_rtype(0x33, f3, f7, rd, a, b));
}
#define ADD(g, d, a, b)  rop(g, 0, 0, d, a, b)
#define SUB(g, d, a, b)  rop(g, 0, 0x20, d, a, b)
#define SLTU(g, d, a, b) rop(g, 3, 0, d, a, b)
#define XOR(g, d, a, b)  rop(g, 4, 0, d, a, b)
#define AND(g, d, a, b)  rop(g, 7, 0, d, a, b)
static void slli(struct gen *g, int rd, int rs, int sh)
{
	emit(g, rv_itype(0x13, 1, rd, rs, sh));
}
static void srai(struct gen *g, int rd, int rs, int sh)
{
	emit(g, rv_itype(0x13, 5, rd, rs, 0x400 | sh));
}

/* rd = addr (pc-relative: any address within 2 GiB) */
static void la(struct gen *g, int rd, uint64_t addr)
{
	int64_t d = (int64_t)(addr - here(g));
	emit(g, rv_auipc(rd, rv_hi20(d)));
	addi(g, rd, rd, rv_lo12(d));
}

/* rd = v (a value below 2^31) */
static void li(struct gen *g, int rd, int64_t v)
{
	if (rv_fits(v, 12)) {
		addi(g, rd, 0, v);
		return;
	}
	emit(g, ((uint32_t)rv_hi20(v) & 0xfffff) << 12 | (uint32_t)rd << 7 | 0x37); /* lui */
	addi(g, rd, rd, rv_lo12(v));
}

/* the 64-bit sum at off(base) += v (a signed word); uses a, c */
static void add64(struct gen *g, int base, int64_t off, int v, int a, int c)
{
	if (g->w == 8) {
		ldw(g, a, base, off);
		ADD(g, a, a, v);
		stw(g, a, base, off);
		return;
	}
	ld32(g, a, base, off);
	ADD(g, a, a, v);
	SLTU(g, c, a, v); /* carry */
	st32(g, a, base, off);
	ld32(g, a, base, off + 4);
	ADD(g, a, a, c);
	srai(g, c, v, 31); /* v's sign as the high word */
	ADD(g, a, a, c);
	st32(g, a, base, off + 4);
}

/* the word at off(base) = max(it, v), unsigned, without a branch; uses a, c */
static void max_word(struct gen *g, int base, int64_t off, int v, int a, int c)
{
	ldw(g, a, base, off);
	SLTU(g, c, a, v);    /* c = a < v */
	SUB(g, c, 0, c);     /* mask */
	XOR(g, v, v, a);     /* v ^= a */
	AND(g, v, v, c);
	XOR(g, v, v, a);     /* v = mask ? v : a */
	stw(g, v, base, off);
}

/*
 * Interrupts off (rd = mstatus as it was) and back as they were: from the
 * first access of the shadow stack, the open counts and the sums to the
 * last, an interrupt handler's measured call would see a frame half pushed
 * or popped (QA s15 W3 F4: a nested entry took the frame the interrupted
 * exit had just popped, whose return address it still had to read) or lose
 * an update of a sum.  M-mode only, as the counter CSRs the payload reads.
 */
static void irq_off(struct gen *g, int rd)
{
	emit(g, CSR_MSTATUS << 20 | MSTATUS_MIE << 15 | 7u << 12 | (uint32_t)rd << 7 | 0x73); /* csrrci */
}
static void irq_restore(struct gen *g, int rs)
{
	emit(g, rv_itype(0x13, 7, rs, rs, MSTATUS_MIE));                  /* andi: MIE as it was */
	emit(g, CSR_MSTATUS << 20 | (uint32_t)rs << 15 | 2u << 12 | 0x73); /* csrs mstatus, rs */
}

/* Stores (or loads back) regs[from..n) at sp + i words. */
static void save_regs(struct gen *g, const int *regs, int from, int n, int load)
{
	for (int i = from; i < n; i++) {
		if (load)
			ldw(g, regs[i], RV_SP, i * g->w);
		else
			stw(g, regs[i], RV_SP, i * g->w);
	}
}

/* t4 (entry), a3 (exit): mstatus as it was, from irq_off to irq_restore */
static const int entry_regs[] = {RV_T0, RV_T1, RV_T2, RV_T3, RV_T4};
static const int exit_regs[] = {RV_T0, RV_A3, RV_T1, RV_T2, RV_T3, RV_T4, RV_T5, RV_T6, RV_A0};
/* two counters: the second's read goes to a1, kept next to t0 */
static const int exit_regs2[] = {RV_T0, RV_A1, RV_A3, RV_T1, RV_T2, RV_T3,
				 RV_T4, RV_T5, RV_T6, RV_A0, RV_A2};
#define EXIT_SAVE 12 /* words below sp for exit_regs or exit_regs2 (16-byte aligned) */

struct layout {
	uint64_t entry, exit;
	size_t entry_n, entry_from_csr, exit_n, exit_to_csr; /* instructions on the paths */
};

/* The instruction at byte at, written again (a branch or an immediate known later). */
static void patch(struct gen *g, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		g->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* Frames of the private area: depth calls nested at once and the sentinel below them. */
static uint64_t frames(uint32_t depth)
{
	return (uint64_t)(depth ? depth : INJ_DEPTH) + 1;
}

/* Where the two words per id start in the private area. */
static uint64_t extras_at(const struct inject_payload_args *a, int w)
{
	return (uint64_t)w + frames(a->depth) * FR_WORDS * (uint64_t)w;
}

/*
 * za_entry's path for a full shadow stack (t1 = id, t2 = the private
 * area, t3 = the depth word, t4 = mstatus as it was): the call is not
 * measured and keeps its return address, so nothing is written beyond the
 * frames.  It still counts: in id's calls and the header's deep
 * (lost_depth_calls); and its payload instructions (this path's whole,
 * its copy's extra ones) go to the top frame's payload cost, so that the
 * measured call it runs inside stays exact, its instructions that call's
 * self.  Returns where the cost's addi is, patched by the caller.
 */
static size_t gen_full(struct gen *g, const struct inject_payload_args *a)
{
	int w = g->w;
	slli(g, RV_T3, RV_T3, w == 8 ? 6 : 5);
	ADD(g, RV_T3, RV_T3, RV_T2); /* the top frame is at t3 + w - 8 words */
	slli(g, RV_T0, RV_T1, w == 8 ? 4 : 3);
	la(g, RV_T2, a->threads + extras_at(a, w) + (uint64_t)w);
	ADD(g, RV_T2, RV_T2, RV_T0);
	ldw(g, RV_T2, RV_T2, 0); /* the caller's extra of id */
	size_t cost_at = g->n;
	addi(g, RV_T0, 0, 0); /* this call's payload instructions: patched */
	ADD(g, RV_T2, RV_T2, RV_T0);
	int64_t ovh = w - FR_WORDS * w + F_OVH * w;
	ldw(g, RV_T0, RV_T3, ovh);
	ADD(g, RV_T0, RV_T0, RV_T2);
	stw(g, RV_T0, RV_T3, ovh);
	li(g, RV_T0, INJ_STAT);
	rop(g, 0, 1, RV_T2, RV_T1, RV_T0); /* mul: the stats of id */
	la(g, RV_T0, a->shm + INJ_HDR + a->stats);
	ADD(g, RV_T2, RV_T2, RV_T0);
	addi(g, RV_T3, 0, 1);
	add64(g, RV_T2, INJ_S_CALLS, RV_T3, RV_T0, RV_T1);
	la(g, RV_T0, a->shm + INJ_H_DEEP);
	ld32(g, RV_T1, RV_T0, 0);
	addi(g, RV_T1, RV_T1, 1);
	st32(g, RV_T1, RV_T0, 0);
	irq_restore(g, RV_T4);
	save_regs(g, entry_regs, 0, 5, 1);
	addi(g, RV_SP, RV_SP, SAVE(w));
	emit(g, rv_itype(0x67, 0, 0, RV_RA, 0));
	return cost_at;
}

/*
 * za_entry, called by a stub: ra = stub + 12 (the id at stub - 4 =
 * ra - 16), the function's return address at 0(sp).
 */
static void gen_entry(struct gen *g, const struct inject_payload_args *a, struct layout *l)
{
	int w = g->w;
	size_t n0 = g->n;
	l->entry = here(g);
	addi(g, RV_SP, RV_SP, -SAVE(w));
	save_regs(g, entry_regs, 0, 5, 0);
	irq_off(g, RV_T4);
	ld32(g, RV_T1, RV_RA, -16); /* id */
	la(g, RV_T2, a->threads);   /* the private area */
	ldw(g, RV_T3, RV_T2, 0);    /* depth */
	ldw(g, RV_T0, RV_T2, w + F_LIMIT * w); /* the frames there are */
	size_t full_at = g->n;
	emit(g, 0); /* bgeu t3, t0, full: patched below */
	addi(g, RV_T0, RV_T3, 1);
	stw(g, RV_T0, RV_T2, 0);
	slli(g, RV_T3, RV_T3, w == 8 ? 6 : 5); /* 8 words a frame */
	ADD(g, RV_T3, RV_T3, RV_T2);
	addi(g, RV_T3, RV_T3, w); /* frames after the depth word (aligned below) */
	ldw(g, RV_T0, RV_SP, SAVE(w)); /* the real return address */
	stw(g, RV_T0, RV_T3, F_RET * w);
	stw(g, RV_T1, RV_T3, F_ID * w);
	stw(g, 0, RV_T3, F_CHILD * w);
	stw(g, 0, RV_T3, F_OVH * w);
	if (g->two)
		stw(g, 0, RV_T3, F_CHILD2 * w);
	/* the open count of id (results' open counts: one hart, one block) */
	slli(g, RV_T1, RV_T1, 2);
	la(g, RV_T0, a->shm + INJ_HDR + INJ_SB_OPEN);
	ADD(g, RV_T0, RV_T0, RV_T1);
	ld32(g, RV_T2, RV_T0, 0);
	addi(g, RV_T2, RV_T2, 1);
	st32(g, RV_T2, RV_T0, 0);
	/* extra[id]: the relocated copy's own instructions, taken out */
	slli(g, RV_T1, RV_T1, w == 8 ? 2 : 1); /* two words an id */
	la(g, RV_T0, a->threads + extras_at(a, w));
	ADD(g, RV_T0, RV_T0, RV_T1);
	ldw(g, RV_T2, RV_T0, 0);
	la(g, RV_T0, a->exit);
	stw(g, RV_T0, RV_SP, SAVE(w)); /* the function returns to za_exit */
	size_t csr_at = g->n;
	emit(g, rv_csrr(RV_T0, g->csr ? g->csr : CSR_MCYCLE));
	if (g->two) /* right after the first: both intervals as long (c0 the same) */
		emit(g, rv_csrr(RV_T1, g->two->csr));
	ADD(g, RV_T0, RV_T0, RV_T2);
	stw(g, RV_T0, RV_T3, F_START * w);
	if (g->two) {
		ADD(g, RV_T1, RV_T1, RV_T2);
		stw(g, RV_T1, RV_T3, F_START2 * w);
	}
	irq_restore(g, RV_T4);
	save_regs(g, entry_regs, 0, 5, 1);
	addi(g, RV_SP, RV_SP, SAVE(w));
	emit(g, rv_itype(0x67, 0, 0, RV_RA, 0)); /* ret */
	l->entry_n = (g->n - n0) / 4;
	l->entry_from_csr = (g->n - csr_at) / 4;
	size_t full = g->n;
	size_t cost_at = gen_full(g, a);
	if (!g->full) {
		/* the whole of a call not measured: the entry's jal, the stub, za_entry to
		 * its branch, this path */
		size_t cost =
			1 + STUB_BEFORE + (full_at - n0) / 4 + 1 + (g->n - full) / 4 + STUB_AFTER;
		patch(g, cost_at, rv_itype(0x13, 0, RV_T0, 0, (int64_t)cost));
		patch(g, full_at, rv_branch(7, RV_T3, RV_T0, (int64_t)(full - full_at)));
	}
}

/* d clamped at 0 in place; its ~d (the inverted min's candidate) in c, and d again in v */
static void clamp_max_min(struct gen *g, int base, int d, int v, int a, int c)
{
	srai(g, v, d, g->w * 8 - 1);
	emit(g, rv_itype(0x13, 4, v, v, -1)); /* xori: 0 when negative */
	AND(g, d, d, v);
	addi(g, v, d, 0);
	max_word(g, base, INJ_S_MAX, v, a, c);
	emit(g, rv_itype(0x13, 4, v, d, -1)); /* ~d */
	max_word(g, base, INJ_S_MIN, v, a, c);
	if (g->w == 4) { /* the high words: 0 for max, ~0 for ~min */
		addi(g, c, 0, -1);
		st32(g, c, base, INJ_S_MIN + 4);
	}
}

/*
 * za_exit's part for the second counter: its d in a1, the outermost mask
 * in t6, the first's stats of id in t2, frame t3; a2 = its stats of id
 * (calls are the first's), a1 clamped at 0 for the edge.  Uses a0, ra, t1.
 */
static void second_stats(struct gen *g, const struct inject_payload_args *a)
{
	li(g, RV_T1, (int64_t)(g->two->stats - a->stats));
	ADD(g, RV_A2, RV_T2, RV_T1);
	AND(g, RV_A0, RV_T6, RV_A1);
	add64(g, RV_A2, INJ_S_INCL, RV_A0, RV_RA, RV_T1);
	ldw(g, RV_A0, RV_T3, F_CHILD2 * g->w);
	SUB(g, RV_A0, RV_A1, RV_A0);
	add64(g, RV_A2, INJ_S_SELF, RV_A0, RV_RA, RV_T1);
	clamp_max_min(g, RV_A2, RV_A1, RV_A0, RV_RA, RV_T1);
}

/* za_exit: the measured function's ret lands here, sp as at its entry. */
static void gen_exit(struct gen *g, const struct inject_payload_args *a, struct layout *l)
{
	int w = g->w;
	size_t n0 = g->n;
	const int *regs = g->two ? exit_regs2 : exit_regs;
	int nregs = g->two ? 11 : 9, first = g->two ? 3 : 2, frame = EXIT_SAVE;
	l->exit = here(g);
	addi(g, RV_SP, RV_SP, -frame * w);
	save_regs(g, regs, 0, first, 0); /* the registers the reads and irq_off take */
	irq_off(g, RV_A3); /* before the read: a handler's calls until then are this call's */
	l->exit_to_csr = (g->n - n0) / 4;
	emit(g, rv_csrr(RV_T0, g->csr ? g->csr : CSR_MCYCLE));
	if (g->two)
		emit(g, rv_csrr(RV_A1, g->two->csr));
	save_regs(g, regs, first, nregs, 0);
	/* pop the frame: t3 = frame, t4 = parent */
	la(g, RV_T2, a->threads);
	ldw(g, RV_T3, RV_T2, 0);
	addi(g, RV_T3, RV_T3, -1);
	stw(g, RV_T3, RV_T2, 0);
	slli(g, RV_T3, RV_T3, w == 8 ? 6 : 5);
	ADD(g, RV_T3, RV_T3, RV_T2);
	addi(g, RV_T3, RV_T3, w);
	addi(g, RV_T4, RV_T3, -FR_WORDS * w);
	/* d = now - start - c0 - the payload cost of the calls below */
	ldw(g, RV_T1, RV_T3, F_START * w);
	SUB(g, RV_T0, RV_T0, RV_T1);
	li(g, RV_T1, (int64_t)a->c0);
	SUB(g, RV_T0, RV_T0, RV_T1);
	ldw(g, RV_T1, RV_T3, F_OVH * w);
	SUB(g, RV_T0, RV_T0, RV_T1);
	if (g->two) { /* a1 = the second's d, the same cost taken out; the parent's child2 += it */
		ldw(g, RV_T2, RV_T3, F_START2 * w);
		SUB(g, RV_A1, RV_A1, RV_T2);
		li(g, RV_T2, (int64_t)a->c0);
		SUB(g, RV_A1, RV_A1, RV_T2);
		SUB(g, RV_A1, RV_A1, RV_T1);
		ldw(g, RV_T2, RV_T4, F_CHILD2 * w);
		ADD(g, RV_T2, RV_T2, RV_A1);
		stw(g, RV_T2, RV_T4, F_CHILD2 * w);
	}
	/* the parent's: child += d, ovh += cpair + the caller's extra + ovh */
	ldw(g, RV_T5, RV_T3, F_ID * w); /* id */
	ldw(g, RV_T2, RV_T4, F_CHILD * w);
	ADD(g, RV_T2, RV_T2, RV_T0);
	stw(g, RV_T2, RV_T4, F_CHILD * w);
	slli(g, RV_T6, RV_T5, w == 8 ? 4 : 3);
	la(g, RV_T2, a->threads + extras_at(a, w) + (uint64_t)w);
	ADD(g, RV_T2, RV_T2, RV_T6);
	ldw(g, RV_T2, RV_T2, 0); /* the caller's extra of id */
	ADD(g, RV_T1, RV_T1, RV_T2);
	li(g, RV_T2, (int64_t)a->cpair);
	ADD(g, RV_T1, RV_T1, RV_T2);
	ldw(g, RV_T2, RV_T4, F_OVH * w);
	ADD(g, RV_T2, RV_T2, RV_T1);
	stw(g, RV_T2, RV_T4, F_OVH * w);
	/* the open count: one fewer; the outermost activation's mask in t6 */
	slli(g, RV_T6, RV_T5, 2);
	la(g, RV_T2, a->shm + INJ_HDR + INJ_SB_OPEN);
	ADD(g, RV_T2, RV_T2, RV_T6);
	ld32(g, RV_T1, RV_T2, 0);
	addi(g, RV_T1, RV_T1, -1);
	st32(g, RV_T1, RV_T2, 0);
	emit(g, rv_itype(0x13, 3, RV_T6, RV_T1, 1)); /* sltiu t6, t1, 1: outermost */
	SUB(g, RV_T6, 0, RV_T6);
	/* t2 = the stats of id */
	li(g, RV_T1, INJ_STAT);
	rop(g, 0, 1, RV_T2, RV_T5, RV_T1); /* mul */
	la(g, RV_T1, a->shm + INJ_HDR + a->stats);
	ADD(g, RV_T2, RV_T2, RV_T1);
	if (g->two)
		second_stats(g, a);
	addi(g, RV_A0, 0, 1);
	add64(g, RV_T2, INJ_S_CALLS, RV_A0, RV_RA, RV_T1);
	AND(g, RV_T6, RV_T6, RV_T0);
	add64(g, RV_T2, INJ_S_INCL, RV_T6, RV_RA, RV_T1);
	ldw(g, RV_T6, RV_T3, F_CHILD * w);
	SUB(g, RV_T6, RV_T0, RV_T6);
	add64(g, RV_T2, INJ_S_SELF, RV_T6, RV_RA, RV_T1);
	/* one call's cost, at least 0: max and ~min */
	clamp_max_min(g, RV_T2, RV_T0, RV_T6, RV_RA, RV_T1);
	/* the edge (parent's id, id): calls and inclusive */
	if (a->edges) {
		ldw(g, RV_T6, RV_T4, F_ID * w);
		li(g, RV_T1, (int64_t)a->nfuncs);
		rop(g, 0, 1, RV_T6, RV_T6, RV_T1); /* mul */
		ADD(g, RV_T6, RV_T6, RV_T5);
		slli(g, RV_T6, RV_T6, 4);
		la(g, RV_T2, a->shm + INJ_HDR + a->edges);
		ADD(g, RV_T2, RV_T2, RV_T6);
		add64(g, RV_T2, INJ_E_CALLS, RV_A0, RV_RA, RV_T1);
		add64(g, RV_T2, INJ_E_INCL, RV_T0, RV_RA, RV_T1);
		if (g->two && g->two->edges) {
			li(g, RV_T1, (int64_t)(g->two->edges - a->edges));
			ADD(g, RV_T2, RV_T2, RV_T1);
			add64(g, RV_T2, INJ_E_INCL, RV_A1, RV_RA, RV_T1);
		}
	}
	ldw(g, RV_RA, RV_T3, F_RET * w);
	irq_restore(g, RV_A3);
	save_regs(g, regs, 0, nregs, 1);
	addi(g, RV_SP, RV_SP, frame * w);
	emit(g, rv_itype(0x67, 0, 0, RV_RA, 0)); /* ret */
	l->exit_n = (g->n - n0) / 4;
}

/* Bytes of za_entry (its length depends on no argument but two's presence): za_exit follows it. */
static uint64_t entry_len(int w, const struct inject_riscv_second *two)
{
	static uint64_t len[2][2];
	if (!len[w == 8][two != NULL]) {
		uint8_t buf[4096];
		struct layout l;
		struct inject_riscv_second any = {CSR_MCYCLE, 0, 0};
		struct gen g = {buf, 0, sizeof buf, 0, w, 0, 0, two ? &any : NULL};
		struct inject_payload_args a = {0};
		gen_entry(&g, &a, &l);
		len[w == 8][two != NULL] = g.n;
	}
	return len[w == 8][two != NULL];
}

/* The blob: za_entry at a->exit - entry_len, za_exit at a->exit. */
static size_t payload(uint8_t *out, size_t cap, const struct inject_payload_args *a, int w,
		      struct layout *l, uint32_t csr, const struct inject_riscv_second *two)
{
	struct gen g = {out, 0, cap, a->exit - entry_len(w, two), w, 0, csr, two};
	gen_entry(&g, a, l);
	gen_exit(&g, a, l);
	return g.full ? 0 : g.n;
}

/*
 * The payload's cost in instructions (exact under -icount shift=0): c0
 * inside a measured interval (entry from its csrr read, the stub's tail,
 * exit up to its read), cpair all of one call's.
 */
static void costs(const struct layout *l, uint64_t *c0, uint64_t *cpair)
{
	*c0 = l->entry_from_csr + STUB_AFTER + l->exit_to_csr;
	*cpair = 1 /* the jal at the entry */ + STUB_BEFORE + l->entry_n + STUB_AFTER + l->exit_n;
}

/*
 * The blob at payload_at: args->exit must be payload_at (za_exit comes
 * first), c0 and cpair as inject_riscv_costs() gives them.
 */
static size_t payload_xlen(uint8_t *out, size_t cap, const struct inject_payload_args *a, int w)
{
	struct layout l;
	return payload(out, cap, a, w, &l, 0, NULL);
}

size_t inject_riscv_payload_reading(uint8_t *out, size_t cap, const struct inject_payload_args *a,
				    int xlen, uint32_t csr, const struct inject_riscv_second *two)
{
	struct layout l;
	return payload(out, cap, a, xlen / 8, &l, csr, two);
}

uint64_t inject_riscv_exit_at(int xlen, uint64_t payload_at, const struct inject_riscv_second *two)
{
	return payload_at + entry_len(xlen / 8, two);
}

size_t inject_riscv32_payload(uint8_t *out, size_t cap, const struct inject_payload_args *a)
{
	return payload_xlen(out, cap, a, 4);
}

size_t inject_riscv64_payload(uint8_t *out, size_t cap, const struct inject_payload_args *a)
{
	return payload_xlen(out, cap, a, 8);
}

/* c0 and cpair of the payload for these arguments (its length does not depend on them). */
void inject_riscv_costs(int xlen, const struct inject_payload_args *a,
			const struct inject_riscv_second *two, uint64_t *c0, uint64_t *cpair)
{
	uint8_t buf[4096];
	struct layout l;
	payload(buf, sizeof buf, a, xlen / 8, &l, 0, two);
	costs(&l, c0, cpair);
}

/* What a call that never returns ran of the payload: the entry's jal, the stub, za_entry. */
uint64_t inject_riscv_open_cost(int xlen, const struct inject_riscv_second *two)
{
	uint8_t buf[4096];
	struct layout l;
	struct inject_payload_args a = {0};
	payload(buf, sizeof buf, &a, xlen / 8, &l, 0, two);
	return 1 + STUB_BEFORE + l.entry_n + STUB_AFTER;
}

/* za_exit's address in a blob at payload_at. */
uint64_t inject_riscv32_exit_addr(uint64_t payload_at)
{
	return payload_at + entry_len(4, NULL);
}

uint64_t inject_riscv64_exit_addr(uint64_t payload_at)
{
	return payload_at + entry_len(8, NULL);
}

static size_t stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id, int w)
{
	struct gen g = {out, 0, 24, at, w, 0, 0, NULL};
	emit(&g, id);
	addi(&g, RV_SP, RV_SP, -16);
	stw(&g, RV_RA, RV_SP, 0);
	emit(&g, rv_jal(RV_RA, (int64_t)(payload_at - here(&g))));
	ldw(&g, RV_RA, RV_SP, 0);
	addi(&g, RV_SP, RV_SP, 16);
	return g.n;
}

size_t inject_riscv32_stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id,
			   enum inject_probe kind)
{
	(void)kind;
	return stub(out, at, payload_at, id, 4);
}

size_t inject_riscv64_stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id,
			   enum inject_probe kind)
{
	(void)kind;
	return stub(out, at, payload_at, id, 8);
}

int inject_riscv_calibrate(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err)
{
	(void)c0, (void)cpair, (void)hz;
	return zerr_set(err, "RISC-V: the payload's cost is counted, not measured "
			     "(inject_riscv_costs)");
}

int inject_riscv_calibrate_region(uint64_t *c0, uint64_t *hz, struct zerr *err)
{
	(void)c0, (void)hz;
	return zerr_set(err, "RISC-V: region probes are not implemented yet");
}

size_t inject_riscv_private_size(int xlen, size_t nfuncs, uint32_t depth)
{
	struct inject_payload_args a = {.depth = depth};
	return (size_t)extras_at(&a, xlen / 8) + nfuncs * 2 * (size_t)(xlen / 8);
}

static void put_word(uint8_t *p, size_t w, uint64_t v)
{
	for (size_t i = 0; i < w; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void inject_riscv_private_init(uint8_t *buf, int xlen, size_t nfuncs, uint32_t depth,
			       const int32_t *extra, const int32_t *caller_extra)
{
	size_t w = (size_t)xlen / 8;
	struct inject_payload_args a = {.depth = depth};
	memset(buf, 0, inject_riscv_private_size(xlen, nfuncs, depth));
	put_word(buf, w, 1);                        /* depth: the sentinel frame */
	put_word(buf + w + F_ID * w, w, nfuncs);    /* its id: "no measured caller" */
	put_word(buf + w + F_LIMIT * w, w, frames(depth)); /* za_entry's bound */
	uint8_t *ex = buf + extras_at(&a, (int)w);
	for (size_t k = 0; k < nfuncs; k++) {
		put_word(ex + 2 * k * w, w, (uint64_t)(int64_t)extra[k]);
		put_word(ex + (2 * k + 1) * w, w, (uint64_t)(int64_t)caller_extra[k]);
	}
}

int32_t inject_riscv_copy_extra(const uint8_t *copy, size_t len, uint32_t ninsn)
{
	int32_t n = 0;
	for (size_t off = 0; off < len; n++) {
		struct rv_insn in, next;
		rv_decode(copy + off, len - off, 32, &in);
		if (!in.len)
			break;
		off += in.len;
		rv_decode(copy + off, len - off, 32, &next);
		/* a far branch, inverted over a jal (or auipc + jalr): its usual path
		 * (not taken) runs one of them */
		if (in.kind == RV_BRANCH && in.imm == 8 && next.kind == RV_JAL && next.rd == 0 &&
		    off + next.len < len)
			off += next.len;
		if (in.kind == RV_BRANCH && in.imm == 12 && next.kind == RV_AUIPC && off + 8 < len)
			off += 8;
	}
	return n - (int32_t)ninsn;
}
