/*
 * gdb.c - zond inject's transport over the GDB remote protocol
 * (transport.h): one hart of a bare-metal target, its ELF file linked
 * where it runs, trampolines and results in scratch RAM.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inject/transport.h"
#include "model/profile.h"
#include "rsp.h"
#include "symbols/symbols.h"
#include "util/clock.h"
#include "util/path.h"

#define SCRATCH_MIN (64 * 1024) /* the smallest gap taken for scratch RAM */
#define MAX_SHARES  8

struct share {
	void *local;
	uint64_t remote, len;
};

struct gdbt {
	struct inject_transport base;
	struct rsp *r;
	struct rsp_regs regs;
	struct symbols *sym;
	char *elf;
	unsigned xlen;
	uint32_t pc_reg;
	uint64_t scratch, scratch_len, used;
	struct share shares[MAX_SHARES];
	size_t nshares;
	int poll_ms;
	uint64_t end_at;
	int end_set; /* the breakpoint at end_at is in */
	struct watch { /* inject_rsp_watch: breakpoints zond handles itself */
		uint64_t *at;
		int *kind;
		size_t n;
		int set; /* inserted in the target */
		int (*fn)(void *arg, size_t i, struct zerr *err);
		void *arg;
	} watch;
	uint64_t (*redirects)[2]; /* breakpoints answered here: from, to */
	size_t nredirects;
	int running;
	int64_t started_ms, read_ms; /* when the target was released, the last read */
	int64_t until_ms;            /* inject_rsp_wait_for: when wait() stops it, 0: never */
	const char *counter;         /* read when the program ends or zond stops it */
	uint64_t counter_end;
	int counter_read;
	int (*stop_asked)(void);     /* inject_rsp_options' */
	void (*on_read)(void *arg);  /* inject_rsp_options', with read_arg */
	void *read_arg;
	int exact_clock, clock_moved; /* inject_rsp_options', inject_rsp_clock_moved */
	pid_t qemu;                  /* started by zond, 0 when not */
	char sockdir[64];
};

static int g_read(struct inject_transport *t, uint64_t addr, void *buf, size_t n, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	return rsp_read_mem(g->r, addr, buf, n, err);
}

static int g_write(struct inject_transport *t, uint64_t addr, const void *buf, size_t n,
		   struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	return rsp_write_mem(g->r, addr, buf, n, err);
}

static int g_alloc(struct inject_transport *t, size_t len, uint64_t *out, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	uint64_t at = (g->used + 15) & ~(uint64_t)15;
	if (at + len > g->scratch_len)
		return zerr_set(err,
				"%s: scratch RAM 0x%llx,0x%llx is full: %zu bytes more wanted "
				"(--scratch ADDR,LEN gives more)",
				rsp_name(g->r), (unsigned long long)g->scratch,
				(unsigned long long)g->scratch_len, len);
	*out = g->scratch + at;
	g->used = at + len;
	return 0;
}

static int g_alloc_near(struct inject_transport *t, uint64_t addr, size_t len, uint64_t *out,
			struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	if (g_alloc(t, len, out, err) < 0)
		return -1;
	int64_t d = (int64_t)(*out - addr);
	if (g->xlen == 8 && (d >= (1ll << 31) - (1 << 11) || d < -(1ll << 31)))
		return zerr_set(err, "%s: scratch RAM at 0x%llx is out of reach of 0x%llx (auipc)",
				rsp_name(g->r), (unsigned long long)*out, (unsigned long long)addr);
	return 0;
}

static int g_share(struct inject_transport *t, size_t len, void **local, uint64_t *remote,
		   struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	if (g->nshares == MAX_SHARES)
		return zerr_set(err, "%s: more than %d shared areas", rsp_name(g->r), MAX_SHARES);
	if (g_alloc(t, len, remote, err) < 0)
		return -1;
	struct share *s = &g->shares[g->nshares++];
	s->local = zp_xcalloc(1, len);
	s->remote = *remote;
	s->len = len;
	*local = s->local;
	return 0;
}

static int g_module_start(struct inject_transport *t, const char *path, uint64_t *start,
			  struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	if (strcmp(path, g->elf) != 0)
		return zerr_set(err, "%s: the target runs %s only", path, g->elf);
	return symbols_load_start(g->sym, path, start, err);
}

static int g_modules(struct inject_transport *t,
		     void (*fn)(void *arg, const char *path, uint64_t start), void *arg,
		     struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	uint64_t start;
	if (symbols_load_start(g->sym, g->elf, &start, err) < 0)
		return -1;
	fn(arg, g->elf, start);
	return 0;
}

