/* bare.c - one run of zond inject on a bare-metal target over GDB (bare.h). */
#include "bare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/riscv/payload.h"
#include "arch/riscv/riscv.h"
#include "model/profile.h"
#include "results.h"
#include "util/clock.h"
#include "util/forward.h"

#define BARE_TID   1 /* the one hart's thread id, as the bare runtime names it */
#define STUB_ALIGN 16

struct bare {
	struct inject_transport *t;
	const struct inject_job *job;
	const struct inject_arch *a;
	int xlen;
	size_t n;
	uint8_t *results; /* zond's copy of the target's results */
	uint64_t results_at, results_len, edges;
	uint64_t area, area_len, payload_len, priv;
	uint64_t *stubs;           /* per patch: where its entry jumps to (the stub after the id) */
	struct inject_site *sites; /* per patch: the plan's site, or its far one */
	uint8_t (*orig)[16];       /* per patch: the bytes the jump overwrote */
	struct inject_bare_counter counter, counter2; /* counter2.csr 0: one counter */
	struct inject_riscv_second two;               /* counter2's place in the results */
	int32_t *extra;  /* per record: its copy's instructions beyond the originals */
	int32_t *caller; /* per record: those its callers see beyond cpair (extra, a far entry's) */
	uint64_t start;  /* the counter when the program was let go */
	struct symbols *sym;
	int stoppable; /* a function or region run on a QEMU zond started: ^C stops wait() */
	int say, said; /* the measuring line wanted (bt->say_measuring), and written */
	int64_t start_ns; /* when the target was let go */
	uint32_t depth; /* the shadow stack's: measured calls nested at once (0: INJ_DEPTH) */
};

/* ms since the target was let go, for the measuring line */
static long long since_start_ms(const struct bare *b)
{
	return (long long)((clock_now_ns(CLOCK_REALTIME) - b->start_ns) / 1000000);
}

/*
 * The results were read while the target runs (transport.h's on_read): the
 * first time they hold calls, one line says that the measuring goes on, so
 * that whoever waits for it (a user, a script) knows that stopping zond
 * now, or losing the target, keeps calls.
 */
static void first_calls(void *arg)
{
	struct bare *b = arg;
	uint64_t calls = 0;
	if (b->said || !b->results)
		return;
	const uint8_t *blk = b->results + INJ_HDR;
	for (size_t k = 0; k < b->n; k++) {
		uint64_t c;
		int32_t open;
		memcpy(&c, blk + INJ_SB_STATS(b->n) + k * INJ_STAT, sizeof c);
		memcpy(&open, blk + INJ_SB_OPEN + k * 4, 4);
		calls += c + (uint64_t)(open > 0 ? open : 0);
	}
	if (!calls)
		return;
	b->said = 1;
	fprintf(stderr, "zond inject: measuring: %llu calls read %lld ms after the start\n",
		(unsigned long long)calls, since_start_ms(b));
}

int inject_bare_counter(const char *spec, struct inject_bare_counter *c, struct zerr *err)
{
	memset(c, 0, sizeof *c);
	const char *name = spec ? spec : "mcycle", *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	char *end;
	unsigned long n = 0;
	if (len < sizeof c->reg)
		snprintf(c->reg, sizeof c->reg, "%.*s", (int)len, name);
	if (strcmp(c->reg, "mcycle") == 0 || strcmp(c->reg, "minstret") == 0) {
		c->csr = c->reg[1] == 'c' ? 0xb00 : 0xb02;
		if (!eq)
			return 0;
		return zerr_set(err,
				"--event %s: %s counts what it counts (=EVENT is for "
				"mhpmcounterN)",
				spec, c->reg);
	}
	if (strncmp(c->reg, "mhpmcounter", 11) == 0)
		n = strtoul(c->reg + 11, &end, 10);
	if (n < 3 || n > 31 || *end)
		return zerr_set(err,
				"--event %s: over GDB the counter is mcycle, minstret or "
				"mhpmcounterN (3..31)[=EVENT]",
				spec);
	c->csr = 0xb00 + (uint32_t)n;
	if (!eq)
		return 0;
	c->event = strtoull(eq + 1, &end, 0);
	if (*end || end == eq + 1)
		return zerr_set(err, "--event %s: EVENT is not a number", spec);
	snprintf(c->event_reg, sizeof c->event_reg, "mhpmevent%lu", n);
	return 0;
}

int inject_bare_counters(const char *spec, struct inject_bare_counter c[2], struct zerr *err)
{
	const char *comma = spec ? strchr(spec, ',') : NULL;
	memset(&c[1], 0, sizeof c[1]);
	if (!comma)
		return inject_bare_counter(spec, &c[0], err) < 0 ? -1 : 1;
	if (strchr(comma + 1, ','))
		return zerr_set(err,
				"--event %s: over GDB at most two counters in one run "
				"(e.g. mcycle,minstret)",
				spec);
	char first[64];
	snprintf(first, sizeof first, "%.*s", (int)(comma - spec), spec);
	if (inject_bare_counter(first, &c[0], err) < 0 ||
	    inject_bare_counter(comma + 1, &c[1], err) < 0)
		return -1;
	if (c[0].csr == c[1].csr)
		return zerr_set(err, "--event %s: the same counter twice", spec);
	return 2;
}

