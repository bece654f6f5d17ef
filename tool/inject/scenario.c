/* scenario.c - runs of a program with functions measured (scenario.h). */
#define _GNU_SOURCE /* prlimit */
#include "scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/profile.h"
#include "transport.h"
#include "util/clock.h"
#include "util/forward.h"

#define MAX_AREAS 8

/* Trampolines near one ELF file of the target. */
struct area {
	const char *path;
	uint64_t bias, addr, image_end;
	size_t len;
	int pending; /* a library not mapped yet: placed when the loader has mapped it */
	int late;    /* not mapped at the start (dlopen): watched for unloads and loads */
	int loaded;  /* placed at least once */
};


/* One target being measured: where everything went. */
struct session {
	struct inject_transport *t;
	const struct inject_plan *plan;
	const struct inject_event *event; /* the job's */
	int fast_clock;                   /* the job's */
	struct inject_patch *patches;     /* the job's, then the unwinders' */
	size_t npatches, n;           /* n: statistics records */
	struct symbols *s;
	struct area areas[MAX_AREAS]; /* areas[0]: the plan's file */
	size_t nareas;
	size_t *in_area; /* per patch */
	void *shared;    /* zond's view of the results */
	size_t shared_len;
	uint64_t proc, slots;      /* the target's process page and private thread slots */
	uint64_t remote;           /* the target's view of the results */
	struct inject_site *sites; /* run-time sites, map_to filled */
	uint64_t *copies;          /* where each relocated copy starts */
	uint64_t *entries;         /* where each jump goes (the stub's call) */
	char **owned;              /* module paths of the unwinders' patches */
	size_t nowned;
	const char *unwinder_later; /* libgcc_s, owned, when the target has not mapped it */
	unsigned char *off; /* noff flags: patch k's jump is not written (cyclic) */
	/*
	 * Per patch: its entry holds what this session wrote (checked the file's
	 * bytes first).  Only those are put back: a second zond refused at a
	 * patched entry wrote the file's bytes over the first zond's jumps on
	 * its way out (QA s16 X2 F1).
	 */
	unsigned char *mine;
	size_t noff;
	int later;          /* libraries may be loaded later (dlopen): areas may be pending */
	int started;        /* zond started the target: its parent (results.h INJ_H_ZOND) */
	size_t npending;    /* areas still pending */
	size_t nlate;       /* areas of libraries loaded after the start, or to be */
	struct inject_payload_args args; /* every area's blob is built with these */
};

/* Bytes of one function's stub and relocated copy, 16-aligned. */
static size_t stub_room(const struct inject_arch *a)
{
	return (a->stub_len + a->reloc_max + 15) & ~(size_t)15;
}

/*
 * The trampoline area, built here and written once: the payload, then per
 * function its stub and relocated copy.
 */
static uint8_t *build_area(struct session *x, size_t ai, const struct inject_payload_args *args,
			   struct zerr *err)
{
	const struct inject_arch *a = x->plan->arch;
	const struct area *ar = &x->areas[ai];
	uint8_t *buf = zp_xcalloc(1, ar->len);
	size_t off = a->payload(buf, ar->len, args);
	if (!off) {
		free(buf);
		return zerr_set(err, "the payload does not fit its area"), NULL;
	}
	off = (off + 63) & ~(size_t)63;
	for (size_t k = 0; k < x->npatches; k++) {
		if (x->in_area[k] != ai)
			continue;
		const struct inject_patch *pt = &x->patches[k];
		struct inject_site *site = &x->sites[k];
		*site = pt->site;
		site->addr += ar->bias;
		if (site->hop)
			site->slot += ar->bias;
		uint8_t code[512];
		long got = symbols_read(x->s, ar->path, pt->site.addr, code, sizeof code, err);
		char why[INJECT_WHY];
		if (got < (long)(pt->site.keep + pt->site.len)) {
			free(buf);
			if (got >= 0)
				zerr_set(err, "%s: no code for %s", ar->path, pt->name);
			return NULL;
		}
		uint64_t at = ar->addr + off;
		off += stub_room(a);
		size_t len = a->stub(buf + off - stub_room(a), at, ar->addr, pt->id, pt->kind);
		x->copies[k] = at + len;
		x->entries[k] = at + 4; /* after the stub's id */
		if (a->relocate(site, code, x->copies[k], buf + off - stub_room(a) + len,
				a->reloc_max, why) < 0) {
			free(buf);
			return zerr_set(err, "%s: %s: %s", ar->path, pt->name, why), NULL;
		}
	}
	return buf;
}

/*
 * The file's n bytes at run-time address at of patch k's file, and
 * whether the target holds them there (have: 1 when it does).
 */
static int file_bytes(struct session *x, size_t k, uint64_t at, uint8_t *out, size_t n, int *have,
		      struct zerr *err)
{
	const struct area *ar = &x->areas[x->in_area[k]];
	uint8_t now[16];
	if (symbols_read(x->s, ar->path, at - ar->bias, out, n, err) < 0)
		return -1;
	if (!have)
		return 0;
	if (x->t->ops->read(x->t, at, now, n, err) < 0)
		return -1;
	*have = memcmp(now, out, n) == 0;
	return 0;
}

/*
 * Writes the jump at patch k's entry, checking first that the bytes are
 * the file's.  A hop's slot is written first: the hop at the entry leads
 * to a complete jump as soon as it is there.
 */
static int patch_one(struct session *x, size_t k, struct zerr *err)
{
	const struct inject_arch *a = x->plan->arch;
	const struct inject_site *site = &x->sites[k];
	uint8_t file[16], jump[16];
	uint64_t at = site->addr + site->keep;
	uint32_t len = inject_entry_len(a, site);
	int same = 1, slot_same = 1;
	if (file_bytes(x, k, at, file, len, &same, err) < 0 ||
	    (site->hop && file_bytes(x, k, site->slot, file, a->jump_len, &slot_same, err) < 0))
		return -1;
	if (!same || !slot_same)
		return zerr_set(err, "%s: %s in memory is not as in the file%s",
				x->areas[x->in_area[k]].path, x->patches[k].name,
				same ? " (the fill of its hop)" : "");
	x->mine[k] = 1; /* the file's bytes: whatever of the jump lands, they go back */
	if (site->hop) {
		a->jump(site->slot, x->entries[k], jump);
		if (x->t->ops->write(x->t, site->slot, jump, a->jump_len, err) < 0)
			return -1;
		a->hop(at, site->slot, jump);
	} else {
		a->jump(at, x->entries[k], jump);
	}
	return x->t->ops->write(x->t, at, jump, len, err);
}

/*
 * Writes the file's bytes back at patch k's entry, then at its hop's slot
 * (a thread stopped there leaves it: leave_slots).
 */
static int unpatch_one(struct session *x, size_t k, struct zerr *err)
{
	const struct inject_arch *a = x->plan->arch;
	const struct inject_site *site = &x->sites[k];
	uint8_t orig[16];
	uint64_t at = site->addr + site->keep;
	uint32_t len = inject_entry_len(a, site);
	if (!x->mine[k])
		return 0; /* not ours: someone else's code is there, or the file's */
	x->mine[k] = 0;
	if (file_bytes(x, k, at, orig, len, NULL, err) < 0 ||
	    x->t->ops->write(x->t, at, orig, len, err) < 0)
		return -1;
	if (!site->hop)
		return 0;
	if (file_bytes(x, k, site->slot, orig, a->jump_len, NULL, err) < 0)
		return -1;
	return x->t->ops->write(x->t, site->slot, orig, a->jump_len, err);
}

/*
 * A thread stopped in a hop's slot (past the hop, before the jump: the
 * slot may hold fill again) goes back to the function's entry: the hop
 * did nothing else, the entry runs as it now is.
 */
static int leave_slots(struct session *x, struct zerr *err)
{
	struct inject_transport *t = x->t;
	for (size_t i = 0; i < t->ops->threads(t); i++) {
		uint64_t pc;
		if (t->ops->pc(t, i, &pc, err) < 0)
			return -1;
		for (size_t k = 0; k < x->npatches; k++) {
			const struct inject_site *site = &x->sites[k];
			if (site->hop && pc >= site->slot &&
			    pc < site->slot + x->plan->arch->jump_len &&
			    t->ops->set_pc(t, i, site->addr + site->keep, err) < 0)
				return -1;
		}
	}
	return 0;
}

/* Whether patch k's jump is (to be) written: the cyclic scenario holds back the other sets'. */
static int patch_on(const struct session *x, size_t k)
{
	return (k >= x->noff || !x->off[k]) && !x->areas[x->in_area[k]].pending;
}

/* Writes the jumps at the entries of the patches that are on, in the areas placed. */
static int patch_entries(struct session *x, struct zerr *err)
{
	for (size_t k = 0; k < x->npatches; k++)
		if (patch_on(x, k) && patch_one(x, k, err) < 0)
			return -1;
	return 0;
}

/*
 * A thread of an attached process stopped inside the bytes a jump now
 * covers (past the jump's first byte) continues at the same instruction in
 * the relocated copy.
 */
static int move_threads(struct session *x, struct zerr *err)
{
	struct inject_transport *t = x->t;
	for (size_t i = 0; i < t->ops->threads(t); i++) {
		uint64_t pc;
		if (t->ops->pc(t, i, &pc, err) < 0)
			return -1;
		for (size_t k = 0; k < x->npatches; k++) {
			const struct inject_site *site = &x->sites[k];
			uint64_t lo = site->addr + site->keep;
			if (!patch_on(x, k) || pc <= lo ||
			    pc >= lo + inject_entry_len(x->plan->arch, site))
				continue;
			for (uint32_t j = 0; j < site->ninsn; j++)
				if (lo + site->map_from[j] == pc &&
				    t->ops->set_pc(t, i, x->copies[k] + site->map_to[j], err) < 0)
					return -1;
		}
	}
	return 0;
}

/* The area for the file at path (added if new), or -1 when there are too many. */
static ptrdiff_t area_of(struct session *x, const char *path)
{
	for (size_t i = 0; i < x->nareas; i++)
		if (strcmp(x->areas[i].path, path) == 0)
			return (ptrdiff_t)i;
	if (x->nareas == MAX_AREAS)
		return -1;
	x->areas[x->nareas].path = path;
	return (ptrdiff_t)x->nareas++;
}

struct unwinder_search {
	struct session *x;
	const char *exe;
};

/* Whether name is one of names, "@VERSION" or not. */
static int named(const char *name, const char *const *names)
{
	for (; name && *names; names++) {
		size_t n = strlen(*names);
		if (strncmp(name, *names, n) == 0 && (name[n] == 0 || name[n] == '@'))
			return 1;
	}
	return 0;
}