static size_t g_threads(struct inject_transport *t)
{
	(void)t;
	return 1;
}

static int g_pc(struct inject_transport *t, size_t i, uint64_t *pc, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	(void)i;
	return rsp_read_reg(g->r, g->pc_reg, g->xlen, pc, err);
}

static int g_set_pc(struct inject_transport *t, size_t i, uint64_t pc, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	(void)i;
	return rsp_write_reg(g->r, g->pc_reg, g->xlen, pc, err);
}

/* Copies zond's buffers to the target (to = 1) or the target's areas into them. */
static int sync_shares(struct gdbt *g, int to, struct zerr *err)
{
	for (size_t i = 0; i < g->nshares; i++) {
		struct share *s = &g->shares[i];
		int rc = to ? rsp_write_mem(g->r, s->remote, s->local, s->len, err)
			    : rsp_read_mem(g->r, s->remote, s->local, s->len, err);
		if (rc < 0)
			return -1;
	}
	if (!to)
		g->read_ms = clock_now_ns(CLOCK_MONOTONIC) / 1000000;
	return 0;
}

/* Inserts (insert = 1) or takes out the watched breakpoints. */
static int watch_set(struct gdbt *g, int insert, struct zerr *err)
{
	struct watch *w = &g->watch;
	if (w->set == insert)
		return 0;
	for (size_t i = 0; i < w->n; i++)
		if (rsp_break(g->r, w->at[i], w->kind[i], insert, err) < 0)
			return -1;
	w->set = insert;
	return 0;
}

static int g_release(struct inject_transport *t, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	if (sync_shares(g, 1, err) < 0 || watch_set(g, 1, err) < 0)
		return -1;
	if (g->end_at && !g->end_set) {
		if (rsp_break(g->r, g->end_at, 2, 1, err) < 0)
			return -1;
		g->end_set = 1;
	}
	if (rsp_continue(g->r, err) < 0)
		return -1;
	if (!g->started_ms)
		g->started_ms = clock_now_ns(CLOCK_MONOTONIC) / 1000000;
	g->running = 1;
	return 0;
}

/* Says how the target stopped when zond did not stop it. */
static int unexpected(struct gdbt *g, const struct rsp_stop *st, struct zerr *err)
{
	uint64_t pc = 0;
	struct zerr ignored;
	if (st->kind == 'T' || st->kind == 'S')
		rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, &ignored);
	return zerr_set(err, "%s: the target stopped unexpectedly (%c%02x) at 0x%llx",
			rsp_name(g->r), st->kind, st->value, (unsigned long long)pc);
}

/* Interrupts the running target and waits for it to stop. */
static int halt(struct gdbt *g, struct rsp_stop *st, struct zerr *err)
{
	if (rsp_interrupt(g->r, err) < 0)
		return -1;
	int rc = rsp_wait_stop(g->r, -1, st, err);
	if (rc == 0)
		return zerr_set(err, "%s: the target did not stop when interrupted",
				rsp_name(g->r));
	g->running = 0;
	return rc < 0 ? -1 : 0;
}

static int g_stop(struct inject_transport *t, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	struct rsp_stop st;
	if (halt(g, &st, err) < 0)
		return -1;
	if (st.kind == 'W' || st.kind == 'X')
		return zerr_set(err, "%s: the target ended (%c%02x)", rsp_name(g->r), st.kind,
				st.value);
	return sync_shares(g, 0, err);
}

static int start_ms_ago(const struct gdbt *g, int64_t at)
{
	return (int)(at - g->started_ms);
}

/* The error of a lost connection: what was kept, from when. */
static int lost(struct gdbt *g, struct zerr *err)
{
	char why[sizeof err->msg];
	snprintf(why, sizeof why, "%s", err->msg);
	if (g->read_ms)
		return zerr_set(err, "%s; the results read %d ms after the start are kept", why,
				start_ms_ago(g, g->read_ms));
	return zerr_set(err, "%s; no results were read before", why);
}

/* QEMU's wait status (zond started it), or the one the stop reply gives. */
static int exit_status(struct gdbt *g, const struct rsp_stop *st, int *status)
{
	if (g->qemu > 0) {
		int s;
		while (waitpid(g->qemu, &s, 0) < 0 && errno == EINTR)
			;
		g->qemu = 0;
		*status = s;
		return 0;
	}
	*status = st->kind == 'W' ? (st->value & 0xff) << 8 : st->value & 0x7f;
	return 0;
}