/* The second counter, for the payload: NULL when the run reads one. */
static const struct inject_riscv_second *second(const struct bare *b)
{
	return b->counter2.csr ? &b->two : NULL;
}

static size_t slot_len(const struct inject_arch *a)
{
	return ((size_t)a->stub_len + a->reloc_max + STUB_ALIGN - 1) & ~(size_t)(STUB_ALIGN - 1);
}

static struct inject_payload_args payload_args(const struct bare *b)
{
	struct inject_payload_args args = {0};
	args.shm = b->results_at;
	args.threads = b->priv;
	args.stats = INJ_SB_STATS(b->n);
	args.exit = inject_riscv_exit_at(b->xlen, b->area, second(b));
	args.edges = b->edges;
	args.nfuncs = b->n;
	args.depth = b->depth;
	return args;
}

uint64_t inject_bare_scratch_span(const struct inject_arch *a, int xlen, size_t n, int two,
				  uint32_t depth)
{
	uint64_t results = INJ_HDR + INJ_SB_EDGES(n);
	uint64_t edges = n <= INJECT_BARE_EDGES_MAX ? (n + 1) * n * INJ_EDGE : 0;
	results += edges + (two ? n * INJ_STAT + edges : 0);
	/* each area 16-aligned; the payload under its probe buffer's 4096 bytes */
	return results + 16 + inject_riscv_private_size(xlen, n, depth) + 16 + 4096 +
	       n * slot_len(a);
}

/* Scratch RAM for the results, the shadow stack and the trampolines. */
static int place(struct bare *b, struct inject_result *out, struct zerr *err)
{
	struct inject_transport *t = b->t;
	b->edges = b->n <= INJECT_BARE_EDGES_MAX ? INJ_SB_EDGES(b->n) : 0;
	b->results_len = INJ_HDR + INJ_SB_EDGES(b->n) +
			 (b->edges ? (b->n + 1) * b->n * INJ_EDGE : 0);
	if (b->counter2.csr) { /* its stats and edges after the first's */
		b->two.csr = b->counter2.csr;
		b->two.stats = b->results_len - INJ_HDR;
		b->two.edges = b->edges ? b->two.stats + b->n * INJ_STAT : 0;
		b->results_len += b->n * INJ_STAT + (b->edges ? (b->n + 1) * b->n * INJ_EDGE : 0);
	}
	void *local;
	if (t->ops->share(t, b->results_len, &local, &b->results_at, err) < 0 ||
	    t->ops->alloc(t, inject_riscv_private_size(b->xlen, b->n, b->depth), &b->priv, err) < 0)
		return -1;
	b->results = local;
	struct inject_header *h = local;
	h->magic = INJ_MAGIC;
	h->nfuncs = b->n;
	uint64_t tid = BARE_TID;
	memcpy(b->results + INJ_HDR + INJ_SB_TID, &tid, 8);
	uint8_t probe[4096];
	struct inject_payload_args args = payload_args(b);
	b->payload_len = (inject_riscv_payload_reading(probe, sizeof probe, &args, b->xlen,
						       b->counter.csr, second(b)) +
			  15) &
			 ~(uint64_t)15;
	b->area_len = b->payload_len + b->job->npatches * slot_len(b->a);
	uint64_t near = b->job->npatches ? b->job->patches[0].site.addr : 0;
	if (t->ops->alloc_near(t, near, b->area_len, &b->area, err) < 0)
		return -1;
	args = payload_args(b);
	inject_riscv_costs(b->xlen, &args, second(b), &out->c0, &out->cpair);
	return 0;
}

/*
 * Whether the n bytes written at addr read back: a stub may take writes to
 * memory that is not there (QEMU's to an unmapped address), and code that
 * is not there would crash the program at its first measured call.
 */
static int written(struct bare *b, uint64_t addr, const uint8_t *want, size_t n, struct zerr *err)
{
	uint8_t *got = zp_xmalloc(n + 1);
	int rc = b->t->ops->read(b->t, addr, got, n, err);
	if (rc == 0 && memcmp(got, want, n) != 0)
		rc = zerr_set(err,
			      "scratch RAM at 0x%llx: what zond wrote there does not read back "
			      "(no RAM there?): give RAM the program does not use with --scratch",
			      (unsigned long long)addr);
	free(got);
	return rc;
}

/*
 * The site of patch k for a stub at stub: the plan's, or the far one when
 * the stub is out of the jump's reach; -1 with err when neither can.
 */