int inject_own_probe(const char *name, int event)
{
	static const char *const closes[] = {"close", "__close", NULL};
	static const char *const ranges[] = {"close_range", "__close_range", NULL};
	static const char *const switches[] = {"swapcontext", "__swapcontext", "setcontext",
					       "__setcontext", NULL};
	static const char *const catches[] = {"__cxa_begin_catch", NULL};
	static const char *const clones[] = {"clone", "__clone", NULL};
	static const char *const prctls[] = {"prctl", "__prctl", NULL};
	static const char *const syscalls[] = {"syscall", NULL};
	if (inject_is_unwinder(name))
		return INJECT_UNWIND;
	if (named(name, catches))
		return INJECT_CATCH;
	if (named(name, clones))
		return INJECT_CLONE;
	if (named(name, prctls))
		return INJECT_PRCTL;
	if (named(name, syscalls))
		return INJECT_SYSCALL;
	if (event && named(name, closes)) /* the counters' fds (payload.S za_close) */
		return INJECT_CLOSE;
	if (event && named(name, ranges))
		return INJECT_CLOSE_RANGE;
	return named(name, switches) ? INJECT_SWITCH : -1;
}

struct own_search {
	int found;
	int event; /* the session's --event */
};

static void has_unwinder(void *arg, const struct symbol *sym)
{
	struct own_search *o = arg;
	o->found |= inject_own_probe(sym->name, o->event) >= 0;
}

/*
 * Adds zond's own probes (inject_own_probe: the unwinders', catch's and
 * the context switches' entries) to the file at path, if it has them.
 */
static void add_unwinders(void *arg, const char *path, uint64_t start)
{
	(void)start;
	struct session *x = arg;
	struct zerr err;
	struct own_search o = {0, x->event != NULL};
	for (size_t i = 0; i < x->nowned; i++)
		if (strcmp(x->owned[i], path) == 0)
			return; /* mapped twice */
	if (symbols_each_function(x->s, path, has_unwinder, &o, &err) < 0 || !o.found)
		return;
	struct inject_plan p;
	if (inject_plan_file(x->s, path, x->plan->arch, &p, &err) < 0)
		return;
	x->owned = zp_xrealloc(x->owned, (x->nowned + 1) * sizeof *x->owned);
	char *kept = x->owned[x->nowned++] = zp_xstrdup(path);
	for (size_t i = 0; i < p.nfuncs; i++) {
		/* an unwinder reads its own return address: its probe leaves that */
		int kind = p.funcs[i].ok || p.funcs[i].reads_ret
				   ? inject_own_probe(p.funcs[i].name, x->event != NULL)
				   : -1;
		if (kind < 0)
			continue;
		x->patches = zp_xrealloc(x->patches, (x->npatches + 1) * sizeof *x->patches);
		x->patches[x->npatches++] = (struct inject_patch){
			p.funcs[i].name, kept, p.funcs[i].site, (enum inject_probe)kind, 0};
	}
	inject_plan_free(&p);
}

struct libc_search {
	char dir[PATH_MAX]; /* the directory of the target's libc.so.6, when mapped */
	int gcc_s;          /* libgcc_s.so.1 mapped */
};

static void libc_seen(void *arg, const char *path, uint64_t start)
{
	(void)start;
	struct libc_search *ls = arg;
	const char *base = strrchr(path, '/');
	if (!base)
		return;
	if (strcmp(base + 1, "libc.so.6") == 0)
		snprintf(ls->dir, sizeof ls->dir, "%.*s", (int)(base - path), path);
	ls->gcc_s |= strcmp(base + 1, "libgcc_s.so.1") == 0;
}

/*
 * glibc loads libgcc_s.so.1 by dlopen the first time it unwinds
 * (backtrace(), pthread_cancel, pthread_exit): when the stopped target has
 * not mapped it, the unwinders of the one beside its libc.so.6 (where the
 * loader finds it) are added as a library to come, patched when the loader
 * maps it (serve_loads), as the start's are.
 */
static void add_later_unwinder(struct session *x)
{
	struct libc_search ls = {"", 0};
	struct zerr ignored;
	char path[PATH_MAX + 32], real[PATH_MAX];
	if (x->t->ops->modules(x->t, libc_seen, &ls, &ignored) < 0 || !ls.dir[0] || ls.gcc_s)
		return;
	snprintf(path, sizeof path, "%s/libgcc_s.so.1", ls.dir);
	if (!realpath(path, real))
		return;
	size_t had = x->nowned;
	add_unwinders(x, real, 0);
	if (x->nowned > had)
		x->unwinder_later = x->owned[had];
}

/*
 * Places area i near its file: 0; 1 when the target has not mapped the
 * file and may still load it (a library of a later dlopen); -1 with err set.
 */
static int place_area(struct session *x, size_t i, struct zerr *err)
{
	struct inject_transport *t = x->t;
	struct area *ar = &x->areas[i];
	uint64_t start, load;
	if (t->ops->module_start(t, ar->path, &start, err) < 0)
		return i > 0 && x->later ? 1 : -1;
	if (symbols_load_start(x->s, ar->path, &load, err) < 0)
		return -1;
	ar->bias = start - load;
	uint64_t near = (ar->image_end ? ar->image_end : load) + ar->bias;
	return t->ops->alloc_near(t, near, ar->len, &ar->addr, err) < 0 ? -1 : 0;
}

/*
 * Patches the dynamic loader's r_brk (_dl_debug_state, the program's
 * PT_INTERP's), where a thread waits for zond while a library to patch is
 * still to be loaded.  -1 with err set when the program has no loader.
 */
static int add_loader_probe(struct session *x, struct zerr *err)
{
	char loader[PATH_MAX];
	int rc = symbols_interpreter(x->plan->path, loader, sizeof loader, err);
	if (rc != 0)
		return rc < 0 ? -1
			      : zerr_set(err, "%s is static: it loads no library later",
					 x->plan->path);
	struct inject_plan p;
	if (inject_plan_file(x->s, loader, x->plan->arch, &p, err) < 0)
		return -1;
	size_t i = 0;
	while (i < p.nfuncs && (strcmp(p.funcs[i].name, "_dl_debug_state") != 0 || !p.funcs[i].ok))
		i++;
	if (i == p.nfuncs) {
		inject_plan_free(&p);
		return zerr_set(err, "%s: no _dl_debug_state to patch: libraries loaded later "
				     "cannot be measured",
				loader);
	}
	x->owned = zp_xrealloc(x->owned, (x->nowned + 1) * sizeof *x->owned);
	char *kept = x->owned[x->nowned++] = zp_xstrdup(loader);
	x->patches = zp_xrealloc(x->patches, (x->npatches + 1) * sizeof *x->patches);
	x->patches[x->npatches++] =
		(struct inject_patch){p.funcs[i].name, kept, p.funcs[i].site, INJECT_LOADED, 0};
	inject_plan_free(&p);
	return 0;
}

/* Whether a library of the job's patches is not mapped in the stopped target yet. */
static int libraries_to_come(struct session *x)
{
	struct zerr ignored;
	uint64_t start;
	const char *seen = NULL; /* a library's patches are together (one module string) */
	for (size_t k = 0; k < x->npatches; k++) {
		const char *m = x->patches[k].module;
		if (!m || (seen && strcmp(m, seen) == 0))
			continue;
		seen = m;
		if (x->t->ops->module_start(x->t, m, &start, &ignored) < 0)
			return 1;
	}
	return 0;
}

/* Groups the patches by file and places an area near each. */
static int place_areas(struct session *x, struct zerr *err)
{
	const struct inject_arch *a = x->plan->arch;
	size_t count[MAX_AREAS] = {0};
	area_of(x, x->plan->path);
	x->areas[0].image_end = x->plan->image_end;
	x->in_area = zp_xcalloc(x->npatches + 1, sizeof *x->in_area);
	for (size_t k = 0; k < x->npatches; k++) {
		ptrdiff_t ai =
			area_of(x, x->patches[k].module ? x->patches[k].module : x->plan->path);
		if (ai < 0)
			return zerr_set(err, "more than %d files to patch", MAX_AREAS);
		x->in_area[k] = (size_t)ai;
		count[ai]++;
	}
	x->npending = x->nlate = 0;
	for (size_t i = 0; i < x->nareas; i++) {
		struct area *ar = &x->areas[i];
		ar->len = (((size_t)8192 + count[i] * stub_room(a)) + 4095) & ~(size_t)4095;
		int rc = place_area(x, i, err);
		if (rc < 0)
			return -1;
		ar->pending = ar->late = rc;
		x->npending += (size_t)rc;
		x->nlate += (size_t)rc;
	}
	return 0;
}

/*
 * The lowest fd number the payload's counters (--event) may take in the
 * target: the top INJ_THREADS + 1 numbers under its soft limit of open
 * files (at most 4096, so that its fd table grows little), so that the
 * program's own open()s get the numbers they get without zond.
 */
static uint64_t counter_fd_base(int64_t pid)
{
	struct rlimit r;
	if (prlimit((pid_t)pid, RLIMIT_NOFILE, NULL, &r) < 0 || r.rlim_cur == RLIM_INFINITY)
		r.rlim_cur = 1024;
	uint64_t top = r.rlim_cur < 4096 ? r.rlim_cur : 4096;
	return top > 2 * (INJ_THREADS + 1) ? top - INJ_THREADS - 1 : top / 2;
}

/*
 * Where the target's TCB holds a thread's id (glibc's struct pthread tid),
 * from the thread pointer: the one offset in the first 1 KiB of every
 * stopped thread's TCB that holds that thread's id; 0 when there is not
 * exactly one (another libc, a transport that cannot tell).  The payload
 * tells a thread from an ended one whose TCB it reuses by it, and takes
 * ended threads' slots and blocks over only when it is known.
 */
static uint64_t tcb_tid_offset(struct inject_transport *t)
{
	enum { SPAN = 1024 };
	uint8_t cand[SPAN / 4];
	uint32_t tcb[SPAN / 4];
	size_t n = t->ops->threads ? t->ops->threads(t) : 0;
	struct zerr ignored;
	if (!t->ops->thread_tp || !n)
		return 0;
	memset(cand, 1, sizeof cand);
	for (size_t i = 0; i < n; i++) {
		uint64_t tp;
		int64_t tid;
		if (t->ops->thread_tp(t, i, &tp, &tid, &ignored) < 0 || !tp ||
		    t->ops->read(t, tp, tcb, sizeof tcb, &ignored) < 0)
			return 0;
		for (size_t k = 0; k < SPAN / 4; k++)
			if (k < 4 || tcb[k] != (uint32_t)tid)
				cand[k] = 0;
	}
	uint64_t off = 0;
	for (size_t k = 0; k < SPAN / 4; k++)
		if (cand[k]) {
			if (off)
				return 0;
			off = k * 4;
		}
	return off;
}

