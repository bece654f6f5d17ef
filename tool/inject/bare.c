/* bare.c - one run of zond inject on a bare-metal target over GDB (bare.h). */
#include "bare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/riscv/payload.h"
#include "model/profile.h"
#include "results.h"
#include "util/clock.h"

#define BARE_TID   1   /* the one hart's thread id, as the bare runtime names it */
#define EDGES_MAX  128 /* more functions: no call edges (their table is n^2) */
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
};

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
	args.exit = b->a->exit_addr(b->area);
	args.edges = b->edges;
	args.nfuncs = b->n;
	return args;
}

/* Scratch RAM for the results, the shadow stack and the trampolines. */
static int place(struct bare *b, struct inject_result *out, struct zerr *err)
{
	struct inject_transport *t = b->t;
	b->edges = b->n <= EDGES_MAX ? INJ_SB_EDGES(b->n) : 0;
	b->results_len = INJ_HDR + INJ_SB_EDGES(b->n) +
			 (b->edges ? (b->n + 1) * b->n * INJ_EDGE : 0);
	void *local;
	if (t->ops->share(t, b->results_len, &local, &b->results_at, err) < 0 ||
	    t->ops->alloc(t, inject_riscv_private_size(b->xlen, b->n), &b->priv, err) < 0)
		return -1;
	b->results = local;
	struct inject_header *h = local;
	h->magic = INJ_MAGIC;
	h->nfuncs = b->n;
	uint64_t tid = BARE_TID;
	memcpy(b->results + INJ_HDR + INJ_SB_TID, &tid, 8);
	uint8_t probe[4096];
	struct inject_payload_args args = payload_args(b);
	b->payload_len = (b->a->payload(probe, sizeof probe, &args) + 15) & ~(uint64_t)15;
	b->area_len = b->payload_len + b->job->npatches * slot_len(b->a);
	uint64_t near = b->job->npatches ? b->job->patches[0].site.addr : 0;
	if (t->ops->alloc_near(t, near, b->area_len, &b->area, err) < 0)
		return -1;
	args = payload_args(b);
	inject_riscv_costs(b->xlen, &args, &out->c0, &out->cpair);
	return 0;
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
	if (d >= -(1 << 20) && d < (1 << 20))
		return 0;
	for (size_t i = 0; i < plan->nfuncs; i++) {
		const struct inject_func *f = &plan->funcs[i];
		if (f->addr != p->site.addr)
			continue;
		if (!f->far_ok)
			return zerr_set(err,
					"%s: the trampoline at 0x%llx is out of a jal's "
					"reach (1 MiB), and %s: give scratch RAM near the code "
					"with --scratch",
					p->name, (unsigned long long)stub, f->far_why);
		*site = f->far;
		return 0;
	}
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
	int32_t *extra = zp_xcalloc(2 * (b->n + 1), sizeof *extra), *caller = extra + b->n + 1;
	int rc = a->payload(buf, b->payload_len, &args) ? 0 : zerr_set(err, "payload too long");
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
	uint8_t *priv = zp_xmalloc(inject_riscv_private_size(b->xlen, b->n));
	inject_riscv_private_init(priv, b->xlen, b->n, extra, caller);
	if (rc == 0 && (b->t->ops->write(b->t, b->area, buf, b->area_len, err) < 0 ||
			b->t->ops->write(b->t, b->priv, priv,
					 inject_riscv_private_size(b->xlen, b->n), err) < 0))
		rc = -1;
	free(priv);
	free(extra);
	free(buf);
	return rc;
}

/*
 * The jumps at the entries, after checking the target holds the ELF's
 * bytes there; a pc stopped inside the overwritten bytes moves to the copy.
 * An entry too short for the jump gets a breakpoint the transport answers
 * by moving the pc to the stub.
 */