static int choose_site(struct bare *b, size_t k, uint64_t stub, struct inject_site *site,
		       struct zerr *err)
{
	const struct inject_patch *p = &b->job->patches[k];
	const struct inject_plan *plan = b->job->plan;
	int64_t d = (int64_t)(stub - p->site.addr - p->site.keep);
	*site = p->site;
	for (size_t i = 0; i < plan->nfuncs; i++) {
		const struct inject_func *f = &plan->funcs[i];
		if (f->addr != p->site.addr)
			continue;
		/* the plan checked the scratch RAM's window (inject_plan_scratch) */
		if (!f->far_needed && d >= -(1 << 20) && d < (1 << 20))
			return 0;
		if (!f->far_ok)
			return zerr_set(err,
					"%s: the trampoline at 0x%llx is out of a jal's "
					"reach (1 MiB), and %s: give scratch RAM near the code "
					"with --scratch",
					p->name, (unsigned long long)stub, f->far_why);
		*site = f->far;
		return 0;
	}
	if (d >= -(1 << 20) && d < (1 << 20))
		return 0;
	return zerr_set(err,
			"%s: the trampoline at 0x%llx is out of a jal's reach (1 MiB): "
			"give scratch RAM near the code with --scratch",
			p->name, (unsigned long long)stub);
}

/* The payload, one stub and relocated copy per patch, and the private area, written. */
static int write_trampolines(struct bare *b, const struct inject_result *out, struct zerr *err)
{
	const struct inject_arch *a = b->a;
	struct inject_payload_args args = payload_args(b);
	args.c0 = out->c0;
	args.cpair = out->cpair;
	uint8_t *buf = zp_xcalloc(1, b->area_len);
	int32_t *extra = b->extra = zp_xcalloc(2 * (b->n + 1), sizeof *extra);
	int32_t *caller = b->caller = extra + b->n + 1;
	int rc = inject_riscv_payload_reading(buf, b->payload_len, &args, b->xlen, b->counter.csr,
					      second(b))
			 ? 0
			 : zerr_set(err, "payload too long");
	b->stubs = zp_xcalloc(b->job->npatches + 1, sizeof *b->stubs);
	b->sites = zp_xcalloc(b->job->npatches + 1, sizeof *b->sites);
	for (size_t k = 0; k < b->job->npatches && rc == 0; k++) {
		const struct inject_patch *p = &b->job->patches[k];
		struct inject_site site;
		uint64_t at = b->area + b->payload_len + k * slot_len(a);
		uint8_t *s = buf + (at - b->area);
		uint8_t code[64];
		char why[INJECT_WHY];
		size_t len = a->stub(s, at, b->area, p->id, p->kind);
		if (choose_site(b, k, at + 4, &site, err) < 0 ||
		    b->t->ops->read(b->t, site.addr, code, sizeof code, err) < 0)
			rc = -1;
		int n = rc ? -1 : a->relocate(&site, code, at + len, s + len, a->reloc_max, why);
		if (rc == 0 && n < 0)
			rc = zerr_set(err, "%s: %s", p->name, why);
		if (rc == 0) {
			int32_t e = inject_riscv_copy_extra(s + len, (size_t)n, site.ninsn);
			extra[p->id] += e;
			caller[p->id] +=
				e +
				(site.far && !site.by_break ? (int32_t)(a->far_len / 4) - 1 : 0);
		}
		b->sites[k] = site;
		b->stubs[k] = at + 4; /* the code after the id */
		if (rc == 0 && site.by_break) {
			/* the breakpoint's pc goes to a jump to the stub: the one instruction
			 * an entry's jump is, so the payload's cost is the same */
			b->stubs[k] = at + len + (size_t)n;
			a->jump(b->stubs[k], at + 4, s + len + n);
		}
	}
	uint8_t *priv = zp_xmalloc(inject_riscv_private_size(b->xlen, b->n, b->depth));
	inject_riscv_private_init(priv, b->xlen, b->n, b->depth, extra, caller);
	if (rc == 0 &&
	    (b->t->ops->write(b->t, b->area, buf, b->area_len, err) < 0 ||
	     b->t->ops->write(b->t, b->priv, priv,
			      inject_riscv_private_size(b->xlen, b->n, b->depth), err) < 0 ||
	     written(b, b->area, buf, b->area_len, err) < 0 ||
	     /* the payload's stores: the debugger's writes may land where they do not */
	     inject_rsp_cpu_stores(b->t, b->priv, err) < 0))
		rc = -1;
	free(priv);
	free(buf);
	return rc;
}

/* The bytes an entry's jump takes at site: a jal's, or the far jump's. */
static uint32_t entry_len(const struct bare *b, const struct inject_site *site)
{
	return site->far ? b->a->far_len : b->a->jump_len;
}

/*
 * Patch k's entry on (its jump written, or the transport's breakpoint in
 * for an entry too short for one), or its own bytes back.
 */