/* ---- what an attachment leaves in the process ------------------------------ */

/*
 * The last page of the results' memfd (zond's alone: the payload never
 * reaches it) says whether a zond measures the process through it now and,
 * once that zond has put everything back, which mappings it left there.
 * The next zond inject -p finds it by the memfd's name: it refuses a
 * process another zond measures (QA s16 X2 F1: the second zond patched
 * over the first) and unmaps what a finished one left (F6: five mappings
 * and ~7 MB resident more at each attach, for ever).
 */
#define LEFT_MAGIC 0x7466656c646e6f7aull /* "zondleft" */
#define LEFT_MEMFD "/memfd:zond-inject (deleted)"
enum { LEFT_MEASURING = 1, LEFT_DONE = 2, LEFT_KEPT = 3, LEFT_MAX = MAX_AREAS + 2 };
struct left_record {
	uint64_t magic, state, zond, n;
	uint64_t at[LEFT_MAX][2]; /* address, length */
};

static struct left_record *left_record(struct session *x)
{
	return (struct left_record *)((uint8_t *)x->shared + x->shared_len - 4096);
}

static void left_add(struct left_record *r, uint64_t at, uint64_t len)
{
	if (at && len && r->n < LEFT_MAX) {
		r->at[r->n][0] = at;
		r->at[r->n++][1] = (len + 4095) & ~(uint64_t)4095; /* as mmap mapped it */
	}
}

/* Whether address pc is in one of the session's trampoline areas. */
static int in_areas(const struct session *x, uint64_t pc)
{
	for (size_t i = 0; i < x->nareas; i++)
		if (pc >= x->areas[i].addr && pc < x->areas[i].addr + x->areas[i].len)
			return 1;
	return 0;
}

/*
 * Every stopped thread inside an area (the payload, a stub, a relocated
 * copy) is stepped until it has left it, before the code is put back: it
 * then holds nothing of zond's but its return address (each_frame) and
 * nothing runs zond's code after the detach, so the memory can go.  1 when
 * a thread is still inside after many steps (the loader's probe waiting
 * for zond): the memory then stays.
 */
static int step_out(struct session *x)
{
	struct inject_transport *t = x->t;
	struct zerr ignored;
	if (x->started || !t->ops->step)
		return 1; /* zond's child keeps it all until it ends, as before */
	for (size_t i = 0; i < t->ops->threads(t); i++) {
		uint64_t pc;
		int steps = 0;
		while (t->ops->pc(t, i, &pc, &ignored) == 0 && in_areas(x, pc)) {
			if (++steps > 20000 || t->ops->step(t, i, &ignored) < 0)
				return 1;
		}
	}
	return 0;
}

/*
 * Everything was put back: the record lists the session's mappings for the
 * next attach to unmap (a thread may still return through a relocated copy
 * now), and the results' and the slots' pages are given back at once
 * (read already; no thread runs zond's code any more: step_out), unless
 * busy (a thread could not be stepped out: all stays as it is).
 */
static void leave(struct session *x, int busy)
{
	struct left_record *r = left_record(x);
	struct zerr ignored;
	if (busy) {
		r->state = LEFT_KEPT;
		return;
	}
	r->n = 0;
	for (size_t i = 0; i < x->nareas; i++)
		left_add(r, x->areas[i].addr, x->areas[i].len);
	left_add(r, x->proc, 4096 + inject_slots_size(x->n));
	left_add(r, x->remote, x->shared_len); /* last: the record goes with it */
	r->zond = 0;
	r->state = LEFT_DONE;
	madvise(x->shared, x->shared_len - 4096, MADV_REMOVE);
	if (x->proc && x->t->ops->advise)
		x->t->ops->advise(x->t, x->proc, 4096 + inject_slots_size(x->n), MADV_DONTNEED,
				  &ignored);
}

struct maps {
	uint64_t (*at)[2];
	char **path;
	size_t n;
};

static void map_add(void *arg, uint64_t lo, uint64_t hi, const char *path)
{
	struct maps *m = arg;
	m->at = zp_xrealloc(m->at, (m->n + 1) * sizeof *m->at);
	m->path = zp_xrealloc(m->path, (m->n + 1) * sizeof *m->path);
	m->at[m->n][0] = lo;
	m->at[m->n][1] = hi;
	m->path[m->n++] = zp_xstrdup(path);
}

static void maps_free(struct maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->path[i]);
	free(m->path);
	free(m->at);
}

/*
 * Whether [lo, hi) is still exactly what zond mapped: mappings begin at lo
 * and end at hi, none straddles either end, and no stopped thread runs
 * inside.
 */
static int still_left(struct session *x, const struct maps *m, uint64_t lo, uint64_t hi)
{
	int starts = 0, ends = 0;
	for (size_t i = 0; i < m->n; i++) {
		uint64_t a = m->at[i][0], b = m->at[i][1];
		if (b <= lo || a >= hi)
			continue;
		if (a < lo || b > hi)
			return 0;
		starts |= a == lo;
		ends |= b == hi;
	}
	for (size_t i = 0; i < x->t->ops->threads(x->t); i++) {
		uint64_t pc;
		struct zerr ignored;
		if (x->t->ops->pc(x->t, i, &pc, &ignored) < 0 || (pc >= lo && pc < hi))
			return 0;
	}
	return starts && ends;
}

/* Whether process pid is a zond (a pid used again is not). */
static int is_zond(uint64_t pid)
{
	char name[64], comm[32] = "";
	snprintf(name, sizeof name, "/proc/%llu/comm", (unsigned long long)pid);
	FILE *f = fopen(name, "re");
	if (!f)
		return 0;
	int yes = fgets(comm, sizeof comm, f) && strncmp(comm, "zond", 4) == 0;
	fclose(f);
	return yes;
}

/* One memfd of zond's found at [lo, hi) of the target: refused, or what it lists unmapped. */
static int left_by(struct session *x, const struct maps *m, uint64_t lo, uint64_t hi,
		   struct zerr *err)
{
	struct left_record r;
	struct zerr ignored;
	if (hi - lo < 4096 || x->t->ops->read(x->t, hi - 4096, &r, sizeof r, &ignored) < 0 ||
	    r.magic != LEFT_MAGIC)
		return 0; /* an older zond's: nothing says what it left */
	if (r.state == LEFT_MEASURING && is_zond(r.zond))
		return zerr_set(err, "process %lld is being measured by another zond inject (pid "
				     "%llu): one at a time; nothing was changed",
				(long long)x->t->pid, (unsigned long long)r.zond);
	if (r.state == LEFT_MEASURING)
		return zerr_set(err, "process %lld: the zond inject (pid %llu) that measured it "
				     "ended without putting its code back (killed?); nothing was "
				     "changed",
				(long long)x->t->pid, (unsigned long long)r.zond);
	for (uint64_t i = 0; i < r.n && i < LEFT_MAX; i++)
		if (still_left(x, m, r.at[i][0], r.at[i][0] + r.at[i][1]))
			x->t->ops->unmap(x->t, r.at[i][0], r.at[i][1], &ignored);
	return 0;
}

/*
 * Before anything is written to an attached process: refused when another
 * zond measures it, else the mappings earlier zonds left are unmapped (at
 * most one attach's are ever there).
 */
static int clear_left(struct session *x, struct zerr *err)
{
	struct maps m = {0};
	struct zerr ignored;
	if (x->started || !x->t->ops->each_map || !x->t->ops->unmap ||
	    x->t->ops->each_map(x->t, map_add, &m, &ignored) < 0)
		return 0;
	int rc = 0;
	for (size_t i = 0; i < m.n && rc == 0; i++)
		if (strcmp(m.path[i], LEFT_MEMFD) == 0)
			rc = left_by(x, &m, m.at[i][0], m.at[i][1], err);
	maps_free(&m);
	return rc;
}

/*
 * Whether patch k's entry (and its hop's slot) in the stopped target holds
 * the file's bytes; 1 when its file is not mapped yet (a library to come).
 */
static int entry_as_file(struct session *x, size_t k, struct zerr *err)
{
	const struct inject_arch *a = x->plan->arch;
	const struct inject_patch *pt = &x->patches[k];
	const char *path = pt->module ? pt->module : x->plan->path;
	uint64_t start, load;
	struct zerr ignored;
	if (x->t->ops->module_start(x->t, path, &start, &ignored) < 0)
		return 1;
	if (symbols_load_start(x->s, path, &load, err) < 0)
		return -1;
	uint64_t at[2] = {pt->site.addr + pt->site.keep, pt->site.slot};
	uint32_t len[2] = {inject_entry_len(a, &pt->site), pt->site.hop ? a->jump_len : 0};
	for (int i = 0; i < 2 && len[i]; i++) {
		uint8_t file[16], now[16];
		if (symbols_read(x->s, path, at[i], file, len[i], err) < 0 ||
		    x->t->ops->read(x->t, at[i] + start - load, now, len[i], err) < 0)
			return -1;
		if (memcmp(file, now, len[i]) != 0)
			return 0;
	}
	return 1;
}

/*
 * Refuses a target whose entries to patch are not the file's before
 * anything is written or mapped in it: another zond inject measures it
 * (it detached: ptrace lets a second tracer in), or a debugger left a
 * breakpoint.  Before, the second zond found out at its first jump, with
 * its areas and results already mapped, and on its way out wrote the
 * file's bytes over the first zond's jumps (QA s16 X2 F1).
 */