/* 1 when the stopped target is at end_at, 0 when not, -1 with err. */
static int at_end(struct gdbt *g, struct zerr *err)
{
	uint64_t pc;
	if (rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0)
		return -1;
	return pc == g->end_at;
}

static int64_t now_ms(void)
{
	return clock_now_ns(CLOCK_MONOTONIC) / 1000000;
}

/* Where the redirect at pc sends the pc, or 0 when none is there. */
static uint64_t redirect_to(const struct gdbt *g, uint64_t pc)
{
	for (size_t i = 0; i < g->nredirects; i++)
		if (g->redirects[i][0] == pc)
			return g->redirects[i][1];
	return 0;
}

/*
 * A stopped target at pc, a redirect's breakpoint, gets its pc moved (1);
 * at another pc, or the end's (its read first: its breakpoint goes, this
 * one stops again), it is left (0); -1 with err.
 */
static int move_pc(struct gdbt *g, uint64_t pc, struct zerr *err)
{
	uint64_t to = redirect_to(g, pc);
	if (!to || (g->end_set && pc == g->end_at))
		return 0;
	return rsp_write_reg(g->r, g->pc_reg, g->xlen, to, err) < 0 ? -1 : 1;
}

/* The watched breakpoint at pc, or -1. */
static ptrdiff_t watched_at(const struct gdbt *g, uint64_t pc)
{
	if (!g->watch.set)
		return -1;
	for (size_t i = 0; i < g->watch.n; i++)
		if (g->watch.at[i] == pc)
			return (ptrdiff_t)i;
	return -1;
}

/*
 * A target zond stopped (an interrupt) at a redirect's breakpoint gets its
 * pc moved (1), else it is left (0): at a watched one too (its function
 * first: the continue stops there again); -1 with err.
 */
static int redirect(struct gdbt *g, struct zerr *err)
{
	uint64_t pc;
	if (!g->nredirects || rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0)
		return g->nredirects ? -1 : 0;
	return watched_at(g, pc) >= 0 ? 0 : move_pc(g, pc, err);
}

/* A function asked to be done with its breakpoints: every one but i (out already) out. */
static int watch_off_but(struct gdbt *g, size_t i, struct zerr *err)
{
	for (size_t j = 0; j < g->watch.n; j++)
		if (j != i && rsp_break(g->r, g->watch.at[j], g->watch.kind[j], 0, err) < 0)
			return -1;
	g->watch.set = 0;
	g->watch.n = 0;
	return 0;
}

/* Every watched breakpoint out, as a function returning 1 asks. */
static int watch_end(struct gdbt *g, struct zerr *err)
{
	if (watch_set(g, 0, err) < 0)
		return -1;
	g->watch.n = 0;
	return 0;
}

/*
 * The counter at a step over one instruction (before: 0, after: 1): more
 * than one count across it is the clock moved while the hart was stopped
 * (QEMU's -icount with sleep on, once a timer is armed): said once.
 */
static int step_clock(struct gdbt *g, int after, uint64_t *before, struct zerr *err)
{
	const struct rsp_reg *reg = g->counter ? rsp_reg_find(&g->regs, g->counter) : NULL;
	uint64_t now;
	if (!g->exact_clock || g->clock_moved || !reg)
		return 0;
	if (rsp_read_reg(g->r, reg->regnum, reg->bitsize / 8, after ? &now : before, err) < 0)
		return -1;
	uint64_t moved = (now - *before) & (reg->bitsize == 32 ? UINT32_MAX : UINT64_MAX);
	if (!after || moved <= 1)
		return 0;
	g->clock_moved = 1;
	fprintf(stderr,
		"zond inject: warning: %s moved %llu over a step of one instruction: QEMU's "
		"clock runs on while zond stops the hart (-icount with sleep on and a timer "
		"armed): counts across a debugger stop are too long (run meta "
		"inject_clock_moved; doc/inject.md)\n",
		g->counter, (unsigned long long)moved);
	return 0;
}

/*
 * A stop at watched breakpoint i (pc): its function, then a step over the
 * instruction there (its breakpoint out for the step), again while the
 * step lands on another one, and the target let run.  At a redirect's
 * breakpoint the pc moves after the function instead of the step (the
 * stub runs the entry's instruction).  1 when handled (the target runs), 0
 * when a step ended the target (*st), -1 with err.
 */