static int patch_one(struct bare *b, size_t k, int on, struct zerr *err)
{
	const struct inject_site *site = &b->sites[k];
	uint64_t at = site->addr + site->keep;
	uint8_t jump[16];
	if (site->by_break)
		return on ? inject_rsp_redirect(b->t, at, b->stubs[k], err)
			  : inject_rsp_redirect_off(b->t, at, err);
	if (on && site->far)
		b->a->jump_far(at, b->stubs[k], jump);
	else if (on)
		b->a->jump(at, b->stubs[k], jump);
	return b->t->ops->write(b->t, at, on ? jump : b->orig[k], entry_len(b, site), err);
}

/*
 * The entries of patches [from, to) on (the others' entries are checked
 * only: the cyclic scenario's other sets), after checking the target holds
 * the ELF's bytes there; a pc stopped inside the overwritten bytes moves to
 * the copy.  An entry too short for the jump gets a breakpoint the
 * transport answers by moving the pc to the stub.
 */
static int patch_entries(struct bare *b, struct symbols *s, size_t from, size_t to,
			 struct zerr *err)
{
	const struct inject_arch *a = b->a;
	b->orig = zp_xcalloc(b->job->npatches + 1, sizeof *b->orig);
	uint64_t pc = 0;
	if (b->t->ops->pc(b->t, 0, &pc, err) < 0)
		return -1;
	for (size_t k = 0; k < b->job->npatches; k++) {
		const struct inject_patch *p = &b->job->patches[k];
		const struct inject_site *site = &b->sites[k];
		uint64_t at = site->addr + site->keep;
		uint32_t jump_len = entry_len(b, site);
		if (site->by_break) { /* its bytes stay */
			if (k >= from && k < to &&
			    (patch_one(b, k, 1, err) < 0 ||
			     /* stopped on it: the breakpoint would not stop it */
			     (pc == at && b->t->ops->set_pc(b->t, 0, b->stubs[k], err) < 0)))
				return -1;
			continue;
		}
		int same = b->t->ops->read(b->t, at, b->orig[k], jump_len, err) < 0
				   ? -1
				   : symbols_same_bytes(s, b->job->plan->path, at, b->orig[k],
							jump_len, err);
		if (same < 0)
			return -1;
		if (!same)
			return zerr_set(err, "%s at 0x%llx: the target's code is not %s's "
					     "(another program, or patched already)",
					p->name, (unsigned long long)at, b->job->plan->path);
		if (k < from || k >= to)
			continue;
		if (patch_one(b, k, 1, err) < 0)
			return -1;
		if (pc > at && pc < at + site->len) {
			for (uint32_t i = 0; i < site->ninsn; i++)
				if (at + site->map_from[i] == pc &&
				    b->t->ops->set_pc(b->t, 0,
						      b->stubs[k] + a->stub_len - 4 +
							      site->map_to[i],
						      err) < 0)
					return -1;
		}
	}
	return 0;
}

/* Puts the entries' bytes back (the payload stays: returns still pending go through it). */
static int unpatch(struct bare *b, struct zerr *err)
{
	if (!b->orig)
		return 0; /* nothing patched (the region's breakpoints) */
	for (size_t k = 0; k < b->job->npatches; k++)
		if (patch_one(b, k, 0, err) < 0)
			return -1;
	return 0;
}

/* The results as the last read left them, into out (one thread: the hart). */
static void read_results(const struct bare *b, struct inject_result *out)
{
	const struct inject_header *h = (const void *)b->results;
	const uint8_t *blk = b->results + INJ_HDR;
	out->deep = h->deep;
	out->n = b->n;
	out->nthreads = 1;
	out->tids = zp_xcalloc(1, sizeof *out->tids);
	out->tids[0] = BARE_TID;
	out->stats = zp_xcalloc(b->n ? b->n : 1, sizeof *out->stats);
	for (size_t k = 0; k < b->n; k++) {
		struct inject_stat st;
		int32_t open;
		memcpy(&open, blk + INJ_SB_OPEN + k * 4, 4);
		memcpy(&st, blk + INJ_SB_STATS(b->n) + k * INJ_STAT, sizeof st);
		st.min = st.min ? ~st.min : UINT64_MAX;
		if (open > 0) {
			st.calls += (uint64_t)open;
			out->open += (uint64_t)open;
		}
		out->stats[k] = st;
	}
	if (b->counter2.csr) {
		out->stats2 = zp_xcalloc(b->n ? b->n : 1, sizeof *out->stats2);
		for (size_t k = 0; k < b->n; k++) {
			struct inject_stat *st = &out->stats2[k];
			memcpy(st, blk + b->two.stats + k * INJ_STAT, sizeof *st);
			st->min = st->min ? ~st->min : UINT64_MAX;
			st->calls = out->stats[k].calls;
		}
	}
	for (size_t caller = 0; b->edges && caller <= b->n; caller++)
		for (size_t callee = 0; callee < b->n; callee++) {
			const uint8_t *e = blk + b->edges + (caller * b->n + callee) * INJ_EDGE;
			uint64_t calls, incl, incl2 = 0;
			memcpy(&calls, e + INJ_E_CALLS, 8);
			memcpy(&incl, e + INJ_E_INCL, 8);
			if (b->two.edges)
				memcpy(&incl2, e + (b->two.edges - b->edges) + INJ_E_INCL, 8);
			if (!calls)
				continue;
			out->edges = zp_xrealloc(out->edges, (out->nedges + 1) * sizeof *out->edges);
			out->edges[out->nedges++] = (struct inject_edge){
				.caller = caller == b->n ? INJECT_NO_CALLER : caller,
				.callee = callee,
				.calls = calls,
				.incl = incl,
				.incl2 = incl2};
		}
}