static int check_entries(struct session *x, struct zerr *err)
{
	for (size_t k = 0; k < x->npatches; k++) {
		int rc = entry_as_file(x, k, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return zerr_set(err, "process %lld: %s in memory is not as in %s: another "
					     "zond inject measures it (one at a time), or a "
					     "debugger's breakpoint is there; nothing was changed",
					(long long)x->t->pid, x->patches[k].name,
					x->patches[k].module ? x->patches[k].module
							     : x->plan->path);
	}
	return 0;
}

/* Prepares the stopped target: areas, results, payload, jumps. */
static int prepare(struct session *x, struct inject_result *out, struct zerr *err)
{
	const struct inject_arch *a = x->plan->arch;
	struct inject_transport *t = x->t;
	uint64_t remote;
	x->shared_len = inject_results_size(x->n) + (a->contexts ? inject_contexts_size() : 0);
	x->shared_len = ((x->shared_len + 4095) & ~(size_t)4095) +
			4096; /* a page of its own: the record of what zond left (left_record) */
	struct zerr ignored;
	t->ops->modules(t, add_unwinders, x, &ignored); /* none: nothing throws */
	if (x->later)
		add_later_unwinder(x);
	if (x->later && libraries_to_come(x) && add_loader_probe(x, err) < 0)
		return -1;
	free(x->sites);
	free(x->copies);
	free(x->entries);
	x->sites = zp_xcalloc(x->npatches + 1, sizeof *x->sites);
	free(x->mine);
	x->mine = zp_xcalloc(x->npatches + 1, 1);
	x->copies = zp_xcalloc(x->npatches + 1, sizeof *x->copies);
	x->entries = zp_xcalloc(x->npatches + 1, sizeof *x->entries);
	if (clear_left(x, err) < 0 || check_entries(x, err) < 0 || place_areas(x, err) < 0 ||
	    t->ops->share(t, x->shared_len, &x->shared, &remote, err) < 0 ||
	    t->ops->alloc(t, 4096 + inject_slots_size(x->n), &x->proc, err) < 0)
		return -1;
	x->slots = x->proc + 4096; /* after the process page (results.h) */
	/*
	 * The process page reads 0 in a forked child (MADV_WIPEONFORK): marked
	 * here too, so that a program whose first measured call comes after it
	 * put itself under seccomp (the payload then makes no system call) still
	 * tells its children.  Not in an attached process, whose filter may
	 * forbid madvise (its payload marks it at its first call, as before).
	 */
	if (x->started && t->ops->advise)
		t->ops->advise(t, x->proc, 4096, MADV_WIPEONFORK, &ignored);
	struct inject_header *h = x->shared;
	h->magic = INJ_MAGIC;
	h->nfuncs = x->n;
	h->watch = x->npending;
	h->zond = x->started ? (uint64_t)getpid() : 0;
	struct left_record *left = left_record(x);
	left->magic = LEFT_MAGIC;
	left->state = LEFT_MEASURING;
	left->zond = (uint64_t)getpid();
	x->remote = remote;
	struct inject_payload_args args = {remote,
					   x->slots,
					   INJ_PSLOT(x->n),
					   INJ_SB_STATS(x->n),
					   out->c0,
					   out->cpair,
					   a->exit_addr(x->areas[0].addr),
					   remote + INJ_HDR,
					   INJ_SBLOCK(x->n),
					   x->n <= INJ_EDGES_MAX ? INJ_SB_EDGES(x->n) : 0,
					   x->n,
					   x->event,
					   x->event ? counter_fd_base(t->pid) : 0,
					   a->contexts ? remote + inject_results_size(x->n) : 0,
					   x->proc,
					   tcb_tid_offset(t),
					   x->fast_clock,
					   0 /* INJ_DEPTH: fixed on Linux */};
	x->args = args;
	for (size_t i = 0; i < x->nareas; i++) {
		if (x->areas[i].pending)
			continue;
		uint8_t *buf = build_area(x, i, &args, err);
		int rc = buf ? t->ops->write(t, x->areas[i].addr, buf, x->areas[i].len, err) : -1;
		free(buf);
		if (rc < 0)
			return -1;
	}
	return patch_entries(x, err) == 0 && move_threads(x, err) == 0 ? 0 : -1;
}

/*
 * Calls fn for every frame on the shadow stacks of the stopped target (its
 * private slots, read through the transport).
 */
static int each_frame(const struct session *x,
		      int (*fn)(const struct session *x, uint64_t slot, uint64_t ret,
				struct zerr *err),
		      struct zerr *err)
{
	size_t len = INJ_PSLOT(x->n);
	uint8_t *slot = zp_xmalloc(len);
	int rc = 0;
	for (size_t t = 0; t < INJ_THREADS && rc == 0; t++) {
		uint64_t key, depth;
		rc = x->t->ops->read(x->t, x->slots + t * len, slot, len, err);
		memcpy(&key, slot + INJ_T_KEY, 8);
		memcpy(&depth, slot + INJ_T_DEPTH, 8);
		depth &= 0xffffffffu; /* the high half counts the pushes (results.h) */
		for (uint64_t d = 0; rc == 0 && key > 1 && d < depth && d < INJ_DEPTH; d++) {
			const uint8_t *f = slot + INJ_SLOT_HDR + d * INJ_FRAME;
			uint64_t at, ret;
			memcpy(&at, f + INJ_F_SLOT, 8);
			memcpy(&ret, f + INJ_F_RET, 8);
			rc = fn(x, at, ret, err);
		}
	}
	free(slot);
	return rc;
}

/*
 * The results as they are now, into out: every thread's block summed.
 * Calls still open (the functions the program exited from, those left by
 * longjmp with no measured call after, those active at a detach) count as
 * calls; their time is unknown.
 */
/* The call edges of one thread's block (thread out->nthreads) into out->edges. */
static void read_edges(const struct session *x, const uint8_t *b, struct inject_result *out)
{
	const uint8_t *e = b + INJ_SB_EDGES(x->n);
	for (size_t caller = 0; caller <= x->n; caller++)
		for (size_t callee = 0; callee < x->n; callee++) {
			const uint8_t *one = e + (caller * x->n + callee) * INJ_EDGE;
			uint64_t calls, incl;
			memcpy(&calls, one + INJ_E_CALLS, 8);
			memcpy(&incl, one + INJ_E_INCL, 8);
			if (!calls)
				continue;
			out->edges =
				zp_xrealloc(out->edges, (out->nedges + 1) * sizeof *out->edges);
			out->edges[out->nedges++] = (struct inject_edge){
				.thread = out->nthreads,
				.caller = caller == x->n ? INJECT_NO_CALLER : caller,
				.callee = callee,
				.calls = calls,
				.incl = incl};
		}
}

/*
 * The calling contexts of thread slot t (result thread out->nthreads),
 * appended to out->contexts: record i's parent is record p of the same
 * area, read before it.
 */
static void read_contexts(const struct session *x, size_t t, struct inject_result *out)
{
	const uint8_t *area =
		(const uint8_t *)x->shared + inject_results_size(x->n) + t * (size_t)INJ_CBLOCK;
	uint64_t used;
	memcpy(&used, area + INJ_C_CALLS, 8);
	if (used > INJ_CTX_MAX)
		used = INJ_CTX_MAX;
	size_t *at = zp_xcalloc(used + 1, sizeof *at); /* record i's index in out->contexts */
	for (uint64_t i = 1; i < used; i++) {
		const uint8_t *rec = area + i * INJ_CTX;
		uint64_t key;
		struct inject_context c = {out->nthreads, INJECT_NO_CALLER, 0, {0}};
		memcpy(&key, rec + INJ_C_KEY, 8);
		memcpy(&c.st, rec, sizeof c.st);
		c.st.min = c.st.min ? ~c.st.min : UINT64_MAX;
		uint64_t parent = key >> 32;
		c.callee = (size_t)(key & 0xffffffffu);
		at[i] = SIZE_MAX;
		if (parent >= i || c.callee >= x->n || (parent && at[parent] == SIZE_MAX))
			continue; /* not written whole (a thread stopped while adding it), or below one */
		if (!c.st.calls)
			continue; /* added by a call a signal handler's longjmp left before it counted */
		if (parent)
			c.parent = at[parent];
		at[i] = out->ncontexts;
		out->contexts =
			zp_xrealloc(out->contexts, (out->ncontexts + 1) * sizeof *out->contexts);
		out->contexts[out->ncontexts++] = c;
	}
	free(at);
}

/*
 * Threads that took blocks of their own under the same pid and tid: the
 * payload's ids are those each process sees (getpid, gettid), and two
 * processes each pid 1 of a pid namespace of its own (QA s14 V2 F6) had
 * their threads filed as one.  Kept apart under ids of the run's own,
 * k * ZP_NS_PIDS + their pid, k counting the threads of that pid and tid
 * in the order they took their blocks (an exec'ed image is not measured,
 * and an ended thread's block taken over keeps one thread's ids: a pid and
 * tid twice is another process's).  zond cannot tell which of those
 * threads were one process's: the k-th of each pid and tid go together.
 */
static void keep_apart(struct inject_result *out)
{
	for (size_t i = 0; i < out->nthreads; i++) {
		if (out->pids[i] <= 0 || out->pids[i] >= ZP_NS_PIDS)
			continue; /* the program's (figures.c thread_of), or kept apart already */
		int64_t pid = out->pids[i], k = 0;
		for (size_t j = i; j < out->nthreads; j++)
			if (out->pids[j] == pid && out->tids[j] == out->tids[i])
				out->pids[j] = ++k * ZP_NS_PIDS + pid;
		if (k == 1) /* no other: its own ids */
			out->pids[i] = pid;
	}
}

static void read_results(const struct session *x, struct inject_result *out)
{
	const struct inject_header *h = x->shared;
	out->deep = h->deep;
	/* a thread refused a slot under seccomp counts in both */
	out->sandboxed = h->sandboxed;
	out->noslot = h->noslot - (h->sandboxed < h->noslot ? h->sandboxed : h->noslot);
	out->sharedtp = h->sharedtp;
	out->noblock = h->noblock;
	out->reused = h->reused;
	out->open = h->ended; /* open when their thread ended (its slot given to another) */
	out->untimed = h->untimed;
	out->noclock = h->noclock;
	out->lostfd = h->lostfd;
	out->seccomp = h->seccomp;
	out->nocounter = h->nocounter;
	out->noctx = h->noctx;
	out->n = x->n;
	out->nthreads = 0;
	out->tids = zp_xcalloc(INJ_THREADS, sizeof *out->tids);
	out->pids = zp_xcalloc(INJ_THREADS, sizeof *out->pids);
	out->stats = zp_xcalloc(INJ_THREADS * (x->n ? x->n : 1), sizeof *out->stats);
	for (size_t t = 0; t < INJ_THREADS; t++) {
		const uint8_t *b =
			(const uint8_t *)x->shared + INJ_HDR + t * (size_t)INJ_SBLOCK(x->n);
		uint64_t tid;
		memcpy(&tid, b + INJ_SB_TID, 8);
		if (!tid)
			continue; /* a slot no thread claimed */
		struct inject_stat *mine = &out->stats[out->nthreads * x->n];
		if (x->n <= INJ_EDGES_MAX)
			read_edges(x, b, out);
		if (x->plan->arch->contexts)
			read_contexts(x, t, out);
		memcpy(&out->pids[out->nthreads], b + INJ_SB_PID, 8);
		out->tids[out->nthreads++] = (int64_t)tid;
		for (size_t k = 0; k < x->n; k++) {
			struct inject_stat st, *sum = &mine[k];
			int32_t open;
			memcpy(&open, b + INJ_SB_OPEN + k * 4, 4);
			memcpy(&st, b + INJ_SB_STATS(x->n) + k * INJ_STAT, sizeof st);
			*sum = st;
			sum->min = st.min ? ~st.min : UINT64_MAX;
			if (open > 0) {
				sum->calls += (uint64_t)open;
				out->open += (uint64_t)open;
			}
		}
	}
	keep_apart(out);
}

static void session_init(struct session *x, struct inject_transport *t,
			 const struct inject_job *job)
{
	memset(x, 0, sizeof *x);
	x->t = t;
	x->plan = job->plan;
	x->event = job->event;
	x->fast_clock = job->fast_clock;
	x->patches = zp_xcalloc(job->npatches + 1, sizeof *x->patches);
	memcpy(x->patches, job->patches, job->npatches * sizeof *x->patches);
	x->npatches = job->npatches;
	x->n = job->nstats;
	x->s = symbols_new();
	size_t m = job->npatches ? job->npatches : 1;
	x->sites = zp_xcalloc(m, sizeof *x->sites);
	x->copies = zp_xcalloc(m, sizeof *x->copies);
	x->entries = zp_xcalloc(m, sizeof *x->entries);
}

struct inject_patch *inject_function_patches(const struct inject_plan *plan, const size_t *which,
					     size_t n)
{
	struct inject_patch *p = zp_xcalloc(n ? n : 1, sizeof *p);
	for (size_t k = 0; k < n; k++) {
		const struct inject_func *f = &plan->funcs[which[k]];
		p[k] = (struct inject_patch){f->name, NULL, f->site, INJECT_FUNCTION, (uint32_t)k};
	}
	return p;
}

/* The payload's cost for this job's kind of probes. */
static int calibrate(const struct inject_job *job, struct inject_result *out, struct zerr *err)
{
	const struct inject_arch *a = job->plan->arch;
	int region = job->npatches && job->patches[0].kind != INJECT_FUNCTION;
	if (job->event)
		return a->calibrate_event
			       ? a->calibrate_event(job->event, &out->c0,
						    region ? NULL : &out->cpair, &out->hz, err)
			       : zerr_set(err,
					  "%s: the payload reads no perf_event counter (--event)",
					  a->name);
	if (job->fast_clock)
		return a->calibrate_fast
			       ? a->calibrate_fast(&out->c0, region ? NULL : &out->cpair, &out->hz,
						   err)
			       : zerr_set(err,
					  "%s: the payload has no unfenced clock (--fast-clock)",
					  a->name);
	return region ? a->calibrate_region(&out->c0, &out->hz, err)
		      : a->calibrate(&out->c0, &out->cpair, &out->hz, err);
}

static void session_end(struct session *x)
{
	if (x->shared)
		munmap(x->shared, x->shared_len);
	symbols_free(x->s);
	for (size_t i = 0; i < x->nowned; i++)
		free(x->owned[i]);
	free(x->owned);
	free(x->patches);
	free(x->in_area);
	free(x->sites);
	free(x->mine);
	free(x->copies);
	free(x->entries);
	free(x->off);
	x->t->ops->close(x->t);
}

/*
 * Lets a started dynamic program run to its loader's r_brk (glibc's
 * _dl_debug_state) at the end of its start-up, the call after which
 * _r_debug reads RT_CONSISTENT: every library the program loads at start
 * is mapped and relocated then, the thread pointer the payload reads is
 * set, and nothing of the libraries or of the program has run: the loader
 * runs the libraries' constructors after that call, then the program's
 * entry point.  (Patched at the entry point, the libraries' constructors
 * and what they called went unmeasured, while the same library loaded by
 * dlopen had them measured: its r_brk comes before its constructors too.)
 * 0; 1 when the loader has no such symbols (the entry point it is then);
 * -1 with err set.
 */
static int run_to_loaded(struct session *x, const char *loader, struct zerr *err)
{
	struct symbol brk, debug;
	struct zerr ignored;
	uint64_t start, load;
	if (symbols_named(x->s, loader, "_dl_debug_state", &brk, &ignored) != 1 ||
	    symbols_named(x->s, loader, "_r_debug", &debug, &ignored) != 1)
		return 1;
	if (x->t->ops->module_start(x->t, loader, &start, err) < 0 ||
	    symbols_load_start(x->s, loader, &load, err) < 0)
		return -1;
	uint64_t at = brk.start + start - load;
	uint64_t state_at = debug.start + start - load + offsetof(struct r_debug, r_state);
	for (int calls = 0; calls < 64; calls++) { /* RT_ADD first, then RT_CONSISTENT */
		int32_t state;
		if (x->t->ops->run_to(x->t, at, err) < 0 ||
		    x->t->ops->read(x->t, state_at, &state, sizeof state, err) < 0)
			return -1;
		if (state == RT_CONSISTENT)
			return 0;
	}
	return zerr_set(err, "%s: its start-up called %s's r_brk 64 times without ending", x->plan->path,
			loader);
}

/*
 * Lets a started program run to where zond patches it: the end of its
 * loader's start-up (run_to_loaded), else its entry point; its libraries
 * are mapped then (the unwinders among them), none of its own code has run.
 */
static int run_to_entry(struct session *x, struct zerr *err)
{
	uint64_t start, load, entry;
	char loader[PATH_MAX];
	struct zerr ignored;
	int rc, kind = symbols_interpreter(x->plan->path, loader, sizeof loader, &ignored);
	if (kind == 0 && (rc = run_to_loaded(x, loader, err)) <= 0)
		return rc;
	if (x->t->ops->module_start(x->t, x->plan->path, &start, err) < 0 ||
	    symbols_load_start(x->s, x->plan->path, &load, err) < 0 ||
	    symbols_entry(x->plan->path, &entry, err) < 0)
		return -1;
	/*
	 * A static program (no loader) sets up its thread pointer, which the
	 * payload reads first thing, in its own start-up code: it is stopped
	 * at main instead, and what ran before main is not measured.
	 */
	struct symbol main_fn;
	if (kind == 1) {
		int found = symbols_named(x->s, x->plan->path, "main", &main_fn, err);
		if (found < 0)
			return -1;
		if (!found)
			return zerr_set(err,
					"%s: statically linked and no main: its start-up code sets "
					"up the thread pointer the payload needs, and zond finds no "
					"later point to stop it at",
					x->plan->path);
		entry = main_fn.start;
	}
	return entry ? x->t->ops->run_to(x->t, entry + start - load, err) : 0;
}

/* ---- libraries loaded later ----------------------------------------------- */

static volatile uint64_t *header_word(struct session *x, size_t off)
{
	return (volatile uint64_t *)((uint8_t *)x->shared + off);
}

static void nap(void)
{
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
}

/*
 * Whether late library area i's jumps are still in the target: a dlclose
 * may have unloaded the library (its patches went with it), and a later
 * dlopen may map it again, where it was or elsewhere, with the file's bytes.
 */
static int still_patched(struct session *x, size_t i)
{
	const struct inject_arch *a = x->plan->arch;
	for (size_t k = 0; k < x->npatches; k++) {
		if (x->in_area[k] != i || !patch_on(x, k))
			continue;
		const struct inject_site *site = &x->sites[k];
		uint8_t have[16], jump[16];
		uint64_t at = site->addr + site->keep;
		uint32_t len = inject_entry_len(a, site);
		struct zerr ignored;
		if (site->hop)
			a->hop(at, site->slot, jump);
		else
			a->jump(at, x->entries[k], jump);
		return x->t->ops->read(x->t, at, have, len, &ignored) == 0 &&
		       memcmp(have, jump, len) == 0;
	}
	return 1;
}

/*
 * With the target stopped: the late libraries unloaded since are pending
 * again, and the areas of the pending ones it has mapped by now are
 * placed (a new area for a library loaded again: the old one stays, a
 * thread may still return through it), written and patched (their code
 * has not run: the loader relocates and initialises them after its
 * r_brk).  0, or -1 with err set.
 */
static int place_loaded(struct session *x, struct zerr *err)
{
	for (size_t i = 1; i < x->nareas; i++) {
		struct area *ar = &x->areas[i];
		if (ar->late && !ar->pending && !still_patched(x, i)) {
			ar->pending = 1;
			x->npending++;
		}
		if (!ar->pending)
			continue;
		int rc = place_area(x, i, err);
		if (rc < 0)
			return -1;
		if (rc > 0)
			continue; /* not this one yet */
		uint8_t *buf = build_area(x, i, &x->args, err);
		rc = buf ? x->t->ops->write(x->t, ar->addr, buf, ar->len, err) : -1;
		free(buf);
		if (rc < 0)
			return -1;
		ar->pending = 0;
		ar->loaded = 1;
		x->npending--;
		for (size_t k = 0; k < x->npatches; k++)
			if (x->in_area[k] == i && patch_on(x, k) && patch_one(x, k, err) < 0)
				return -1;
	}
	return 0;
}

/*
 * Runs the released target while it may load libraries to patch (any
 * late one: loaded, unloaded and loaded again): whenever the loader's
 * probe holds a thread (a ticket not served), stops the target, patches
 * what it has mapped by then (place_loaded), serves every ticket taken so
 * far and lets it run on.  Returns when the target ended (*ended, its
 * wait status in *status): 0; -1 with err set, every waiting thread let go
 * for good and the target running on with what was patched.
 */
static int serve_loads(struct session *x, int *ended, int *status, struct zerr *err)
{
	struct inject_transport *t = x->t;
	volatile uint64_t *loads = header_word(x, INJ_H_LOADS);
	volatile uint64_t *loaded = header_word(x, INJ_H_LOADED);
	int rc = 0;
	while (x->nlate && rc == 0) {
		if (t->ops->ended && t->ops->ended(t, status)) {
			*ended = 1;
			return 0;
		}
		uint64_t taken = __atomic_load_n(loads, __ATOMIC_SEQ_CST);
		if (taken == *loaded) {
			nap();
			continue;
		}
		if (t->ops->stop(t, err) < 0) {
			if (t->ops->ended && t->ops->ended(t, status)) {
				*ended = 1;
				return 0;
			}
			rc = -1;
			break;
		}
		rc = place_loaded(x, err);
		__atomic_store_n(loaded, taken, __ATOMIC_SEQ_CST);
		struct zerr ignored;
		if (t->ops->release(t, rc == 0 ? err : &ignored) < 0)
			rc = -1;
	}
	/* zond's trouble: no thread waits, now or later */
	__atomic_store_n(header_word(x, INJ_H_WATCH), 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(loaded, UINT64_MAX, __ATOMIC_SEQ_CST);
	return rc;
}

/* ---- blocks of ended processes ------------------------------------------- */

/*
 * Whether process pid has ended: no such process, or a zombie with no
 * thread left (/proc/PID/stat's state Z or X and num_threads 1: a zombie
 * leader whose other threads run on counts them).  A pid used again reads
 * as alive: the block is kept longer, never taken from a live process.
 */
static int process_ended(uint64_t pid)
{
	if (pid == 0 || pid > INT_MAX)
		return 0;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 1;
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	ssize_t got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got <= 0)
		return 0;
	buf[got] = 0;
	const char *p = strrchr(buf, ')'); /* the name may hold anything */
	char state = 0;
	long fields[18] = {0}; /* ppid .. num_threads: fields 4 to 20 */
	if (!p || sscanf(p + 1, " %c", &state) != 1)
		return 0;
	p += 2;
	for (int f = 0; f < 18 && p; f++) {
		p = strchr(p + 1, ' ');
		if (p)
			fields[f] = strtol(p + 1, NULL, 10);
	}
	return (state == 'Z' || state == 'X') && p && fields[16] <= 1;
}

/* Whether process pid sees the pids zond sees (/proc/PID/status NSpid: one number). */
static int same_pid_view(int64_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%lld/status", (long long)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	int ids = 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "NSpid:", 6) == 0)
			for (char *p = strtok(line + 6, " \t\n"); p; p = strtok(NULL, " \t\n"))
				ids++;
	fclose(f);
	return ids == 1;
}

/*
 * The blocks of ended processes given back (results.h, INJ_SB_LIVE): each
 * taken from its holder by one cmpxchg to 0 (so once per owner; a block
 * free, being bound or a live process's never reads as an ended one's),
 * the calls its process left open in it counted as never returned (as
 * za_retire does for an ended thread: INJ_H_ENDED), its bit set in
 * INJ_H_FREE for the next thread or child to take.  Returns how many.
 */
static size_t reclaim_blocks(void *shared, size_t n)
{
	struct inject_header *h = shared;
	uint64_t taken = __atomic_load_n(&h->blocks, __ATOMIC_SEQ_CST);
	if (taken > INJ_THREADS)
		taken = INJ_THREADS;
	uint64_t seen[INJ_THREADS];
	uint8_t ended[INJ_THREADS];
	size_t nseen = 0, freed = 0;
	for (uint64_t i = 0; i < taken; i++) {
		uint8_t *b = (uint8_t *)shared + INJ_HDR + i * (size_t)INJ_SBLOCK(n);
		uint64_t *live = (uint64_t *)(b + INJ_SB_LIVE);
		uint64_t pid = __atomic_load_n(live, __ATOMIC_SEQ_CST);
		if (pid == 0 || pid == INJ_LIVE_KEEP)
			continue;
		size_t j = 0;
		while (j < nseen && seen[j] != pid)
			j++;
		if (j == nseen) {
			seen[nseen] = pid;
			ended[nseen++] = (uint8_t)process_ended(pid);
		}
		if (!ended[j] || !__atomic_compare_exchange_n(live, &pid, 0, 0, __ATOMIC_SEQ_CST,
							      __ATOMIC_SEQ_CST))
			continue;
		/* the block is zond's until its bit is set: no process writes it */
		for (size_t k = 0; k < n; k++) {
			int32_t *open = (int32_t *)(b + INJ_SB_OPEN + k * 4);
			struct inject_stat *st =
				(struct inject_stat *)(b + INJ_SB_STATS(n) + k * INJ_STAT);
			if (*open > 0) {
				st->calls += (uint64_t)*open;
				__atomic_fetch_add(&h->ended, (uint64_t)*open, __ATOMIC_SEQ_CST);
			}
			*open = 0;
		}
		__atomic_fetch_or(&h->free[i / 64], 1ull << (i % 64), __ATOMIC_SEQ_CST);
		freed++;
	}
	return freed;
}

/* zond's thread that gives ended processes' blocks back while the program runs. */
struct reclaimer {
	pthread_t thread;
	void *shared;
	size_t n;
	volatile int stop;
	int running;
};

static void *reclaimer_main(void *arg)
{
	struct reclaimer *r = arg;
	struct inject_header *h = r->shared;
	uint64_t want = 0;
	int64_t next = 0, backoff = 1000000;
	int scarce = 0;
	while (!r->stop) {
		/* a look every 10 ms while blocks are plenty (the run's cost), 1 ms when not */
		struct timespec ts = {0, scarce ? 1000000 : 10000000};
		nanosleep(&ts, NULL);
		uint64_t w = __atomic_load_n(&h->want, __ATOMIC_SEQ_CST);
		uint64_t taken = __atomic_load_n(&h->blocks, __ATOMIC_SEQ_CST);
		uint64_t spare = taken < INJ_THREADS ? INJ_THREADS - taken : 0;
		for (int i = 0; i < INJ_THREADS / 64; i++)
			spare += (uint64_t)__builtin_popcountll(
				__atomic_load_n(&h->free[i], __ATOMIC_SEQ_CST));
		int64_t now = clock_now_ns(CLOCK_MONOTONIC);
		scarce = spare < INJ_THREADS / 4;
		if (w == want && (!scarce || now < next))
			continue; /* blocks enough, or looked a moment ago */
		want = w;
		if (reclaim_blocks(r->shared, r->n))
			backoff = 1000000;
		else if (backoff < 64000000) /* nothing to give back: look less often */
			backoff *= 2;
		next = now + backoff;
	}
	return NULL;
}

/*
 * Starts r on x's results (x86-64 over ptrace) when target pid sees the
 * pids zond sees: the blocks' holders are ids as the processes see them.
 */
static void reclaimer_start(struct reclaimer *r, struct session *x, int64_t pid)
{
	memset(r, 0, sizeof *r);
	if (!x->shared || !same_pid_view(pid))
		return;
	r->shared = x->shared;
	r->n = x->n;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* zond's signals stay its main thread's */
	r->running = pthread_create(&r->thread, NULL, reclaimer_main, r) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void reclaimer_stop(struct reclaimer *r)
{
	if (!r->running)
		return;
	r->stop = 1;
	pthread_join(r->thread, NULL);
	r->running = 0;
}

/* x's target released (0, or -1 with err set), r giving blocks back meanwhile. */
static int release_reclaiming(struct session *x, struct reclaimer *r, int64_t pid, struct zerr *err)
{
	reclaimer_start(r, x, pid);
	if (x->t->ops->release(x->t, err) == 0)
		return 0;
	reclaimer_stop(r);
	return -1;
}

/*
 * Waits for the processes the started program left running when it ended
 * (an orphan, a daemon, a double fork's grandchild): zond is their
 * subreaper (inject_run), so they are its children now, and a forked child
 * measures into the shared results until it ends.  ^C or SIGTERM stops
 * waiting.  Returns 1 when it stopped with some still running (what they
 * measure from then on is not in the run), else 0.
 */
static int wait_left_running(const char *prog)
{
	struct sigaction old[2];
	inject_catch_interrupts(old);
	int said = 0, stopped = 0;
	for (;;) {
		pid_t pid = waitpid(-1, NULL, said ? 0 : WNOHANG);
		if (pid > 0 || (pid < 0 && errno == EINTR && !inject_interrupted()))
			continue;
		if (pid < 0) { /* ECHILD: none left, or interrupted */
			stopped = errno == EINTR;
			break;
		}
		/* even with -q: it says why zond has not ended although the program has */
		fprintf(stderr,
			"zond inject: waiting for the processes %s left running (Ctrl-C: stop "
			"waiting, keep what they measured so far)\n",
			prog);
		said = 1;
	}
	inject_release_interrupts(old);
	return stopped;
}

int inject_run(const struct inject_job *job, char *const argv[], struct inject_result *out,
	       struct zerr *err)
{
	memset(out, 0, sizeof *out);
	if (calibrate(job, out, err) < 0)
		return -1;
	/* what the program leaves running is reparented to zond, not lost (wait_left_running) */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/*
	 * kill, timeout(1), a closing terminal: the program's to take, zond
	 * waits and keeps; from before the program exists, blocked until
	 * forward_to names it, so that none is lost (one while zond holds the
	 * program under ptrace is given back to it when zond lets it go).
	 */
	sigset_t block, mask;
	sigemptyset(&block);
	for (int i = 0; i < FORWARD_N; i++)
		sigaddset(&block, forward_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &mask);
	struct forward fw;
	forward_start(&fw);
	struct inject_transport *t = inject_ptrace_start_forwarding(argv, &fw, &mask, err);
	if (t)
		forward_to(t->pid);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (!t) {
		forward_stop(&fw);
		return -1;
	}
	struct session x;
	session_init(&x, t, job);
	x.later = x.started = 1;
	out->pid = t->pid;
	out->start_ns = clock_now_ns(CLOCK_REALTIME);
	int status = 0, rc = 0, ended = 0, measured = 0;
	struct reclaimer rec = {0};
	if (run_to_entry(&x, err) < 0 || prepare(&x, out, err) < 0) {
		/* zond's trouble costs zond's data only: the program runs on (every
		 * jump written so far leads to a complete stub) */
		struct zerr ignored;
		if (t->ops->release(t, &ignored) == 0 && t->ops->wait(t, &status, &ignored) == 0)
			out->status = status;
		rc = -1;
	} else if (release_reclaiming(&x, &rec, t->pid, err) < 0) {
		rc = -1;
	} else if (serve_loads(&x, &ended, &status, err) < 0) {
		/* the libraries not patched yet stay so; the program runs to its end */
		struct zerr ignored;
		if (t->ops->wait(t, &status, &ignored) == 0)
			out->status = status;
		rc = -1;
	} else if (!ended && t->ops->wait(t, &status, err) < 0) {
		rc = -1;
	} else {
		measured = 1;
	}
	forward_stop(&fw); /* the program's pid is free for another process now */
	if (measured)
		out->left_running = wait_left_running(argv[0]);
	reclaimer_stop(&rec);
	if (measured) {
		out->duration_ns = clock_now_ns(CLOCK_REALTIME) - out->start_ns;
		out->status = status;
		read_results(&x, out);
	}
	for (size_t i = 1; i < x.nareas; i++)
		out->unloaded += x.areas[i].late && !x.areas[i].loaded &&
				 x.areas[i].path != x.unwinder_later; /* zond's own, not asked for */
	session_end(&x);
	return rc;
}

/* ---- attaching ------------------------------------------------------------ */

static volatile sig_atomic_t interrupted, first_signal;

int inject_interrupted(void)
{
	return interrupted;
}

int inject_interrupt_signal(void)
{
	return first_signal;
}

static void on_interrupt(int sig)
{
	if (!interrupted)
		first_signal = sig;
	interrupted = 1;
}

/*
 * ^C and SIGTERM to zond set `interrupted` from now on; old keeps what they
 * did.  Inside a wider catch (attach_catch) a signal already taken stays.
 */
void inject_catch_interrupts(struct sigaction old[2])
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	if (old[0].sa_handler != on_interrupt)
		interrupted = first_signal = 0;
}

/*
 * While zond's code is in an attached process, every signal that would end
 * zond (a dropped ssh session's SIGHUP, SIGQUIT, SIGUSR1/2, SIGALRM, SIGPIPE,
 * a second ^C) only ends the measuring: the code is put back before zond
 * goes (it died with the process patched for life).  SIGKILL cannot be
 * caught: doc/inject.md.
 */
static const int attach_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				     SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};
enum { N_ATTACH_SIGNALS = sizeof attach_signals / sizeof attach_signals[0] };