static int on_watch(struct gdbt *g, struct rsp_stop *st, uint64_t pc, ptrdiff_t i, struct zerr *err)
{
	while (i >= 0) {
		int done = g->watch.fn(g->watch.arg, (size_t)i, err);
		if (done < 0)
			return -1;
		if (redirect_to(g, pc)) {
			g->read_ms = now_ms();
			return (done && watch_end(g, err) < 0) || move_pc(g, pc, err) < 0 ||
					       rsp_continue(g->r, err) < 0
				       ? -1
				       : 1;
		}
		uint64_t before = 0;
		if (rsp_break(g->r, pc, g->watch.kind[i], 0, err) < 0 ||
		    step_clock(g, 0, &before, err) < 0 || rsp_step(g->r, st, err) < 0 ||
		    ((st->kind == 'T' || st->kind == 'S') && step_clock(g, 1, &before, err) < 0) ||
		    (done ? watch_off_but(g, (size_t)i, err)
			  : rsp_break(g->r, pc, g->watch.kind[i], 1, err)) < 0)
			return -1;
		g->read_ms = now_ms();
		if (st->kind != 'T' && st->kind != 'S')
			return 0;
		if (rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0)
			return -1;
		i = watched_at(g, pc);
	}
	if (rsp_continue(g->r, err) < 0)
		return -1;
	return 1;
}

/*
 * A stop zond answers itself: at a watched breakpoint (on_watch) or a
 * redirect's (the pc moved).  The end's breakpoint goes first: a stop at
 * end_at is the caller's, whose continue (that breakpoint out) stops here
 * again.  1 when handled (the target runs), 0 when the stop is not one
 * (*st the stop to handle), -1 with err.
 */
static int on_stop(struct gdbt *g, struct rsp_stop *st, struct zerr *err)
{
	uint64_t pc;
	if ((!g->watch.set && !g->nredirects) || (st->kind != 'T' && st->kind != 'S'))
		return 0;
	if (rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0)
		return -1;
	if (g->end_set && pc == g->end_at)
		return 0;
	ptrdiff_t i = watched_at(g, pc);
	if (i >= 0)
		return on_watch(g, st, pc, i, err);
	int moved = move_pc(g, pc, err);
	if (moved <= 0)
		return moved;
	return rsp_continue(g->r, err) < 0 ? -1 : 1;
}

/* The counter's value at the end (the target stopped), when one was asked. */
static int read_counter(struct gdbt *g, struct zerr *err)
{
	const struct rsp_reg *reg = g->counter ? rsp_reg_find(&g->regs, g->counter) : NULL;
	if (!reg)
		return 0; /* none asked, or none there (the run failed before it began) */
	if (rsp_read_reg(g->r, reg->regnum, reg->bitsize / 8, &g->counter_end, err) < 0)
		return -1;
	g->counter_read = 1;
	return 0;
}

/*
 * Stopped by zond at a watched breakpoint before it fired: its function
 * runs; at a redirect's the pc moves (after the function, if both).
 */
static int watch_stopped(struct gdbt *g, struct zerr *err)
{
	uint64_t pc;
	if (!g->watch.set && !g->nredirects)
		return 0;
	if (rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0)
		return -1;
	ptrdiff_t i = watched_at(g, pc);
	int done = i >= 0 ? g->watch.fn(g->watch.arg, (size_t)i, err) : 0;
	if (done < 0 || (done > 0 && watch_end(g, err) < 0))
		return -1;
	return move_pc(g, pc, err) < 0 ? -1 : 0;
}

/* The results were just read, the target stopped while it runs: the caller's on_read. */
static void read_while_running(struct gdbt *g)
{
	if (g->on_read)
		g->on_read(g->read_arg);
}