/*
 * The region scenario over GDB: breakpoints at FROM and TO (patches 0 and
 * 1), the counter read at each while the hart is stopped, so nothing of
 * zond's runs inside a pass: no cost to subtract.  A pass starts at FROM
 * (a FROM within a pass is part of it) and ends at TO (a TO with no pass
 * open is ignored), as on Linux.
 */
struct region {
	struct bare *b; /* for the measuring line */
	struct inject_transport *t;
	const char *counter;
	uint64_t mask; /* the counter register's width */
	int open;
	uint64_t start;
	struct inject_stat st;
};

static int region_hit(void *arg, size_t i, struct zerr *err)
{
	struct region *r = arg;
	uint64_t now;
	if (inject_rsp_get_reg(r->t, r->counter, &now, err) < 0)
		return -1;
	if (i == 0 && !r->open) {
		r->open = 1;
		r->start = now;
	} else if (i == 1 && r->open) {
		uint64_t d = (now - r->start) & r->mask;
		r->open = 0;
		r->st.calls++;
		r->st.incl += d;
		r->st.self += d;
		r->st.max = d > r->st.max ? d : r->st.max;
		r->st.min = d < r->st.min ? d : r->st.min;
		if (r->b->say && !r->b->said++)
			fprintf(stderr,
				"zond inject: measuring: the first pass ended %lld ms after the "
				"start\n",
				since_start_ms(r->b));
	}
	return 0;
}

static int region_prepare(struct bare *b, struct region *r, struct zerr *err)
{
	uint64_t at[2];
	for (int i = 0; i < 2; i++)
		at[i] = b->job->patches[i].site.addr + b->job->patches[i].site.keep;
	r->b = b;
	r->t = b->t;
	r->mask = b->xlen == 64 ? UINT64_MAX : UINT32_MAX;
	r->st.min = UINT64_MAX;
	return inject_rsp_watch(b->t, at, 2, region_hit, r, err);
}

/* The passes as the one record of a one-thread result. */
static void region_results(const struct region *r, struct inject_result *out)
{
	out->n = 1;
	out->nthreads = 1;
	out->tids = zp_xcalloc(1, sizeof *out->tids);
	out->tids[0] = BARE_TID;
	out->stats = zp_xcalloc(1, sizeof *out->stats);
	out->stats[0] = r->st;
}

int inject_bare_point(struct symbols *s, const struct inject_plan *plan, const char *spec,
		      struct inject_site *site, struct zerr *err)
{
	size_t i;
	uint64_t off;
	if (inject_plan_locate(s, plan, spec, &i, &off, err) < 0)
		return -1;
	const struct inject_func *f = &plan->funcs[i];
	uint8_t *code = zp_xmalloc((size_t)f->size + 1);
	long got = symbols_read(s, plan->path, f->addr, code, (size_t)f->size, err);
	struct rv_insn in = {0};
	uint64_t at = 0;
	int xlen = strcmp(plan->arch->name, "riscv64") == 0 ? 64 : 32;
	while (got >= 0 && at < off) { /* a breakpoint stands on an instruction's first byte */
		rv_decode(code + at, (size_t)got - at, xlen, &in);
		if (!in.len)
			break;
		at += in.len;
	}
	free(code);
	if (got < 0)
		return -1;
	if (at != off || (uint64_t)got <= off)
		return zerr_set(err, "%s: +%llu is not the start of an instruction", spec,
				(unsigned long long)off);
	memset(site, 0, sizeof *site);
	site->addr = f->addr + off;
	return 0;
}

/*
 * The program's own count from its start to its end (or to where zond
 * stopped it): the counter's difference less the payload's instructions,
 * counted exactly (every call that returned ran cpair, one that never
 * returned the entry's part, each its copy's extra ones and a far entry's
 * second instruction: b->caller).  -1 when not
 * known: no end read, or calls the payload did not measure (a full shadow
 * stack runs another path).
 */