static int patch_entries(struct bare *b, struct symbols *s, struct zerr *err)
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
		uint32_t jump_len = site->far ? a->far_len : a->jump_len;
		uint8_t file[16], jump[16];
		if (site->by_break) { /* stopped on it: the breakpoint would not stop it */
			if (inject_rsp_redirect(b->t, at, b->stubs[k], err) < 0 ||
			    (pc == at && b->t->ops->set_pc(b->t, 0, b->stubs[k], err) < 0))
				return -1;
			continue;
		}
		if (symbols_read(s, b->job->plan->path, at, file, jump_len, err) < 0 ||
		    b->t->ops->read(b->t, at, b->orig[k], jump_len, err) < 0)
			return -1;
		if (memcmp(file, b->orig[k], jump_len) != 0)
			return zerr_set(err, "%s at 0x%llx: the target's code is not %s's "
					     "(another program, or patched already)",
					p->name, (unsigned long long)at, b->job->plan->path);
		if (site->far)
			a->jump_far(at, b->stubs[k], jump);
		else
			a->jump(at, b->stubs[k], jump);
		if (b->t->ops->write(b->t, at, jump, jump_len, err) < 0)
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
	if (inject_rsp_redirects_off(b->t, err) < 0)
		return -1;
	for (size_t k = 0; k < b->job->npatches; k++) {
		const struct inject_site *site = &b->sites[k];
		if (!site->by_break &&
		    b->t->ops->write(b->t, site->addr + site->keep, b->orig[k],
				     site->far ? b->a->far_len : b->a->jump_len, err) < 0)
			return -1;
	}
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
	for (size_t caller = 0; b->edges && caller <= b->n; caller++)
		for (size_t callee = 0; callee < b->n; callee++) {
			const uint8_t *e = blk + b->edges + (caller * b->n + callee) * INJ_EDGE;
			uint64_t calls, incl;
			memcpy(&calls, e + INJ_E_CALLS, 8);
			memcpy(&incl, e + INJ_E_INCL, 8);
			if (!calls)
				continue;
			out->edges = zp_xrealloc(out->edges, (out->nedges + 1) * sizeof *out->edges);
			out->edges[out->nedges++] = (struct inject_edge){
				0, caller == b->n ? INJECT_NO_CALLER : caller, callee, calls, incl};
		}
}

/* Stops a target zond connected to after seconds, puts its entries back, lets it go. */
static int detach_after(struct bare *b, double seconds, int *status, struct zerr *err)
{
	struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
	nanosleep(&ts, NULL);
	if (b->t->ops->stop(b->t, err) < 0 || unpatch(b, err) < 0 ||
	    b->t->ops->release(b->t, err) < 0)
		return -1;
	*status = -1;
	return 0;
}

static int prepare(struct bare *b, struct inject_result *out, struct symbols *s, struct zerr *err)
{
	struct inject_transport *t = b->t;
	if ((int)inject_rsp_xlen(t) * 8 != b->xlen)
		return zerr_set(err, "%s is %d-bit code, the target a %u-bit hart",
				b->job->plan->path, b->xlen, inject_rsp_xlen(t) * 8);
	uint64_t entry = 0;
	if (t->pid && (symbols_entry(b->job->plan->path, &entry, err) < 0 ||
		       t->ops->run_to(t, entry, err) < 0))
		return -1;
	return place(b, out, err) == 0 && write_trampolines(b, out, err) == 0 &&
			       patch_entries(b, s, err) == 0
		       ? 0
		       : -1;
}

int inject_bare_run(const struct inject_job *job, const struct inject_bare_target *bt,
		    struct inject_result *out, struct zerr *err)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	out->hz = 1000000000; /* nominal: one cycle a ns, as the bare runtime stores it */
	struct bare b = {.job = job, .a = job->plan->arch, .n = job->nstats};
	b.xlen = strcmp(b.a->name, "riscv64") == 0 ? 64 : 32;
	if (strncmp(b.a->name, "riscv", 5) != 0)
		return zerr_set(err, "%s: %s code; zond inject over GDB knows RISC-V",
				job->plan->path, b.a->name);
	struct inject_rsp_options o = bt->rsp;
	for (size_t i = 0; i < job->plan->nfuncs && !o.end_at; i++)
		if (job->plan->funcs[i].name && strcmp(job->plan->funcs[i].name, "_exit") == 0)
			o.end_at = job->plan->funcs[i].addr;
	b.t = bt->argv ? inject_rsp_start(bt->argv, &o, err) : inject_rsp_connect(bt->gdb, &o, err);
	if (!b.t)
		return -1;
	out->pid = b.t->pid;
	struct symbols *s = symbols_new();
	int rc = prepare(&b, out, s, err);
	int status = -1;
	if (rc == 0) {
		out->start_ns = clock_now_ns(CLOCK_REALTIME);
		rc = b.t->ops->release(b.t, err);
		if (rc == 0)
			rc = !bt->argv && bt->seconds > 0 ? detach_after(&b, bt->seconds, &status, err)
							  : b.t->ops->wait(b.t, &status, err);
		out->duration_ns = clock_now_ns(CLOCK_REALTIME) - out->start_ns;
		if (rc < 0 && out->start_ns)
			rc = 1; /* it ran: what was read is kept */
		read_results(&b, out);
	}
	out->status = status;
	b.t->ops->close(b.t);
	symbols_free(s);
	free(b.stubs);
	free(b.sites);
	free(b.orig);
	return rc;
}