static int g_wait(struct inject_transport *t, int *status, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	struct rsp_stop st;
	for (;;) {
		int64_t wait_ms = g->poll_ms ? g->poll_ms : 1000, now = now_ms();
		if (g->until_ms && g->until_ms - now < wait_ms)
			wait_ms = g->until_ms > now ? g->until_ms - now : 0;
		int rc = rsp_wait_stop(g->r, (int)wait_ms, &st, err);
		if (rc == 1) { /* zond's own breakpoints answered here */
			int w = on_stop(g, &st, err);
			if (w > 0)
				continue;
			rc = w < 0 ? -1 : 1;
		}
		if (rc < 0) {
			if (g->qemu > 0 && rsp_gone(g->r)) {
				kill(g->qemu, SIGKILL);
				exit_status(g, &st, status);
			}
			return lost(g, err);
		}
		if (rc == 1)
			break;
		if ((g->until_ms && now_ms() >= g->until_ms) || (g->stop_asked && g->stop_asked())) {
			int at = halt(g, &st, err);
			if (at == 0 && (st.kind == 'W' || st.kind == 'X'))
				break;
			if (at < 0 || (at = watch_stopped(g, err)) < 0 ||
			    read_counter(g, err) < 0 || sync_shares(g, 0, err) < 0)
				return lost(g, err);
			read_while_running(g);
			return 1; /* stopped on time */
		}
		if (!g->poll_ms)
			continue;
		/* a read of the results while it runs: stop, read, go on */
		if (halt(g, &st, err) < 0)
			return lost(g, err);
		if (st.kind == 'W' || st.kind == 'X')
			break;
		int end = g->end_set ? at_end(g, err) : 0;
		if (end < 0)
			return lost(g, err);
		if (end) /* it reached _exit just before the interrupt */
			break;
		if (sync_shares(g, 0, err) < 0)
			return lost(g, err);
		read_while_running(g);
		if (redirect(g, err) < 0 || rsp_continue(g->r, err) < 0)
			return lost(g, err);
		g->running = 1;
	}
	g->running = 0;
	if ((st.kind == 'T' || st.kind == 'S') && g->end_set && at_end(g, err) == 1) {
		/* the program's end: the last read while its memory is there */
		if (read_counter(g, err) < 0 || sync_shares(g, 0, err) < 0 ||
		    rsp_break(g->r, g->end_at, 2, 0, err) < 0 || rsp_continue(g->r, err) < 0)
			return lost(g, err);
		g->end_set = 0;
		return g_wait(t, status, err);
	}
	if (st.kind == 'T' || st.kind == 'S') {
		struct zerr ignored;
		sync_shares(g, 0, &ignored);
		return unexpected(g, &st, err);
	}
	/* the target is gone with its memory: the results are the last read */
	exit_status(g, &st, status);
	return 0;
}

static int g_run_to(struct inject_transport *t, uint64_t addr, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	uint64_t pc;
	if (rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0)
		return -1;
	if (pc == addr)
		return 0;
	if (rsp_break(g->r, addr, 2, 1, err) < 0 || rsp_continue(g->r, err) < 0)
		return -1;
	struct rsp_stop st;
	int rc = rsp_wait_stop(g->r, -1, &st, err);
	if (rc <= 0)
		return rc < 0 ? -1 : zerr_set(err, "%s: 0x%llx not reached", rsp_name(g->r),
					      (unsigned long long)addr);
	if (rsp_break(g->r, addr, 2, 0, err) < 0 || rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0)
		return -1;
	if (st.kind == 'W' || st.kind == 'X' || pc != addr)
		return unexpected(g, &st, err);
	return 0;
}

static void g_close(struct inject_transport *t)
{
	struct gdbt *g = (struct gdbt *)t;
	rsp_close(g->r);
	if (g->qemu > 0) { /* never waited for: it goes with zond */
		kill(g->qemu, SIGKILL);
		waitpid(g->qemu, NULL, 0);
	}
	if (g->sockdir[0]) {
		char path[96];
		snprintf(path, sizeof path, "%s/gdb", g->sockdir);
		unlink(path);
		rmdir(g->sockdir);
	}
	for (size_t i = 0; i < g->nshares; i++)
		free(g->shares[i].local);
	free(g->watch.at);
	free(g->watch.kind);
	free(g->redirects);
	rsp_regs_free(&g->regs);
	symbols_free(g->sym);
	free(g->elf);
	free(g);
}

static const struct inject_transport_ops gdb_ops = {
	.read = g_read,
	.write = g_write,
	.alloc = g_alloc,
	.alloc_near = g_alloc_near,
	.share = g_share,
	.module_start = g_module_start,
	.run_to = g_run_to,
	.modules = g_modules,
	.threads = g_threads,
	.pc = g_pc,
	.set_pc = g_set_pc,
	.release = g_release,
	.stop = g_stop,
	.wait = g_wait,
	.close = g_close,
};