/*
 * SIGPIPE while attached: sent to stop zond, or raised by zond's own line on
 * a stderr whose reader left, which costs that line only (forward.h
 * forward_own_pipe): the kernel sends that one as if zond sent it itself.
 */
static void on_attach_pipe(int sig, siginfo_t *si, void *context)
{
	(void)context;
	if (si->si_code == SI_USER && si->si_pid == getpid())
		return;
	on_interrupt(sig);
}

static void attach_catch(struct sigaction old[N_ATTACH_SIGNALS])
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	interrupted = first_signal = 0;
	for (int i = 0; i < N_ATTACH_SIGNALS; i++) {
		if (attach_signals[i] == SIGPIPE) {
			struct sigaction pipe_sa = {.sa_sigaction = on_attach_pipe,
						    .sa_flags = SA_SIGINFO};
			sigaction(SIGPIPE, &pipe_sa, &old[i]);
			continue;
		}
		sigaction(attach_signals[i], &sa, &old[i]);
	}
}

static void attach_release(const struct sigaction old[N_ATTACH_SIGNALS])
{
	for (int i = 0; i < N_ATTACH_SIGNALS; i++)
		sigaction(attach_signals[i], &old[i], NULL);
}

void inject_release_interrupts(const struct sigaction old[2])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
}