static int64_t program_count(const struct bare *b, const struct inject_result *out, uint64_t start)
{
	uint64_t end;
	if (!inject_rsp_counter_end(b->t, &end) || out->deep)
		return -1;
	uint64_t n = (end - start) & (b->xlen == 64 ? UINT64_MAX : UINT32_MAX);
	const uint8_t *blk = b->results ? b->results + INJ_HDR : NULL;
	for (size_t k = 0; blk && k < b->n; k++) {
		int32_t open;
		memcpy(&open, blk + INJ_SB_OPEN + k * 4, 4);
		uint64_t done = out->stats[k].calls - (uint64_t)(open > 0 ? open : 0);
		n -= done * (out->cpair + (uint64_t)(int64_t)b->caller[k]);
		if (open > 0)
			n -= (uint64_t)open * (inject_riscv_open_cost(b->xlen, second(b)) +
					       (uint64_t)(int64_t)b->caller[k]);
	}
	return (int64_t)n;
}

/* Stops a target zond connected to after seconds, puts its entries back, lets it go. */
static int detach_after(struct bare *b, double seconds, int *status, struct zerr *err)
{
	int rc = inject_rsp_wait_for(b->t, seconds, status, err);
	if (rc <= 0)
		return rc; /* ended by itself, or lost */
	if (unpatch(b, err) < 0 || inject_rsp_leave(b->t, err) < 0)
		return -1;
	*status = -1;
	return 0;
}

static int is_region(const struct inject_job *job)
{
	return job->npatches == 2 && job->patches[0].kind == INJECT_REGION_FROM;
}

static int prepare(struct bare *b, struct inject_result *out, struct symbols *s, struct region *r,
		   size_t active, struct zerr *err)
{
	struct inject_transport *t = b->t;
	if ((int)inject_rsp_xlen(t) * 8 != b->xlen)
		return zerr_set(err, "%s is %d-bit code, the target a %u-bit hart",
				b->job->plan->path, b->xlen, inject_rsp_xlen(t) * 8);
	uint64_t entry = 0;
	if (t->pid && (symbols_entry(b->job->plan->path, &entry, err) < 0 ||
		       t->ops->run_to(t, entry, err) < 0))
		return -1;
	uint64_t v; /* the counter is there (the target's description names it) */
	if ((b->counter.event_reg[0] &&
	     inject_rsp_set_reg(t, b->counter.event_reg, b->counter.event, err) < 0) ||
	    inject_rsp_get_reg(t, b->counter.reg, &v, err) < 0)
		return -1;
	if (b->counter2.csr &&
	    ((b->counter2.event_reg[0] &&
	      inject_rsp_set_reg(t, b->counter2.event_reg, b->counter2.event, err) < 0) ||
	     inject_rsp_get_reg(t, b->counter2.reg, &v, err) < 0))
		return -1;
	if (is_region(b->job))
		return region_prepare(b, r, err);
	return place(b, out, err) == 0 && write_trampolines(b, out, err) == 0 &&
			       patch_entries(b, s, 0, active, err) == 0
		       ? 0
		       : -1;
}

/*
 * Starts QEMU (or connects), runs it to the entry point, writes the
 * trampolines and the jumps of patches [0, active), and reads the
 * counter's start (b->start).  -1 with err; b->t is then set when
 * there is a target to close.
 */
static int bare_open(struct bare *b, const struct inject_bare_target *bt, struct inject_result *out,
		     struct region *r, size_t active, struct zerr *err)
{
	const struct inject_job *job = b->job;
	memset(out, 0, sizeof *out);
	out->status = -1;
	out->hz = 1000000000; /* nominal: one cycle a ns, as the bare runtime stores it */
	b->a = job->plan->arch;
	b->n = job->nstats;
	b->xlen = strcmp(b->a->name, "riscv64") == 0 ? 64 : 32;
	b->depth = bt->depth;
	if (strncmp(b->a->name, "riscv", 5) != 0)
		return zerr_set(err, "%s: %s code; zond inject over GDB knows RISC-V",
				job->plan->path, b->a->name);
	struct inject_bare_counter c[2];
	int nc = inject_bare_counters(bt->event, c, err);
	if (nc < 0)
		return -1;
	b->counter = c[0];
	b->counter2 = c[1];
	if (nc == 2 && is_region(job))
		return zerr_set(err,
				"--event %s: two counters in one run measure functions, "
				"not a region",
				bt->event);
	struct inject_rsp_options o = bt->rsp;
	o.counter = b->counter.reg;
	if (is_region(job))
		o.poll_ms = 0; /* every pass is read at its breakpoints */
	if (b->stoppable)
		o.stop_asked = inject_interrupted; /* QEMU zond started: ^C stops it */
	b->say = bt->say_measuring;
	if (b->say && !is_region(job)) {
		o.on_read = first_calls;
		o.read_arg = b;
	}
	for (size_t i = 0; i < job->plan->nfuncs && !o.end_at; i++)
		if (job->plan->funcs[i].name && strcmp(job->plan->funcs[i].name, "_exit") == 0)
			o.end_at = job->plan->funcs[i].addr;
	b->t = bt->argv ? inject_rsp_start(bt->argv, &o, err)
			: inject_rsp_connect(bt->gdb, &o, err);
	if (!b->t)
		return -1;
	out->pid = b->t->pid;
	r->counter = b->counter.reg;
	b->sym = symbols_new();
	if (prepare(b, out, b->sym, r, active, err) < 0 ||
	    inject_rsp_get_reg(b->t, b->counter.reg, &b->start, err) < 0)
		return -1;
	out->start_ns = b->start_ns = clock_now_ns(CLOCK_REALTIME);
	return 0;
}