/* The scratch RAM: the user's, else the widest gap between the ELF's segments. */
static int find_scratch(struct gdbt *g, const struct inject_rsp_options *o, struct zerr *err)
{
	if (o->scratch_len) {
		g->scratch = o->scratch;
		g->scratch_len = o->scratch_len;
		return 0;
	}
	if (symbols_segment_gap(g->sym, g->elf, &g->scratch, &g->scratch_len, err) < 0)
		return -1;
	if (g->scratch_len < SCRATCH_MIN)
		return zerr_set(err,
				"%s: no gap of %d KiB between its segments for zond's code and "
				"results: give RAM no part of the program uses with --scratch ADDR,LEN",
				g->elf, SCRATCH_MIN / 1024);
	return 0;
}

/* The stub's register description: pc and the width of the registers. */
static int describe(struct gdbt *g, struct zerr *err)
{
	if (rsp_target_regs(g->r, &g->regs, err) < 0)
		return -1;
	const struct rsp_reg *pc = rsp_reg_find(&g->regs, "pc");
	if (!pc || (pc->bitsize != 32 && pc->bitsize != 64))
		return zerr_set(err, "%s: the target's description has no 32- or 64-bit pc (%s)",
				rsp_name(g->r), g->regs.arch);
	if (strncmp(g->regs.arch, "riscv", 5) != 0)
		return zerr_set(err, "%s: a %s target; zond inject over GDB knows RISC-V",
				rsp_name(g->r), g->regs.arch[0] ? g->regs.arch : "unknown");
	g->pc_reg = pc->regnum;
	g->xlen = pc->bitsize / 8;
	return 0;
}

static struct gdbt *attach(struct rsp *r, const struct inject_rsp_options *o, pid_t qemu,
			   struct zerr *err)
{
	struct gdbt *g = zp_xcalloc(1, sizeof *g);
	g->base.ops = &gdb_ops;
	g->r = r;
	g->qemu = qemu;
	g->sym = symbols_new();
	g->elf = zp_xstrdup(o->elf);
	g->poll_ms = o->poll_ms;
	g->end_at = o->end_at;
	g->counter = o->counter;
	g->stop_asked = o->stop_asked;
	g->on_read = o->on_read;
	g->read_arg = o->read_arg;
	g->exact_clock = o->exact_clock;
	struct rsp_stop st;
	if (describe(g, err) < 0 || find_scratch(g, o, err) < 0 || rsp_halt_reason(r, &st, err) < 0) {
		g_close(&g->base);
		return NULL;
	}
	return g;
}

struct inject_transport *inject_rsp_connect(const char *hostport,
					    const struct inject_rsp_options *o, struct zerr *err)
{
	struct zerr e;
	if (!symbols_is_elf(o->elf, &e)) {
		zerr_set(err, "%s", e.msg);
		return NULL;
	}
	struct rsp *r = rsp_connect(hostport, NULL, o->timeout_ms, err);
	struct gdbt *g = r ? attach(r, o, 0, err) : NULL;
	return g ? &g->base : NULL;
}

static int has_gdb_option(char *const argv[])
{
	for (size_t i = 1; argv[i]; i++)
		if (strcmp(argv[i], "-s") == 0 || strcmp(argv[i], "-gdb") == 0 ||
		    strcmp(argv[i], "-S") == 0)
			return 1;
	return 0;
}