void inject_catch_forwarded(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	interrupted = first_signal = 0;
	for (int i = 0; i < FORWARD_N; i++)
		sigaction(forward_signals[i], &sa, &old[i]);
}

void inject_release_forwarded(const struct sigaction *old)
{
	for (int i = 0; i < FORWARD_N; i++)
		sigaction(forward_signals[i], &old[i], NULL);
}


/* Waits until seconds passed (0: for ever), ^C / SIGTERM or the process's end: 1 for that. */
static int wait_duration(struct inject_transport *t, double seconds)
{
	struct sigaction old[2];
	inject_catch_interrupts(old);
	int64_t end = clock_now_ns(CLOCK_REALTIME) + (int64_t)(seconds * 1e9);
	int status, ended = 0;
	while (!interrupted && (seconds <= 0 || clock_now_ns(CLOCK_REALTIME) < end) &&
	       !(ended = t->ops->ended && t->ops->ended(t, &status)))
		nap();
	inject_release_interrupts(old);
	return ended;
}

/* A pending return through the exit payload gets its real address back. */
static int give_back_return(const struct session *x, uint64_t slot, uint64_t ret, struct zerr *err)
{
	uint64_t now, exit_at = x->plan->arch->exit_addr(x->areas[0].addr);
	if (x->t->ops->read(x->t, slot, &now, 8, err) < 0)
		return -1;
	return now == exit_at ? x->t->ops->write(x->t, slot, &ret, 8, err) : 0;
}