static void bare_close(struct bare *b)
{
	if (b->t)
		b->t->ops->close(b->t);
	symbols_free(b->sym);
	free(b->stubs);
	free(b->sites);
	free(b->orig);
	free(b->extra); /* and caller, its second half */
}

/* The results, and the run's whole where it is known (program_count). */
static void bare_results(struct bare *b, const struct region *r, struct inject_result *out)
{
	out->duration_ns = clock_now_ns(CLOCK_REALTIME) - out->start_ns;
	out->clock_moved = inject_rsp_clock_moved(b->t);
	if (is_region(b->job))
		region_results(r, out);
	else
		read_results(b, out);
	int64_t count = program_count(b, out, b->start);
	if (count >= 0)
		out->duration_ns = count; /* the nominal clock's: one tick a ns */
}

/*
 * Preparing failed (zond's trouble): the program runs as it would without
 * zond (a jump written already leads to a complete trampoline), and a
 * target zond started is waited for (*status); one it connected to is
 * left with none of zond's breakpoints (inject_rsp_leave).
 */
static void run_unmeasured(struct bare *b, const struct inject_bare_target *bt, int *status)
{
	struct zerr ignored;
	if (b->t && !bt->argv)
		inject_rsp_leave(b->t, &ignored);
	else if (b->t && inject_rsp_watch(b->t, NULL, 0, NULL, NULL, &ignored) == 0 &&
		 b->t->ops->release(b->t, &ignored) == 0)
		b->t->ops->wait(b->t, status, &ignored);
}

/*
 * A QEMU zond started runs until the program ends, bt->seconds pass or a
 * signal zond forwards (^C, SIGTERM, ...) comes: then zond stops it, reads
 * the results and ends it (bare_close): out->stopped, and *status as if
 * QEMU died of that signal (-1 after --duration).  1 when it was stopped.
 */
static int run_started(struct bare *b, const struct inject_bare_target *bt, int *status,
		       struct inject_result *out, struct zerr *err)
{
	int rc = bt->seconds > 0 ? inject_rsp_wait_for(b->t, bt->seconds, status, err)
				 : b->t->ops->wait(b->t, status, err);
	if (rc != 1)
		return rc;
	int sig = inject_interrupt_signal();
	out->stopped = inject_interrupted() && sig > 0 ? sig : -1;
	*status = sig > 0 ? sig : -1; /* a wait status: killed by sig */
	return 0;
}

int inject_bare_run(const struct inject_job *job, const struct inject_bare_target *bt,
		    struct inject_result *out, struct zerr *err)
{
	struct bare b = {.job = job};
	struct region r = {0};
	struct sigaction old[FORWARD_N];
	b.stoppable = bt->argv != NULL;
	if (bt->argv) /* from QEMU's start: what ends zond ends the measuring first */
		inject_catch_forwarded(old);
	int rc = bare_open(&b, bt, out, &r, job->npatches, err);
	int status = -1;
	if (rc < 0)
		run_unmeasured(&b, bt, &status);
	if (rc == 0) {
		rc = b.t->ops->release(b.t, err);
		if (rc == 0)
			rc = bt->argv ? run_started(&b, bt, &status, out, err)
			     : bt->seconds > 0 ? detach_after(&b, bt->seconds, &status, err)
					       : b.t->ops->wait(b.t, &status, err);
		if (rc < 0)
			rc = 1; /* it ran: what was read is kept */
		bare_results(&b, &r, out);
	}
	out->status = status;
	bare_close(&b); /* a QEMU still running goes with it */
	if (bt->argv)
		inject_release_forwarded(old);
	return rc;
}

/* ---- the cyclic scenario ------------------------------------------------- */

struct cycle {
	struct bare *b;
	const struct inject_cyclic *c;
	size_t nsets, cur;
	int armed;    /* the safe point's breakpoint is in */
	int last;     /* its next arrival ends the measurement */
	int finished; /* it did: no set is patched */
	uint64_t *periods;
	int64_t *active_ns, set_start;
};

/* The jumps of set `set` written (on) or its entries' bytes back. */
static int set_patched(struct cycle *y, size_t set, int on, struct zerr *err)
{
	size_t from = set * y->c->per_set, n = y->b->job->npatches;
	for (size_t k = from; k < n && k < from + y->c->per_set; k++)
		if (patch_one(y->b, k, on, err) < 0)
			return -1;
	return 0;
}