struct inject_transport *inject_rsp_start(char *const argv[], const struct inject_rsp_options *o,
					  struct zerr *err)
{
	struct zerr e;
	if (!symbols_is_elf(o->elf, &e)) {
		zerr_set(err, "%s", e.msg);
		return NULL;
	}
	if (has_gdb_option(argv)) {
		zerr_set(err, "%s: -s, -S and -gdb are zond's to add (or use --gdb HOST:PORT)",
			 argv[0]);
		return NULL;
	}
	char dir[64] = "/tmp/zond-gdb-XXXXXX", sock[96], gdbarg[128];
	if (!mkdtemp(dir)) {
		zerr_set(err, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	snprintf(sock, sizeof sock, "%s/gdb", dir);
	snprintf(gdbarg, sizeof gdbarg, "unix:%s,server=on,wait=off", sock);
	size_t n = 0;
	while (argv[n])
		n++;
	char **av = zp_xcalloc(n + 4, sizeof *av);
	memcpy(av, argv, n * sizeof *av);
	av[n] = "-gdb";
	av[n + 1] = gdbarg;
	av[n + 2] = "-S";
	int pipefd[2]; /* exec's failure comes back through it */
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		zerr_set(err, "pipe: %s", strerror(errno));
		free(av);
		rmdir(dir);
		return NULL;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		/* QEMU goes with zond, whatever ends zond (SIGKILL too): never left running */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);
		execvp(av[0], av);
		int e2 = errno;
		if (write(pipefd[1], &e2, sizeof e2) < 0)
			_exit(127);
		_exit(127);
	}
	free(av);
	close(pipefd[1]);
	int child_errno = 0;
	ssize_t got = pid > 0 ? read(pipefd[0], &child_errno, sizeof child_errno) : -1;
	close(pipefd[0]);
	if (pid < 0 || got > 0) {
		zerr_set(err, "%s: cannot run: %s", argv[0],
			 strerror(pid < 0 ? errno : child_errno));
		if (pid > 0)
			waitpid(pid, NULL, 0);
		rmdir(dir);
		return NULL;
	}
	/* QEMU listens once it has parsed its options: wait for it, or for its end */
	struct rsp *r = NULL;
	int64_t until = clock_now_ns(CLOCK_MONOTONIC) / 1000000 + o->timeout_ms;
	while (!r) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			zerr_set(err, "%s ended before zond could connect (%s %d)", argv[0],
				 WIFEXITED(status) ? "status" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			rmdir(dir);
			unlink(sock);
			return NULL;
		}
		struct stat sb;
		if (stat(sock, &sb) == 0) {
			char name[96];
			snprintf(name, sizeof name, "%s (pid %d)", path_base(argv[0]), (int)pid);
			r = rsp_connect(sock, name, o->timeout_ms, err);
			if (!r)
				break;
		} else if (clock_now_ns(CLOCK_MONOTONIC) / 1000000 > until) {
			zerr_set(err, "%s: no gdb socket after %d ms", argv[0], o->timeout_ms);
			break;
		} else {
			nanosleep(&(struct timespec){0, 10 * 1000000}, NULL);
		}
	}
	if (!r) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		unlink(sock);
		rmdir(dir);
		return NULL;
	}
	struct gdbt *g = attach(r, o, pid, err);
	if (!g) {
		unlink(sock);
		rmdir(dir);
		return NULL;
	}
	snprintf(g->sockdir, sizeof g->sockdir, "%s", dir);
	g->base.pid = pid;
	return &g->base;
}

static const struct rsp_reg *reg_named(struct gdbt *g, const char *name, struct zerr *err)
{
	const struct rsp_reg *reg = rsp_reg_find(&g->regs, name);
	if (!reg)
		zerr_set(err, "%s: the target has no register %s", rsp_name(g->r), name);
	return reg;
}

int inject_rsp_get_reg(struct inject_transport *t, const char *name, uint64_t *value,
		       struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	const struct rsp_reg *reg = reg_named(g, name, err);
	return reg ? rsp_read_reg(g->r, reg->regnum, reg->bitsize / 8, value, err) : -1;
}

int inject_rsp_set_reg(struct inject_transport *t, const char *name, uint64_t value,
		       struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	const struct rsp_reg *reg = reg_named(g, name, err);
	return reg ? rsp_write_reg(g->r, reg->regnum, reg->bitsize / 8, value, err) : -1;
}

/* The stepped store of inject_rsp_cpu_stores: 1 when the word landed, 0 not, -1 error. */
static int step_store(struct gdbt *g, uint64_t addr, const struct rsp_reg *t0,
		      const struct rsp_reg *t1, struct zerr *err)
{
	const uint32_t mark = 0x5a0d1e57;
	/* sw t1, 0(t0); then the word it overwrites, cleared */
	uint8_t code[8] = {0x23, 0xa0, 0x62, 0x00, 0, 0, 0, 0};
	struct rsp_stop st;
	uint64_t pc = 0;
	uint8_t got[4];
	if (rsp_write_mem(g->r, addr, code, sizeof code, err) < 0 ||
	    rsp_write_reg(g->r, t0->regnum, t0->bitsize / 8, addr + 4, err) < 0 ||
	    rsp_write_reg(g->r, t1->regnum, t1->bitsize / 8, mark, err) < 0 ||
	    rsp_write_reg(g->r, g->pc_reg, g->xlen, addr, err) < 0 ||
	    rsp_step(g->r, &st, err) < 0 ||
	    rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0 ||
	    rsp_read_mem(g->r, addr + 4, got, sizeof got, err) < 0)
		return -1;
	/* a trap (PMP, a bus error) leaves the pc at the handler */
	return pc == addr + 4 && got[0] == (uint8_t)mark && got[1] == (uint8_t)(mark >> 8) &&
	       got[2] == (uint8_t)(mark >> 16) && got[3] == (uint8_t)(mark >> 24);
}