/*
 * The counters' fds the payload opened in the target (--event), closed:
 * the process keeps no descriptor of zond's.  Their pages stay mapped, as
 * the trampolines do: a thread stopped inside the payload may still read one.
 */
static int close_counters(const struct session *x, struct zerr *err)
{
	if (!x->event || !x->t->ops->close_fd)
		return 0;
	size_t len = INJ_PSLOT(x->n);
	for (size_t t = 0; t < INJ_THREADS; t++) {
		uint8_t head[INJ_SLOT_HDR];
		int64_t key, fd, none = -1;
		uint64_t at = x->slots + t * len;
		if (x->t->ops->read(x->t, at, head, sizeof head, err) < 0)
			return -1;
		memcpy(&key, head + INJ_T_KEY, 8);
		memcpy(&fd, head + INJ_T_FD, 8);
		if (key <= 1 || fd < 0)
			continue;
		if (x->t->ops->write(x->t, at + INJ_T_FD, &none, 8, err) < 0 ||
		    x->t->ops->close_fd(x->t, (int)fd, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * Reads the results and puts the entries and pending returns back (all
 * stopped); an entry that cannot be put back does not keep the others
 * from it (the first failure in err).
 */
static int restore(struct session *x, struct inject_result *out, struct zerr *err)
{
	struct zerr later;
	int rc = 0, busy = step_out(x);
	read_results(x, out);
	for (size_t k = 0; k < x->npatches; k++)
		if (patch_on(x, k) && unpatch_one(x, k, rc ? &later : err) < 0)
			rc = -1;
	if (rc < 0 || leave_slots(x, err) < 0 || each_frame(x, give_back_return, err) < 0 ||
	    close_counters(x, err) < 0)
		return -1;
	/* the trampoline areas and the results stay mapped until the next attach
	 * (left_record): a thread inside a relocated copy finishes there */
	leave(x, busy);
	return 0;
}

/*
 * An attached process that zond could not prepare before anything was
 * patched (no results shared yet) gets its trampoline areas and slots
 * unmapped again: each failed attempt left two executable mappings behind
 * (QA s11 F4).
 */
static void unmap_unused(struct session *x)
{
	struct zerr ignored;
	if (x->shared || !x->t->ops->unmap)
		return;
	for (size_t i = 0; i < x->nareas; i++)
		if (x->areas[i].addr && x->areas[i].len)
			x->t->ops->unmap(x->t, x->areas[i].addr, x->areas[i].len, &ignored);
	if (x->proc)
		x->t->ops->unmap(x->t, x->proc, 4096 + inject_slots_size(x->n), &ignored);
}

/* Says what happened at the end of an attachment (out->note: one line, the run kept). */
static void note(struct inject_result *out, int failed, const char *what, const struct zerr *why)
{
	if (why) /* its message names the process */
		snprintf(out->note, sizeof out->note, "%s: %s", why->msg, what);
	else
		snprintf(out->note, sizeof out->note, "process %lld: %s", (long long)out->pid,
			 what);
	out->note_failed = failed;
}

/*
 * The end of an attachment, the process running with zond's code in it:
 * stopped again, the results read, the code put back, released.  Whatever
 * fails on the way, what was measured is read (the shared memory is
 * zond's too), as much as can be is put back, the threads are let go, and
 * out->note says in one line what happened: the run is stored.  Before, a
 * failed stop gave up with the process still patched and the run lost (QA
 * s16 X2 F5), and an exec made zond write the old image's bytes into the
 * new one ("cannot write 5 bytes", F2).
 */
static void finish_attach(struct session *x, struct inject_result *out)
{
	struct inject_transport *t = x->t;
	struct zerr err, ignored;
	int status, stopped = t->ops->stop(t, &err) == 0;
	int execd = t->ops->replaced && t->ops->replaced(t);
	if (!stopped || execd) {
		read_results(x, out);
		t->ops->release(t, &ignored);
		if (execd)
			note(out, 0,
			     "it exec'd while measured: its image was replaced, nothing of zond's "
			     "is in it to put back; what was measured before the exec is stored",
			     NULL);
		else if (!(t->ops->ended && t->ops->ended(t, &status)))
			note(out, 1,
			     "its code stays patched (the measured functions run on through "
			     "zond's payload, correctly but slower); what was measured is stored",
			     &err);
		return; /* (it ended: nothing to put back, as when it ends while measured) */
	}
	if (restore(x, out, &err) < 0) {
		t->ops->release(t, &ignored);
		note(out, 1, "the rest was put back; what was measured is stored", &err);
	} else if (t->ops->release(t, &err) < 0) {
		note(out, 1, "its code was put back; what was measured is stored", &err);
	}
}

int inject_attach(const struct inject_job *job, int64_t pid, double seconds,
		  struct inject_result *out, struct zerr *err)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	if (calibrate(job, out, err) < 0)
		return -1;
	struct inject_transport *t = inject_ptrace_attach(pid, err);
	if (!t)
		return -1;
	struct session x;
	session_init(&x, t, job);
	out->pid = pid;
	out->start_ns = clock_now_ns(CLOCK_REALTIME);
	struct sigaction old[N_ATTACH_SIGNALS];
	attach_catch(old);
	int rc = prepare(&x, out, err);
	struct zerr ignored;
	struct reclaimer rec = {0};
	if (rc < 0) {
		if (x.shared && x.nareas) /* put back whatever was patched */
			restore(&x, out, &ignored);
		unmap_unused(&x);
		t->ops->release(t, &ignored);
	} else if (release_reclaiming(&x, &rec, pid, err) < 0) {
		rc = -1;
	} else if (!interrupted && wait_duration(t, seconds)) {
		/* it ended: what it measured is in the shared memory, nothing to put back */
		reclaimer_stop(&rec);
		out->duration_ns = clock_now_ns(CLOCK_REALTIME) - out->start_ns;
		read_results(&x, out);
	} else {
		reclaimer_stop(&rec);
		finish_attach(&x, out);
		out->duration_ns = clock_now_ns(CLOCK_REALTIME) - out->start_ns;
	}
	attach_release(old);
	session_end(&x);
	return rc;
}

void inject_result_free(struct inject_result *r)
{
	free(r->tids);
	free(r->pids);
	free(r->stats);
	free(r->stats2);
	free(r->edges);
	free(r->contexts);
	memset(r, 0, sizeof *r);
}

/* ---- the cyclic scenario ---------------------------------------------------- */

/* The cyclic run's state besides the session's. */
struct cycle {
	const struct inject_cyclic *c;
	struct session *x;
	size_t nsets, cur;
	int64_t set_start, end; /* end: 0 for none */
	int64_t *active_ns;
	uint64_t *periods;
	int ended, status;
};

/* Patch k's set, or SIZE_MAX for the safe point and the unwinders (always on). */
static size_t set_of(const struct cycle *y, size_t k)
{
	return k < y->c->job->npatches ? k / y->c->per_set : SIZE_MAX;
}

/* Whether the run is over: the target ended, zond was interrupted, the duration passed. */
static int cycle_over(struct cycle *y)
{
	struct inject_transport *t = y->x->t;
	if (!y->ended && t->ops->ended && t->ops->ended(t, &y->status))
		y->ended = 1;
	return y->ended || interrupted || (y->end && clock_now_ns(CLOCK_REALTIME) >= y->end);
}

/*
 * Asks the target to park at the safe point and waits until a thread does
 * (1) or the run is over (0).  Says once when a period passes without one.
 */
static int park(struct cycle *y, int64_t since, int *said)
{
	volatile uint64_t *parked = header_word(y->x, INJ_H_PARKED);
	*parked = 0;
	__atomic_store_n(header_word(y->x, INJ_H_PARK), 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(parked, __ATOMIC_SEQ_CST)) {
		if (cycle_over(y))
			return 0;
		if (!*said && clock_now_ns(CLOCK_REALTIME) - since >= (int64_t)(y->c->period * 1e9)) {
			*said = 1;
			fprintf(stderr,
				"zond inject: process %lld has not reached the safe point %s in "
				"%g s: set %zu of %zu stays measured\n",
				(long long)y->x->t->pid, y->c->safe.name, y->c->period, y->cur + 1,
				y->nsets);
		}
		nap();
	}
	return 1;
}

static void unpark(struct cycle *y)
{
	__atomic_store_n(header_word(y->x, INJ_H_PARK), 0, __ATOMIC_SEQ_CST);
	*header_word(y->x, INJ_H_PARKED) = 0;
}

/* With the target stopped at the safe point: the current set's jumps out, the next set's in. */
static int swap_sets(struct cycle *y, struct zerr *err)
{
	struct session *x = y->x;
	size_t next = (y->cur + 1) % y->nsets;
	for (size_t k = 0; k < x->npatches; k++)
		if (set_of(y, k) == y->cur && unpatch_one(x, k, err) < 0)
			return -1;
	for (size_t k = 0; k < x->npatches; k++) {
		if (set_of(y, k) == SIZE_MAX)
			continue;
		x->off[k] = set_of(y, k) != next;
		if (!x->off[k] && patch_one(x, k, err) < 0)
			return -1;
	}
	if (leave_slots(x, err) < 0 || move_threads(x, err) < 0)
		return -1;
	int64_t now = clock_now_ns(CLOCK_REALTIME);
	y->active_ns[y->cur] += now - y->set_start;
	y->set_start = now;
	y->cur = next;
	y->periods[next]++;
	return 0;
}

/*
 * An attached process's threads wait at the safe point while zond asks
 * them to: they must see zond gone (killed, QA s16 X2 F8: the service
 * parked for ever) without getppid, which only tells a started program.
 */
static int hold_lifeline(struct session *x, struct zerr *err)
{
	int fd;
	if (!x->t->ops->lifeline)
		return 0;
	if (x->t->ops->lifeline(x->t, &fd, err) < 0)
		return -1;
	((struct inject_header *)x->shared)->lifeline = (uint64_t)fd + 1;
	return 0;
}

/* The read end goes when every thread is let go (the target stopped), as it was never there. */
static void drop_lifeline(struct session *x)
{
	struct inject_header *h = x->shared;
	struct zerr ignored;
	if (h && h->lifeline)
		x->t->ops->close_fd(x->t, (int)h->lifeline - 1, &ignored);
}

/* Measures set after set until the run is over; 0, or -1 with err (the target released). */
static int cycle(struct cycle *y, struct zerr *err)
{
	struct inject_transport *t = y->x->t;
	int said = 0;
	for (;;) {
		int64_t due = y->set_start + (int64_t)(y->c->period * 1e9);
		while (!cycle_over(y) && (y->nsets == 1 || clock_now_ns(CLOCK_REALTIME) < due))
			nap();
		if (cycle_over(y) || !park(y, due, &said))
			return 0;
		if (t->ops->stop(t, err) < 0)
			return cycle_over(y) ? 0 : -1; /* it ended meanwhile */
		int rc = swap_sets(y, err);
		unpark(y);
		if (t->ops->release(t, err) < 0 || rc < 0)
			return -1;
	}
}

/*
 * The end: parked at the safe point if the target reaches it within a
 * period (so every set saw whole passes), the results read, the code put
 * back (unless the target is gone) and the target released.
 */
static int cycle_end(struct cycle *y, struct inject_result *all, struct zerr *err)
{
	struct session *x = y->x;
	struct inject_transport *t = x->t;
	int rc = 0, said = 1;
	if (!y->ended) {
		int64_t now = clock_now_ns(CLOCK_REALTIME);
		y->end = now + (int64_t)(y->c->period * 1e9);
		interrupted = 0;
		park(y, now, &said);
	}
	if (!y->ended && t->ops->stop(t, err) == 0) {
		unpark(y); /* a thread parked leaves the safe point in restore's steps (step_out) */
		rc = restore(x, all, err);
		drop_lifeline(x);
		struct zerr ignored;
		if (t->ops->release(t, rc == 0 ? err : &ignored) < 0)
			rc = -1;
	} else {
		read_results(x, all);
	}
	y->active_ns[y->cur] += clock_now_ns(CLOCK_REALTIME) - y->set_start;
	return rc;
}

/* Set s's part of the results of every set (records from `from`, k of them). */
static void split_set(const struct inject_result *all, size_t from, size_t k,
		      struct inject_result *out)
{
	*out = *all;
	out->n = k;
	out->nthreads = out->nedges = 0;
	out->open = 0;
	out->tids = zp_xcalloc(all->nthreads + 1, sizeof *out->tids);
	out->pids = zp_xcalloc(all->nthreads + 1, sizeof *out->pids);
	out->stats = zp_xcalloc((all->nthreads + 1) * (k ? k : 1), sizeof *out->stats);
	out->edges = NULL;
	out->contexts = NULL; /* a path may cross sets: the sets keep call edges only */
	out->ncontexts = 0;
	size_t *thread_of = zp_xcalloc(all->nthreads + 1, sizeof *thread_of);
	for (size_t t = 0; t < all->nthreads; t++) {
		uint64_t calls = 0;
		for (size_t j = 0; j < k; j++)
			calls += all->stats[t * all->n + from + j].calls;
		thread_of[t] = SIZE_MAX;
		if (!calls)
			continue; /* this set's functions never ran on it */
		thread_of[t] = out->nthreads;
		out->tids[out->nthreads] = all->tids[t];
		out->pids[out->nthreads] = all->pids ? all->pids[t] : 0;
		memcpy(&out->stats[out->nthreads * k], &all->stats[t * all->n + from],
		       k * sizeof *out->stats);
		out->nthreads++;
	}
	for (size_t i = 0; i < all->nedges; i++) {
		struct inject_edge e = all->edges[i];
		int caller_in =
			e.caller == INJECT_NO_CALLER || (e.caller >= from && e.caller < from + k);
		if (e.callee < from || e.callee >= from + k || !caller_in ||
		    thread_of[e.thread] == SIZE_MAX)
			continue; /* a call across a swap: no edge */
		e.thread = thread_of[e.thread];
		e.callee -= from;
		if (e.caller != INJECT_NO_CALLER)
			e.caller -= from;
		out->edges = zp_xrealloc(out->edges, (out->nedges + 1) * sizeof *out->edges);
		out->edges[out->nedges++] = e;
	}
	free(thread_of);
}

void inject_result_sets(const struct inject_result *all, size_t per_set, size_t nsets,
			const int64_t *active_ns, const uint64_t *periods,
			struct inject_result **sets)
{
	*sets = zp_xcalloc(nsets + 1, sizeof **sets);
	for (size_t s = 0; s < nsets; s++) {
		size_t from = s * per_set;
		size_t k = all->n - from < per_set ? all->n - from : per_set;
		split_set(all, from, k, &(*sets)[s]);
		(*sets)[s].duration_ns = active_ns[s];
		(*sets)[s].periods = periods[s];
	}
}

/* The target of a cyclic run, started (run to its entry point) or attached. */
static struct inject_transport *cyclic_target(const struct inject_cyclic *c, char *const argv[],
					      struct zerr *err)
{
	return c->pid ? inject_ptrace_attach(c->pid, err) : inject_ptrace_start(argv, err);
}

int inject_cyclic(const struct inject_cyclic *c, char *const argv[], struct inject_result **sets,
		  size_t *nsets, int *status, struct zerr *err)
{
	const struct inject_job *job = c->job;
	struct inject_result all;
	memset(&all, 0, sizeof all);
	*sets = NULL;
	*nsets = 0;
	*status = -1;
	if (calibrate(job, &all, err) < 0)
		return -1;
	struct inject_transport *t = cyclic_target(c, argv, err);
	if (!t)
		return -1;
	struct inject_job with_safe = *job;
	struct inject_patch *pt = zp_xcalloc(job->npatches + 1, sizeof *pt);
	memcpy(pt, job->patches, job->npatches * sizeof *pt);
	pt[job->npatches] = c->safe;
	pt[job->npatches].kind = INJECT_SAFE;
	with_safe.patches = pt;
	with_safe.npatches = job->npatches + 1;
	struct session x;
	session_init(&x, t, &with_safe);
	x.started = !c->pid;
	free(pt);
	struct cycle y = {c, &x, (job->npatches + c->per_set - 1) / c->per_set, 0, 0, 0, NULL, NULL,
			  0, -1};
	y.active_ns = zp_xcalloc(y.nsets + 1, sizeof *y.active_ns);
	y.periods = zp_xcalloc(y.nsets + 1, sizeof *y.periods);
	x.noff = job->npatches;
	x.off = zp_xcalloc(x.noff + 1, 1);
	for (size_t k = 0; k < job->npatches; k++)
		x.off[k] = set_of(&y, k) != 0;
	all.pid = t->pid;
	all.start_ns = clock_now_ns(CLOCK_REALTIME);
	struct sigaction old[2];
	inject_catch_interrupts(old);
	struct zerr ignored;
	struct reclaimer rec = {0};
	int rc = 0;
	if ((!c->pid && run_to_entry(&x, err) < 0) || prepare(&x, &all, err) < 0 ||
	    (c->pid && hold_lifeline(&x, err) < 0)) {
		if (c->pid && x.shared && x.nareas)
			restore(&x, &all, &ignored); /* put back whatever was patched */
		if (c->pid && x.shared)
			drop_lifeline(&x);
		if (c->pid)
			unmap_unused(&x);
		t->ops->release(t, &ignored);
		rc = -1;
	} else if (release_reclaiming(&x, &rec, t->pid, err) < 0) {
		rc = -1;
	} else {
		y.set_start = clock_now_ns(CLOCK_REALTIME);
		y.end = c->duration > 0 ? y.set_start + (int64_t)(c->duration * 1e9) : 0;
		y.periods[0] = 1;
		rc = cycle(&y, err);
		reclaimer_stop(&rec);
		struct zerr end_err;
		if (cycle_end(&y, &all, rc == 0 ? err : &end_err) < 0)
			rc = -1;
	}
	inject_release_interrupts(old);
	if (!c->pid && !y.ended && t->ops->wait(t, &y.status, rc == 0 ? err : &ignored) == 0)
		y.ended = 1;
	*status = c->pid ? -1 : y.status;
	all.status = *status;
	all.duration_ns = clock_now_ns(CLOCK_REALTIME) - all.start_ns;
	if (all.tids) {
		inject_result_sets(&all, c->per_set, y.nsets, y.active_ns, y.periods, sets);
		*nsets = y.nsets;
	}
	inject_result_free(&all);
	free(y.active_ns);
	free(y.periods);
	session_end(&x);
	return rc;
}