/* The hart stopped at the safe point: the current set out, the next one in (or none: the end). */
static int at_safe_point(void *arg, size_t i, struct zerr *err)
{
	struct cycle *y = arg;
	int64_t now = clock_now_ns(CLOCK_REALTIME);
	(void)i;
	if (set_patched(y, y->cur, 0, err) < 0)
		return -1;
	y->active_ns[y->cur] += now - y->set_start;
	y->set_start = now;
	y->armed = 0;
	if (y->last) {
		y->finished = 1;
		return 1;
	}
	y->cur = (y->cur + 1) % y->nsets;
	y->periods[y->cur]++;
	return set_patched(y, y->cur, 1, err) < 0 ? -1 : 1;
}

/* The safe point's breakpoint in (the target stopped). */
static int arm(struct cycle *y, struct zerr *err)
{
	uint64_t at = y->c->safe.site.addr + y->c->safe.site.keep;
	if (y->armed)
		return 0;
	y->armed = 1;
	return inject_rsp_watch(y->b->t, &at, 1, at_safe_point, y, err);
}

/*
 * Set after set until the program ends, the duration passes or zond is
 * interrupted: 0 with the target stopped by zond, 1 when it ended
 * (*status), -1 with err (the connection lost).
 */
static int cycle(struct cycle *y, int *status, struct zerr *err)
{
	struct inject_transport *t = y->b->t;
	const struct inject_cyclic *c = y->c;
	int64_t end = c->duration > 0 ? y->set_start + (int64_t)(c->duration * 1e9) : 0;
	int said = 0;
	for (;;) {
		if (t->ops->release(t, err) < 0)
			return -1;
		int rc = inject_rsp_wait_for(t, c->period, status, err);
		if (rc <= 0)
			return rc < 0 ? -1 : 1;
		if (inject_interrupted() || (end && clock_now_ns(CLOCK_REALTIME) >= end))
			return 0;
		if (y->nsets == 1)
			continue;
		if (y->armed && !said) {
			said = 1;
			fprintf(stderr,
				"zond inject: the target has not reached the safe point %s in %g "
				"s: "
				"set %zu of %zu stays measured\n",
				c->safe.name, c->period, y->cur + 1, y->nsets);
		}
		if (arm(y, err) < 0)
			return -1;
	}
}

/*
 * The end, the target stopped by zond: let it run to the safe point once
 * more (at most a period, so the last pass is whole too), then the code
 * back; a target zond connected to runs on.  1 when it ended meanwhile.
 */
static int cycle_end(struct cycle *y, const struct inject_bare_target *bt, int *status,
		     struct zerr *err)
{
	struct inject_transport *t = y->b->t;
	y->last = 1;
	if (y->nsets > 0 && (arm(y, err) < 0 || t->ops->release(t, err) < 0))
		return -1;
	int rc = inject_rsp_wait_for(t, y->c->period, status, err);
	if (rc <= 0)
		return rc < 0 ? -1 : 1;
	if (unpatch(y->b, err) < 0 || (bt->argv ? inject_rsp_watch(t, NULL, 0, NULL, NULL, err)
						: inject_rsp_leave(t, err)) < 0)
		return -1;
	return 0;
}

int inject_bare_cyclic(const struct inject_cyclic *c, const struct inject_bare_target *bt,
		       struct inject_result **sets, size_t *nsets, int *status, struct zerr *err)
{
	const struct inject_job *job = c->job;
	struct bare b = {.job = job};
	struct region r = {0};
	struct inject_result all;
	struct cycle y = {&b,   c, (job->npatches + c->per_set - 1) / c->per_set, 0, 0, 0, 0, NULL,
			  NULL, 0};
	*sets = NULL;
	*nsets = 0;
	*status = -1;
	size_t first = c->per_set < job->npatches ? c->per_set : job->npatches;
	if (bare_open(&b, bt, &all, &r, first, err) < 0) {
		run_unmeasured(&b, bt, status);
		bare_close(&b);
		inject_result_free(&all);
		return -1;
	}
	y.periods = zp_xcalloc(y.nsets + 1, sizeof *y.periods);
	y.active_ns = zp_xcalloc(y.nsets + 1, sizeof *y.active_ns);
	y.periods[0] = 1;
	y.set_start = clock_now_ns(CLOCK_REALTIME);
	struct sigaction old[FORWARD_N];
	inject_catch_forwarded(old);
	int rc = cycle(&y, status, err);
	if (rc == 0)
		rc = cycle_end(&y, bt, status, err);
	inject_release_forwarded(old);
	if (!y.finished)
		y.active_ns[y.cur] += clock_now_ns(CLOCK_REALTIME) - y.set_start;
	bare_results(&b, &r, &all);
	inject_result_sets(&all, c->per_set, y.nsets, y.active_ns, y.periods, sets);
	*nsets = y.nsets;
	inject_result_free(&all);
	free(y.periods);
	free(y.active_ns);
	bare_close(&b);
	return rc < 0 ? -1 : 0;
}