int inject_rsp_cpu_stores(struct inject_transport *t, uint64_t addr, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	const struct rsp_reg *t0 = reg_named(g, "t0", err), *t1 = reg_named(g, "t1", err);
	uint64_t pc, v0, v1;
	uint8_t keep[8];
	if (!t0 || !t1 || rsp_read_reg(g->r, g->pc_reg, g->xlen, &pc, err) < 0 ||
	    rsp_read_reg(g->r, t0->regnum, t0->bitsize / 8, &v0, err) < 0 ||
	    rsp_read_reg(g->r, t1->regnum, t1->bitsize / 8, &v1, err) < 0 ||
	    rsp_read_mem(g->r, addr, keep, sizeof keep, err) < 0)
		return -1;
	int landed = step_store(g, addr, t0, t1, err);
	if (landed < 0 || rsp_write_reg(g->r, g->pc_reg, g->xlen, pc, err) < 0 ||
	    rsp_write_reg(g->r, t0->regnum, t0->bitsize / 8, v0, err) < 0 ||
	    rsp_write_reg(g->r, t1->regnum, t1->bitsize / 8, v1, err) < 0 ||
	    rsp_write_mem(g->r, addr, keep, sizeof keep, err) < 0)
		return -1;
	if (!landed)
		return zerr_set(err,
				"scratch RAM at 0x%llx: the debugger's writes read back but the "
				"program's own stores there do not land (flash or ROM?): give RAM "
				"the program does not use with --scratch ADDR,LEN",
				(unsigned long long)addr);
	return 0;
}

int inject_rsp_clock_moved(struct inject_transport *t)
{
	return ((struct gdbt *)t)->clock_moved;
}

int inject_rsp_counter_end(struct inject_transport *t, uint64_t *value)
{
	struct gdbt *g = (struct gdbt *)t;
	*value = g->counter_end;
	return g->counter_read;
}

int inject_rsp_wait_for(struct inject_transport *t, double seconds, int *status, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	g->until_ms = now_ms() + (int64_t)(seconds * 1000);
	int rc = g_wait(t, status, err);
	g->until_ms = 0;
	return rc;
}

int inject_rsp_watch(struct inject_transport *t, const uint64_t *at, size_t n,
		     int (*fn)(void *arg, size_t i, struct zerr *err), void *arg, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	struct watch *w = &g->watch;
	if (watch_set(g, 0, err) < 0)
		return -1;
	free(w->at);
	free(w->kind);
	*w = (struct watch){zp_xcalloc(n + 1, sizeof *w->at),
			    zp_xcalloc(n + 1, sizeof *w->kind),
			    n,
			    0,
			    fn,
			    arg};
	for (size_t i = 0; i < n; i++) {
		uint8_t b;
		if (rsp_read_mem(g->r, at[i], &b, 1, err) < 0)
			return -1;
		w->at[i] = at[i];
		w->kind[i] = (b & 3) == 3 ? 4 : 2; /* the instruction's length */
	}
	return 0;
}

int inject_rsp_redirect(struct inject_transport *t, uint64_t from, uint64_t to, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	if (rsp_break(g->r, from, 2, 1, err) < 0)
		return -1;
	g->redirects = zp_xrealloc(g->redirects, (g->nredirects + 1) * sizeof *g->redirects);
	g->redirects[g->nredirects][0] = from;
	g->redirects[g->nredirects++][1] = to;
	return 0;
}

int inject_rsp_redirect_off(struct inject_transport *t, uint64_t from, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	for (size_t i = 0; i < g->nredirects; i++)
		if (g->redirects[i][0] == from) {
			g->redirects[i][0] = g->redirects[--g->nredirects][0];
			g->redirects[i][1] = g->redirects[g->nredirects][1];
			return rsp_break(g->r, from, 2, 0, err);
		}
	return 0;
}

int inject_rsp_leave(struct inject_transport *t, struct zerr *err)
{
	struct gdbt *g = (struct gdbt *)t;
	while (g->nredirects)
		if (inject_rsp_redirect_off(t, g->redirects[0][0], err) < 0)
			return -1;
	if (watch_end(g, err) < 0 || (g->end_set && rsp_break(g->r, g->end_at, 2, 0, err) < 0))
		return -1;
	g->end_set = 0;
	g->end_at = 0; /* release() puts it in no more */
	return g_release(t, err);
}

unsigned inject_rsp_xlen(struct inject_transport *t)
{
	return ((struct gdbt *)t)->xlen;
}
