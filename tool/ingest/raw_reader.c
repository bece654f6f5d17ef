/*
 * raw_reader.c - reads a raw file of the in-process runtime (runtime/core/
 * raw.h, doc/raw-format.md) into a profile.
 *
 * The file may come from a process that crashed or still runs, so nothing in
 * it is trusted: every table is copied out of the file first and checked
 * there, every index and string offset before it is used.  Copied with
 * pread, never through a mapping: the file is sparse, and on a full tmpfs a
 * page fault on a hole (a thread slot or contexts the runtime had no room
 * for) is a SIGBUS, where pread reads zeros and allocates nothing.  Open frames are
 * then closed the way the runtime would have closed them, at the thread's
 * last known time.
 */
#include "raw_reader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raw.h"
#include "symbols/symbols.h"
#include "util/path.h"

/* What one file is, once checked. */
struct raw {
	const char *path;
	int fd;
	int read_errno; /* a read that failed (copy_out), 0 if none */
	uint64_t size;
	struct zr_header h;
	int64_t pid; /* what its threads are filed under (raw_process_ids) */
	struct zr_module *modules; /* h.n_modules, checked */
	char *strings;
	uint32_t strings_len; /* usable bytes of the pool */
	struct symbols *syms;
	int event;   /* index of "time", -1 without exact times */
	int cost;    /* index of "probe-cost" (what the time correction took out), -1 */
	int cpu;     /* index of "cpu-time" (sampled), -1 without samples */
	int samples; /* index of "samples", -1 without samples */
	/* sampled time: the empty hooks' cost per call (zr_header.hook_pair_ticks), in
	   1/1024 ns: rounded, a context's share of it is off by at most 0.5 us per
	   10^6 calls */
	uint64_t hook_ns1024;
	/* inlined callees' call sites found so far, by (pc, callee): every thread
	   of the file asks for the same ones (inlined_site) */
	struct inline_memos *memo;
};

struct inline_memo {
	uint64_t pc, callee; /* run-time; pc 0: a free entry */
	uint64_t site;
	int line; /* 0: not an inlined call */
};

struct inline_memos {
	struct inline_memo *m;
	size_t size, used; /* a power of two, at most half used */
};

/* One thread's tables, copied out of the file. */
struct raw_thread {
	uint64_t off; /* file offset of the slot, for messages */
	struct zr_thread info;
	struct zr_func *funcs;
	struct zr_edge *edges;
	struct zr_frame *stack;
	struct zr_context *contexts;
	struct zr_sample_pc *sample_pcs; /* h.max_sample_pcs entries */
	struct zr_event *events;         /* the timeline's kept events, oldest first */
	uint32_t n_events;
	uint64_t events_dropped; /* offered but not kept (raw.h zr_thread.events_*) */
	uint32_t n_frames, n_contexts;
	uint32_t *nodes; /* node id per function, ZP_NONE for filtered ones */
	uint32_t *edge_ids; /* zp_edge id per edge, ZP_NONE when not added */
	/*
	 * Measured time in ns (fold_contexts): per function self [i] and
	 * inclusive [n_funcs + i], per edge inclusive [2 * n_funcs + e], per
	 * context inclusive [2 * n_funcs + n_edges + c]; each the sum of its
	 * contexts' ns and its own, so that a function's time is exactly the
	 * sum over its stacks (exports, viewers).  Then per function its
	 * shortest and longest call [2 * n_funcs + n_edges + n_contexts + 2i,
	 * + 1], those of its contexts as they show them (context_extremes_ns).
	 */
	uint64_t *ns;
	/*
	 * What the correction took out (probe-cost) in ns (fold_contexts): per
	 * function self [i] and inclusive [n_funcs + i], per edge inclusive
	 * [2 * n_funcs + e], per context inclusive [2 * n_funcs + n_edges + c];
	 * self and inclusive sums of the contexts' own as for the time, so
	 * that every figure of the event adds up over the stacks too.
	 */
	uint64_t *cost_ns;
	struct edge_site *sites; /* per edge, its call site once named (edge_site) */
};

/* An edge's call site in the model's terms (raw_thread.sites). */
struct edge_site {
	uint64_t site; /* link-time, inside the call; 0 unknown */
	int line;      /* its source line, 0 unknown */
	int named;     /* 1 once site and line are set */
};

/*
 * len bytes at off of fd into buf; 0, or -1 when they are not all there
 * (errno 0: the file ends before).  A hole reads as zeros.
 */
static int read_at(int fd, uint64_t off, void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static int bad(const struct raw *r, uint64_t off, const char *what, struct zerr *err)
{
	return zerr_set(err, "%s: offset %" PRIu64 ": %s", r->path, off, what);
}

/* [off, off + n * size) lies inside a region of `limit` bytes (no overflow). */
static int fits(uint64_t off, uint64_t n, uint64_t size, uint64_t limit)
{
	if (off > limit || (size && n > (limit - off) / size))
		return 0;
	return off % 8 == 0;
}

/* ---- header ------------------------------------------------------------ */

static int check_sections(const struct raw *r, struct zerr *err)
{
	const struct zr_header *h = &r->h;
	if (!fits(h->modules_off, h->max_modules, sizeof(struct zr_module), r->size) ||
	    h->modules_off < h->header_bytes)
		return bad(r, offsetof(struct zr_header, modules_off),
			   "module table out of the file", err);
	if (!fits(h->strings_off, h->string_bytes, 1, r->size) || h->strings_off < h->header_bytes)
		return bad(r, offsetof(struct zr_header, strings_off),
			   "string pool out of the file", err);
	if (!fits(h->threads_off, h->max_threads, h->thread_bytes, r->size) ||
	    h->threads_off < h->header_bytes || h->thread_bytes % 8)
		return bad(r, offsetof(struct zr_header, threads_off),
			   "thread slots out of the file", err);
	uint64_t slot = h->thread_bytes;
	if (h->funcs_off < sizeof(struct zr_thread) ||
	    !fits(h->funcs_off, h->max_funcs, sizeof(struct zr_func), slot) ||
	    !fits(h->edges_off, h->max_edges, h->edge_bytes, slot) ||
	    !fits(h->stack_off, h->max_depth, sizeof(struct zr_frame), slot) ||
	    !fits(h->contexts_off, h->max_contexts, sizeof(struct zr_context), slot) ||
	    !fits(h->sample_pcs_off, h->max_sample_pcs, sizeof(struct zr_sample_pc), slot) ||
	    !fits(h->events_off, h->max_events, sizeof(struct zr_event), slot))
		return bad(r, offsetof(struct zr_header, thread_bytes),
			   "thread slot layout out of the slot", err);
	if (h->edge_bytes < ZR_EDGE_V4_BYTES || h->edge_bytes % 8)
		return bad(r, offsetof(struct zr_header, edge_bytes), "bad edge record size", err);
	if (h->max_sample_pcs & (h->max_sample_pcs - 1))
		return bad(r, offsetof(struct zr_header, max_sample_pcs),
			   "sample pc table size not a power of two", err);
	if (h->n_modules > h->max_modules)
		return bad(r, offsetof(struct zr_header, n_modules), "more modules than room", err);
	if (h->n_threads > h->max_threads)
		return bad(r, offsetof(struct zr_header, n_threads), "more threads than slots",
			   err);
	return 0;
}

/* r->h, copied from a file of r->size bytes, describes a file that size: magic, sizes, sections. */
static int check_header_fields(const struct raw *r, struct zerr *err)
{
	const struct zr_header *h = &r->h;
	if (memcmp(h->magic, ZR_MAGIC, sizeof h->magic) != 0)
		return zerr_set(err, "%s: not a zond raw file (bad magic)", r->path);
	if (h->version != ZR_VERSION)
		return bad(r, offsetof(struct zr_header, version),
			   "unknown raw format version (written by another zond)", err);
	/* version 4's first writers wrote 312 bytes (raw.h ZR_HEADER_V4_BYTES) */
	if (h->header_bytes < ZR_HEADER_V4_BYTES || h->header_bytes > h->file_bytes)
		return bad(r, offsetof(struct zr_header, header_bytes), "bad header size", err);
	if (h->file_bytes != r->size)
		return zerr_set(err,
				"%s: truncated or padded: %" PRIu64 " bytes, header says %" PRIu64,
				r->path, r->size, h->file_bytes);
	if (!(h->ticks_per_sec > 0 && h->ticks_per_sec < 1e13))
		return bad(r, offsetof(struct zr_header, ticks_per_sec), "bad clock frequency",
			   err);
	if (h->overhead_inner_ticks > h->overhead_pair_ticks)
		return bad(r, offsetof(struct zr_header, overhead_inner_ticks),
			   "probe cost inside a call exceeds the whole probe cost", err);
	/* a call's empty hooks cost a few ns: a millisecond is no measurement */
	if (!(h->hook_pair_ticks >= 0 && h->hook_pair_ticks * 1e9 / h->ticks_per_sec < 1e6))
		return bad(r, offsetof(struct zr_header, hook_pair_ticks),
			   "bad cost of the empty hooks", err);
	return check_sections(r, err);
}

/*
 * n records of size at off (checked to lie inside the file) in fresh memory;
 * a read that fails leaves zeros and its errno in r->read_errno (-1: the
 * file ended before).
 */
static void *copy_out(struct raw *r, uint64_t off, uint64_t n, size_t size)
{
	void *dst = zp_xcalloc(n ? n : 1, size);
	if (n && read_at(r->fd, off, dst, n * size) < 0 && !r->read_errno)
		r->read_errno = errno ? errno : -1;
	return dst;
}

/* Why a read of r failed (r->read_errno). */
static const char *read_error(const struct raw *r)
{
	return r->read_errno > 0 ? strerror(r->read_errno) : "the file ends early";
}

/*
 * A header of an older writer (header_bytes 312): the fields it did not have
 * are 0, but for edge_bytes, the size of its edges (without pc).
 */
static void old_header(struct zr_header *h)
{
	if (h->header_bytes >= ZR_HEADER_V4_BYTES && h->header_bytes < sizeof *h)
		memset((char *)h + h->header_bytes, 0, sizeof *h - h->header_bytes);
	if (h->header_bytes >= ZR_HEADER_V4_BYTES &&
	    h->header_bytes <= offsetof(struct zr_header, edge_bytes))
		h->edge_bytes = ZR_EDGE_V4_BYTES;
}

/*
 * The n edges of a slot at off, each edge_bytes long in the file: the
 * fields a shorter record lacks (an older writer's, without pc) are 0.
 */
static struct zr_edge *copy_edges(struct raw *r, uint64_t off, uint32_t n)
{
	size_t size = r->h.edge_bytes;
	if (size == sizeof(struct zr_edge))
		return copy_out(r, off, n, size);
	char *in = copy_out(r, off, n, size);
	struct zr_edge *e = zp_xcalloc(n ? n : 1, sizeof *e);
	for (uint32_t i = 0; i < n; i++)
		memcpy(&e[i], in + (size_t)i * size, size < sizeof *e ? size : sizeof *e);
	free(in);
	return e;
}

static int check_header(struct raw *r, struct zerr *err)
{
	if (r->size < sizeof r->h)
		return zerr_set(err, "%s: truncated: %" PRIu64 " bytes, no room for a header",
				r->path, r->size);
	if (read_at(r->fd, 0, &r->h, sizeof r->h) < 0)
		return zerr_set(err, "%s: cannot read its header: %s", r->path,
				errno ? strerror(errno) : "the file ends early");
	old_header(&r->h);
	return check_header_fields(r, err);
}

/* The string at off, or NULL when off or its terminator lies outside the pool. */
static const char *string_at(const struct raw *r, uint32_t off)
{
	if (off >= r->strings_len || !memchr(r->strings + off, 0, r->strings_len - off))
		return NULL;
	return r->strings + off;
}

static int check_modules(struct raw *r, struct zerr *err)
{
	const struct zr_header *h = &r->h;
	r->strings_len = h->string_used < h->string_bytes ? h->string_used : h->string_bytes;
	r->modules = copy_out(r, h->modules_off, h->n_modules, sizeof *r->modules);
	r->strings = copy_out(r, h->strings_off, r->strings_len, 1);
	if (r->read_errno)
		return zerr_set(err, "%s: cannot read its modules: %s", r->path, read_error(r));
	for (uint32_t i = 0; i < h->n_modules; i++) {
		const struct zr_module *m = &r->modules[i];
		uint64_t off = h->modules_off + i * sizeof *m;
		if (m->start >= m->end || !string_at(r, m->path))
			return bad(r, off, "bad module record", err);
	}
	return 0;
}

/* ---- threads ----------------------------------------------------------- */

static void free_thread(struct raw_thread *t)
{
	free(t->funcs);
	free(t->edges);
	free(t->stack);
	free(t->contexts);
	free(t->sample_pcs);
	free(t->events);
	free(t->nodes);
	free(t->edge_ids);
	free(t->ns);
	free(t->cost_ns);
	free(t->sites);
}

/*
 * Every used (context, pc) entry names a context, and a context's entries
 * add up to at most its samples (the rest are unplaced).
 */
static int check_sample_pcs(const struct raw *r, const struct raw_thread *t, struct zerr *err)
{
	const struct zr_header *h = &r->h;
	if (t->info.n_sample_pcs > h->max_sample_pcs)
		return bad(r, t->off + offsetof(struct zr_thread, n_sample_pcs),
			   "more sample pcs than room", err);
	uint64_t *placed = zp_xcalloc(t->n_contexts + 1, sizeof *placed);
	int rc = 0;
	for (uint32_t i = 0; i < h->max_sample_pcs && rc == 0; i++) {
		const struct zr_sample_pc *e = &t->sample_pcs[i];
		if (!e->samples)
			continue;
		uint64_t off = t->off + h->sample_pcs_off + i * sizeof *e;
		if (e->ctx >= t->n_contexts)
			rc = bad(r, off, "sample pc names a context outside the table", err);
		else if ((placed[e->ctx] += e->samples) > t->contexts[e->ctx].samples ||
			 placed[e->ctx] < e->samples)
			rc = bad(r, off, "sample pcs of a context exceed its samples", err);
	}
	free(placed);
	return rc;
}

static int check_thread(const struct raw *r, struct raw_thread *t, struct zerr *err)
{
	const struct zr_header *h = &r->h;
	const struct zr_thread *ti = &t->info;
	if (ti->n_funcs > h->max_funcs || ti->n_edges > h->max_edges ||
	    ti->n_contexts > h->max_contexts)
		return bad(r, t->off, "thread tables fuller than their room", err);
	for (uint32_t i = 0; i < ti->n_funcs; i++) {
		const struct zr_func *f = &t->funcs[i];
		uint64_t off = t->off + h->funcs_off + i * sizeof *f;
		if ((f->flags & ZR_FUNC_BLOCK) &&
		    (!string_at(r, f->name) || !string_at(r, f->file)))
			return bad(r, off, "block names a string outside the pool", err);
		if ((f->flags & (ZR_FUNC_NAMED | ZR_FUNC_MODULE)) && !string_at(r, f->name))
			return bad(r, off, "function names a string outside the pool", err);
		if (f->calls && f->min != UINT64_MAX && f->min > f->max)
			return bad(r, off, "function's shortest call is longer than its longest",
				   err);
	}
	for (uint32_t i = 0; i < ti->n_edges; i++) {
		const struct zr_edge *e = &t->edges[i];
		if ((e->caller != ZR_NONE && e->caller >= ti->n_funcs) || e->callee >= ti->n_funcs)
			return bad(r, t->off + h->edges_off + i * h->edge_bytes,
				   "edge names a function outside the table", err);
	}
	for (uint32_t i = 0; i < t->n_frames; i++) {
		const struct zr_frame *fr = &t->stack[i];
		if (fr->func >= ti->n_funcs || (fr->edge != ZR_NONE && fr->edge >= ti->n_edges) ||
		    (fr->ctx != ZR_NONE && fr->ctx >= ti->n_contexts))
			return bad(r, t->off + h->stack_off + i * sizeof *fr,
				   "stack frame names a function, edge or context outside the tables",
				   err);
	}
	for (uint32_t i = 0; i < t->n_contexts; i++) {
		const struct zr_context *c = &t->contexts[i];
		if ((c->parent != ZR_NONE && c->parent >= i) || c->func >= ti->n_funcs ||
		    (c->edge != ZR_NONE && c->edge >= ti->n_edges))
			return bad(r, t->off + h->contexts_off + i * sizeof *c,
				   "context names a parent, function or edge outside the tables", err);
	}
	int switches = (h->timeline_flags & ZR_TIMELINE_SWITCHES) != 0;
	for (uint32_t i = 0; i < t->n_events; i++) {
		const struct zr_event *e = &t->events[i];
		if (switches && (e->depth & ZR_EVENT_SWITCH)) {
			/* a stack switch: func is a stack's id */
			if ((e->depth & ~(ZR_EVENT_SWITCH | ZR_SWITCH_RESUME | ZR_SWITCH_LOST)) ||
			    ((e->depth & ZR_SWITCH_LOST) && !(e->depth & ZR_SWITCH_RESUME)))
				return bad(r, t->off + h->events_off,
					   "timeline event is a stack switch of no known kind", err);
			continue;
		}
		uint32_t flags = ZR_EVENT_EXIT | (switches ? ZR_EVENT_CONTINUED : 0);
		if (e->func >= ti->n_funcs || (e->depth & ~flags) >= h->max_depth ||
		    ((e->depth & ZR_EVENT_CONTINUED) && (e->depth & ZR_EVENT_EXIT)))
			return bad(r, t->off + h->events_off,
				   "timeline event names a function or depth outside the tables",
				   err);
	}
	return check_sample_pcs(r, t, err);
}

/*
 * The ring's kept events, oldest first.  A ring that overwrote its oldest
 * events (ZR_TIMELINE_KEEP_NEWEST) starts at the slot written next: the
 * event the thread was writing there when it died may be half written, so
 * that slot is never read (counted as dropped).
 */
static void load_events(struct raw *r, struct raw_thread *t)
{
	const struct zr_header *h = &r->h;
	uint64_t written = t->info.events_written, max = h->max_events;
	uint64_t first = 0, n = written < max ? written : max;
	if (max && (h->timeline_flags & ZR_TIMELINE_KEEP_NEWEST)) {
		/* the last max - 1 (the runtime's ring has one more than asked), never the
		   slot written next, at written % max */
		n = written < max - 1 ? written : max - 1;
		first = written - n;
	}
	t->n_events = (uint32_t)n;
	t->events_dropped = written - n + t->info.events_lost;
	uint64_t ring = t->off + h->events_off, size = sizeof *t->events;
	/* the ring's end, then its start: two reads */
	uint64_t tail = n && first % max + n > max ? max - first % max : n;
	t->events = zp_xcalloc(n + 1, size);
	if ((tail && read_at(r->fd, ring + first % max * size, t->events, tail * size) < 0) ||
	    (n > tail && read_at(r->fd, ring, t->events + tail, (n - tail) * size) < 0))
		r->read_errno = r->read_errno ? r->read_errno : errno ? errno : -1;
}

static int load_thread(struct raw *r, uint32_t slot, struct raw_thread *t, struct zerr *err)
{
	const struct zr_header *h = &r->h;
	memset(t, 0, sizeof *t);
	t->off = h->threads_off + slot * h->thread_bytes;
	if (read_at(r->fd, t->off, &t->info, sizeof t->info) < 0)
		return zerr_set(err, "%s: offset %" PRIu64 ": cannot read a thread slot: %s",
				r->path, t->off, errno ? strerror(errno) : "the file ends early");
	const struct zr_thread *ti = &t->info;
	if (!ti->used)
		return 0;
	uint32_t n_funcs = ti->n_funcs < h->max_funcs ? ti->n_funcs : h->max_funcs;
	uint32_t n_edges = ti->n_edges < h->max_edges ? ti->n_edges : h->max_edges;
	t->n_frames = ti->depth < h->max_depth ? ti->depth : h->max_depth;
	t->n_contexts = ti->n_contexts < h->max_contexts ? ti->n_contexts : h->max_contexts;
	t->funcs = copy_out(r, t->off + h->funcs_off, n_funcs, sizeof *t->funcs);
	t->edges = copy_edges(r, t->off + h->edges_off, n_edges);
	t->sites = zp_xcalloc(n_edges ? n_edges : 1, sizeof *t->sites);
	t->stack = copy_out(r, t->off + h->stack_off, t->n_frames, sizeof *t->stack);
	t->contexts = copy_out(r, t->off + h->contexts_off, t->n_contexts, sizeof *t->contexts);
	t->sample_pcs = copy_out(r, t->off + h->sample_pcs_off, h->max_sample_pcs,
				 sizeof *t->sample_pcs);
	load_events(r, t);
	if (r->read_errno)
		return zerr_set(err, "%s: offset %" PRIu64 ": cannot read a thread slot: %s",
				r->path, t->off, read_error(r));
	return check_thread(r, t, err);
}

static uint64_t sub_clamp(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * When the thread was last seen alive: its end, the process image's end (its
 * exit, or for ZR_EXECED the exec, which ends every thread of the image), or
 * its last probe.
 */
static uint64_t last_known_ticks(const struct raw *r, const struct raw_thread *t)
{
	uint64_t last = t->info.end_ticks ? t->info.end_ticks : r->h.end_ticks;
	/* on the thread's frame clock, as its frames' times (raw.h ZR_FLAG_PAID_EVERY_CALL) */
	if (r->h.flags & ZR_FLAG_PAID_EVERY_CALL)
		last = sub_clamp(last, t->info.paid_ticks);
	if (t->info.last_ticks > last)
		last = t->info.last_ticks;
	for (uint32_t i = 0; i < t->n_frames; i++)
		if (t->stack[i].enter_ticks > last)
			last = t->stack[i].enter_ticks;
	return last;
}

/*
 * Closes the frames left open (crash, kill, exec, exit from deep inside, a
 * bare-metal run read while it goes on) as the runtime would: at the end
 * when the image said when it ended, else at the last thing seen, their
 * time so far in the sums but not in min and max (calls cut short, of no
 * known length; and a forked child's continued frames, pieces of its
 * parent's calls, also when the image said when it ended).  The calls so
 * cut short: how many.
 */
static uint32_t close_open_frames(const struct raw *r, struct raw_thread *t)
{
	uint64_t now = last_known_ticks(r, t);
	int ended = r->h.end_ticks != 0;
	/*
	 * The cost the thread's own calls were corrected by beyond what was kept
	 * out where it was paid (raw.h zr_thread.paid_pair_ticks)
	 */
	uint64_t pair = !(r->h.flags & ZR_FLAG_PAID_EVERY_CALL) &&
					t->info.paid_pair_ticks >= r->h.overhead_inner_ticks
				? t->info.paid_pair_ticks
				: r->h.overhead_pair_ticks;
	for (uint32_t d = t->n_frames; d > 0; d--) {
		struct zr_frame *fr = &t->stack[d - 1];
		/*
		 * A frame the runtime had opened but not yet given its start (the
		 * clock is read last: the process was killed in between) ran for
		 * no time we know: zr_frame_charge closes it untimed, never charged
		 * the clock's whole count since boot.  0 is that mark
		 * (zrt_open_frame): a start before the header's is no mark, the
		 * bare-metal runtime moves the first frame's start back over the
		 * prologue that ran before it.
		 */
		struct zr_edge *edge = fr->edge != ZR_NONE ? &t->edges[fr->edge] : NULL;
		struct zr_context *ctx = fr->ctx != ZR_NONE ? &t->contexts[fr->ctx] : NULL;
		zr_frame_charge(fr, d > 1 ? fr - 1 : NULL, &t->funcs[fr->func], edge, ctx, now,
				r->h.overhead_inner_ticks, pair,
				ended && d - 1 >= t->info.continued_frames);
	}
	return ended ? 0 : t->n_frames;
}

/*
 * ZR_FLAG_BOUND_SUMS: the runtime charged every call its estimate, signed
 * (raw.h zr_frame_charge), so that the sums are unbiased.  A context whose
 * self comes out below 1 tick per call (code that costs about what the
 * correction took) is raised to that, and every context above it by as
 * much: no caller's inclusive below its callees', no code that ran without
 * time; what was given back comes off its overhead.  Records counted on no
 * context are bounded alike, by themselves.  The bare-metal runtime's sums
 * are exact under -icount, where every call runs an instruction of its own
 * at least and nothing is raised; with a clock that is not instructions
 * (QEMU without -icount) a callee's prologue and epilogue, counted in
 * instructions, can exceed its caller's interval and a sum fall below 0
 * (printed as 2^64 less a little, QA s13 U F2): bounded alike.  The records
 * raised.
 */
static uint64_t bound_sums(struct raw_thread *t)
{
	uint64_t n = 0;
	uint64_t *raised = zp_xcalloc(t->n_contexts + 1, sizeof *raised);
	for (uint32_t i = t->n_contexts; i-- > 0;) {
		struct zr_context *c = &t->contexts[i];
		/* no call of it timed (libcalls' counted-only functions: dlopen,
		   setjmp...): no time to bound, none is made up */
		int64_t self = (int64_t)c->self,
			floor = c->min == UINT64_MAX ? 0 : (int64_t)c->calls;
		uint64_t up = self < floor ? (uint64_t)floor - (uint64_t)self : 0; /* no overflow */
		n += up != 0;
		c->self += up;
		c->overhead -= up;
		raised[i] += up;
		c->incl += raised[i];
		if (c->parent != ZR_NONE && c->parent < t->n_contexts)
			raised[c->parent] += raised[i];
		/* what was raised was its calls': no mean call dearer than the dearest */
		if (raised[i] && c->calls && c->min != UINT64_MAX) {
			uint64_t mean = c->incl / c->calls;
			if (c->max < mean)
				c->max = mean;
			if (c->calls == 1)
				c->min = c->max = c->incl;
		}
	}
	free(raised);
	for (uint32_t i = 0; i < t->info.n_funcs; i++) {
		struct zr_func *f = &t->funcs[i];
		int64_t self = (int64_t)f->self,
			floor = f->min == UINT64_MAX ? 0 : (int64_t)f->calls;
		if (self < floor) {
			n++;
			f->overhead -= (uint64_t)floor - (uint64_t)self;
			f->self = (uint64_t)floor;
		}
		if ((int64_t)f->incl < (int64_t)f->self)
			f->incl = f->self;
	}
	for (uint32_t i = 0; i < t->info.n_edges; i++)
		if ((int64_t)t->edges[i].incl < (int64_t)t->edges[i].calls) {
			n += (int64_t)t->edges[i].incl < 0;
			t->edges[i].incl = t->edges[i].calls;
		}
	return n;
}

/* ---- naming ------------------------------------------------------------ */

/*
 * The open module holding addr.  A closed one is never taken: another object
 * may have been loaded at its addresses since.
 */
static const struct zr_module *module_of(const struct raw *r, uint64_t addr)
{
	for (uint32_t i = 0; i < r->h.n_modules; i++)
		if (addr >= r->modules[i].start && addr < r->modules[i].end &&
		    !(r->modules[i].flags & ZR_MODULE_CLOSED))
			return &r->modules[i];
	return NULL;
}

/* A function's module: the record it names (zr_func.module), or the one holding its address. */
static const struct zr_module *func_module(const struct raw *r, const struct zr_func *f)
{
	if (f->module && f->module <= r->h.n_modules)
		return &r->modules[f->module - 1];
	return module_of(r, f->addr & ~ZR_CLOSED_BIT);
}

static uint32_t block_node(struct zp_profile *p, const struct raw *r, const struct zr_func *f)
{
	const char *name = string_at(r, f->name);
	return profile_node(p, ZP_BLOCK, *name ? name : "(block)", "", string_at(r, f->file),
			    (int)f->line, 0);
}

/*
 * A function is named by its symbol; code no symbol covers gets a name that
 * stays the same from run to run: its link-time address and module.
 */
static uint32_t function_node(struct zp_profile *p, const struct raw *r, const struct zr_func *f)
{
	const struct zr_module *m = func_module(r, f);
	uint64_t addr = f->addr & ~ZR_CLOSED_BIT;
	char name[64];
	if (!m) {
		snprintf(name, sizeof name, "0x%" PRIx64 "@?", addr);
		return profile_node(p, ZP_FUNCTION, name, "", "", 0, addr);
	}
	const char *path = string_at(r, m->path);
	uint64_t link = addr - m->bias;
	struct symbol sym = {0};
	struct zerr ignored;
	if (r->syms && symbols_lookup(r->syms, path, link, &sym, &ignored) == 0 && sym.name) {
		const char *file = "";
		int line = 0;
		if (symbols_decl_line(r->syms, path, sym.start, &file, &line, &ignored) < 0)
			file = "", line = 0;
		return profile_node(p, ZP_FUNCTION, sym.name, path, file, line, sym.start);
	}
	char unnamed[PATH_MAX];
	snprintf(unnamed, sizeof unnamed, "0x%" PRIx64 "@%s", link, path_base(path));
	return profile_node(p, ZP_FUNCTION, unnamed, path, "", 0, link);
}

/*
 * A function the runtime named itself (a library function, by the symbol it
 * was bound by): that name, demangled, wins over whatever symbol covers the
 * address, which for an IFUNC is the chosen variant (__strlen_avx2 for strlen).
 */
static uint32_t named_node(struct zp_profile *p, const struct raw *r, const struct zr_func *f)
{
	const char *name = string_at(r, f->name);
	const struct zr_module *m = func_module(r, f);
	uint64_t addr = f->addr & ~ZR_CLOSED_BIT;
	const char *path = m ? string_at(r, m->path) : "";
	addr = m ? addr - m->bias : addr;
	char *cxx = symbols_demangle(name);
	uint32_t node = profile_node(p, ZP_FUNCTION, cxx ? cxx : name, path, "", 0, addr);
	free(cxx);
	return node;
}

/* The call site as an address inside the call instruction (return address - 1). */
static void name_site(const struct raw *r, uint64_t ret, uint64_t *site, int *line)
{
	const struct zr_module *m = ret ? module_of(r, ret) : NULL;
	if (!m)
		return;
	const char *path = string_at(r, m->path), *file;
	*site = ret - 1 - m->bias;
	struct zerr ignored;
	if (!r->syms || symbols_line(r->syms, path, *site, &file, line, &ignored) < 0)
		*line = 0;
}

/*
 * An inlined callee's call site: GCC keeps the hooks of a function it
 * inlines, but passes them the call site of the physical frame (the
 * enclosing function's return address in ITS caller), so e->site names a
 * line of the caller's caller.  The entry probe's own return address
 * (e->pc) lies in the inlined body, inside the caller's code: when it is
 * outside the callee's own (out-of-line) code and DWARF has it in an
 * inlined instance of the callee, the call is where DWARF says that
 * instance was called from.  0 when e is not such a call.
 */
static int find_inlined_site(const struct raw *r, const struct zr_func *f, uint64_t run_pc,
			     uint64_t *site, int *line)
{
	const struct zr_module *m = module_of(r, run_pc);
	if (!m || m != func_module(r, f))
		return 0;
	const char *path = string_at(r, m->path), *file;
	uint64_t pc = run_pc - 1 - m->bias, callee = (f->addr & ~ZR_CLOSED_BIT) - m->bias;
	struct symbol sym;
	struct zerr ignored;
	/* a call of the callee's own code: its entry hook runs there */
	if (symbols_lookup(r->syms, path, pc, &sym, &ignored) < 0 ||
	    (sym.name && sym.start == callee))
		return 0;
	int at = 0;
	if (symbols_inline_call(r->syms, path, pc, callee, &file, &at, &ignored) != 1 || at <= 0)
		return 0;
	*site = pc;
	*line = at;
	return 1;
}

static uint64_t memo_hash(uint64_t pc, uint64_t callee)
{
	return (pc ^ callee * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull >> 17;
}

static int inlined_site(const struct raw *r, const struct raw_thread *t, const struct zr_edge *e,
			uint64_t *site, int *line)
{
	const struct zr_func *f = &t->funcs[e->callee];
	struct inline_memos *ms = r->memo;
	if (!e->pc || !r->syms || !ms ||
	    (f->flags & (ZR_FUNC_BLOCK | ZR_FUNC_MODULE | ZR_FUNC_NAMED)))
		return 0;
	if (2 * (ms->used + 1) > ms->size) {
		size_t size = ms->size ? 2 * ms->size : 256;
		struct inline_memo *m = zp_xcalloc(size, sizeof *m);
		for (size_t i = 0; i < ms->size; i++) {
			const struct inline_memo *o = &ms->m[i];
			if (!o->pc)
				continue;
			size_t h = memo_hash(o->pc, o->callee) & (size - 1);
			while (m[h].pc)
				h = (h + 1) & (size - 1);
			m[h] = *o;
		}
		free(ms->m);
		ms->m = m;
		ms->size = size;
	}
	size_t h = memo_hash(e->pc, f->addr) & (ms->size - 1);
	for (; ms->m[h].pc; h = (h + 1) & (ms->size - 1))
		if (ms->m[h].pc == e->pc && ms->m[h].callee == f->addr) {
			*site = ms->m[h].site;
			*line = ms->m[h].line;
			return *line > 0;
		}
	struct inline_memo *m = &ms->m[h];
	*m = (struct inline_memo){.pc = e->pc, .callee = f->addr};
	ms->used++;
	if (!find_inlined_site(r, f, e->pc, &m->site, &m->line))
		m->line = 0;
	*site = m->site;
	*line = m->line;
	return *line > 0;
}

/* Edge i's call site and line, named once per thread (raw_thread.sites). */
static void edge_site(const struct raw *r, const struct raw_thread *t, uint32_t i, uint64_t *site,
		      int *line)
{
	struct edge_site *es = &t->sites[i];
	if (!es->named) {
		const struct zr_edge *e = &t->edges[i];
		if (!inlined_site(r, t, e, &es->site, &es->line))
			name_site(r, e->site, &es->site, &es->line);
		es->named = 1;
	}
	*site = es->site;
	*line = es->line;
}

/* Ticks in ns; time that was measured at all is at least 1 ns (raw.h: never 0 for code that ran). */
static uint64_t to_ns(const struct raw *r, uint64_t ticks)
{
	/* mcycle ticks stay cycles: the event is "cycles" (raw.h) */
	if (r->h.clock == ZR_CLOCK_MONOTONIC || r->h.clock == ZR_CLOCK_MCYCLE || !ticks)
		return ticks;
	long double ns = (long double)ticks * 1e9L / r->h.ticks_per_sec + 0.5L;
	if (!(ns < 18446744073709551615.0L))
		return UINT64_MAX; /* a damaged rate */
	return ns >= 1.0L ? (uint64_t)ns : 1;
}

/*
 * Keeps min and max of one call (ns) around the mean of calls calls taking
 * incl ns together: the sums' ns can be raised above their ticks' rounding
 * (contexts_incl_ns), a call's extremes are rounded alone.
 */
static void note_mean(uint64_t *min, uint64_t *max, uint64_t incl, uint64_t calls)
{
	if (!calls)
		return;
	uint64_t mean = incl / calls;
	if (*max < mean)
		*max = mean;
	if (calls == 1)
		*min = *max = incl;
}

/*
 * A context's shortest and longest call in ns: rounded alone, and kept
 * around its mean (note_mean) over its inclusive incl_ns as shown.
 */
static void context_extremes_ns(const struct raw *r, const struct zr_context *c, uint64_t incl_ns,
				uint64_t *min, uint64_t *max)
{
	*min = to_ns(r, c->min);
	*max = to_ns(r, c->max);
	note_mean(min, max, incl_ns, c->calls);
}

/* A signed sum of ticks (raw.h) in ns; below zero counts as nothing. */
static uint64_t sum_to_ns(const struct raw *r, uint64_t sum)
{
	return (int64_t)sum < 0 ? 0 : to_ns(r, sum);
}

/* The node of a calling module: "[/usr/bin/sort]". */
static uint32_t module_node(struct zp_profile *p, const char *path)
{
	size_t n = strlen(path) + 3;
	char *name = zp_xmalloc(n);
	snprintf(name, n, "[%s]", path);
	uint32_t node = profile_node(p, ZP_FUNCTION, name, path, "", 0, 0);
	free(name);
	return node;
}

/*
 * The caller of a root call of a named function (a library call made from
 * code that is not itself a profiled function): a node named after the
 * module it was called from, or ZP_NONE when unknown.  The library-call
 * collector keys root edges by calling module (a ZR_FUNC_MODULE record is
 * their caller); an edge from no caller is from an older file or from a
 * module not known, and is shown under the module of its call site.
 */
static uint32_t calling_module(struct zp_profile *p, const struct raw *r,
			       const struct raw_thread *t, const struct zr_edge *e)
{
	const struct zr_module *m = e->site ? module_of(r, e->site) : NULL;
	if (!m || !(t->funcs[e->callee].flags & ZR_FUNC_NAMED))
		return ZP_NONE;
	return module_node(p, string_at(r, m->path));
}

/* ---- samples placed by their program counter ---------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The entry addresses of the functions whose hooks ran on any of the file's threads, sorted. */
static uint64_t *hooked_functions(const struct raw_thread *threads, uint32_t n, size_t *count)
{
	size_t total = 0, k = 0;
	for (uint32_t i = 0; i < n; i++)
		total += threads[i].info.used ? threads[i].info.n_funcs : 0;
	uint64_t *addrs = zp_xmalloc((total + 1) * sizeof *addrs);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; threads[i].info.used && j < threads[i].info.n_funcs; j++) {
			const struct zr_func *f = &threads[i].funcs[j];
			if (!(f->flags & (ZR_FUNC_BLOCK | ZR_FUNC_MODULE | ZR_FUNC_FILTERED |
					  ZR_FUNC_UNRECORDED)))
				addrs[k++] = f->addr;
		}
	zp_sort(addrs, k, sizeof *addrs, cmp_u64);
	*count = k;
	return addrs;
}

/* A sample of context c moved to its callee fn's context (created when missing). */
struct move {
	uint32_t ctx;
	uint64_t fn, samples;
};

/* Also the key of a context: its parent, then its function's address. */
static int cmp_move(const void *a, const void *b)
{
	const struct move *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return cmp_u64(&x->fn, &y->fn);
}

/*
 * The function a sample of context c taken at pc was in when that is not
 * c's: a function whose hooks ran (so not a library's, a PLT stub's or
 * other code without hooks, which count for their caller) that is neither
 * c's function nor one of its callers' (code inlined into a caller, whose
 * hooks run from the caller's body).  0 when the sample is c's own.
 */
static uint64_t callee_at(const struct raw *r, const struct raw_thread *t, uint32_t c, uint64_t pc,
			  const uint64_t *hooked, size_t n_hooked)
{
	const struct zr_module *m = module_of(r, pc);
	struct symbol sym = {0};
	struct zerr ignored;
	if (!m || !r->syms ||
	    symbols_lookup(r->syms, string_at(r, m->path), pc - m->bias, &sym, &ignored) < 0 ||
	    !sym.name)
		return 0;
	uint64_t fn = sym.start + m->bias;
	if (!bsearch(&fn, hooked, n_hooked, sizeof *hooked, cmp_u64))
		return 0;
	for (uint32_t a = c; a != ZR_NONE; a = t->contexts[a].parent)
		if (t->contexts[a].addr == fn)
			return 0;
	return fn;
}

/* The index of function fn in t's table, appended (never called on this thread) when missing. */
static uint32_t function_index(struct raw_thread *t, uint64_t fn)
{
	for (uint32_t i = 0; i < t->info.n_funcs; i++)
		if (t->funcs[i].addr == fn && !(t->funcs[i].flags & ZR_FUNC_BLOCK))
			return i;
	struct zr_func *f = &t->funcs[t->info.n_funcs];
	memset(f, 0, sizeof *f);
	f->addr = fn;
	f->min = UINT64_MAX;
	return t->info.n_funcs++;
}

/* The context of fn called from parent, appended with no calls when there is none. */
static uint32_t child_context(struct raw_thread *t, const struct move *keys, uint32_t n_keys,
			      uint32_t parent, uint64_t fn)
{
	struct move key = {.ctx = parent, .fn = fn};
	const struct move *found = bsearch(&key, keys, n_keys, sizeof *keys, cmp_move);
	if (found)
		return (uint32_t)found->samples; /* the context's index */
	struct zr_context *c = &t->contexts[t->n_contexts];
	memset(c, 0, sizeof *c);
	c->parent = parent;
	c->func = function_index(t, fn);
	c->edge = ZR_NONE;
	c->addr = fn;
	c->min = UINT64_MAX;
	return t->n_contexts++;
}

/*
 * The shadow stack changes inside the hooks, so a sample taken in a
 * callee's prologue (before its entry hook) or epilogue (after its exit
 * hook) was charged to its caller's context: moves it, by the pc it was
 * taken at, to the callee's context under that caller.  Samples the
 * table could not keep (samples_unplaced) stay where they were charged.
 */
static void place_samples(const struct raw *r, struct raw_thread *t, const uint64_t *hooked,
			  size_t n_hooked)
{
	uint32_t n = 0;
	struct move *moves = zp_xmalloc((r->h.max_sample_pcs + 1) * sizeof *moves);
	for (uint32_t i = 0; i < r->h.max_sample_pcs; i++) {
		const struct zr_sample_pc *e = &t->sample_pcs[i];
		uint64_t fn = e->samples ? callee_at(r, t, e->ctx, e->pc, hooked, n_hooked) : 0;
		if (fn)
			moves[n++] = (struct move){e->ctx, fn, e->samples};
	}
	if (n) {
		zp_sort(moves, n, sizeof *moves, cmp_move);
		uint32_t k = 0; /* one move per (context, callee): a missing callee is added once */
		for (uint32_t i = 1; i < n; i++) {
			if (!cmp_move(&moves[k], &moves[i]))
				moves[k].samples += moves[i].samples;
			else
				moves[++k] = moves[i];
		}
		n = k + 1;
		/* the contexts as keys (their index in .samples), and room for n more */
		struct move *keys = zp_xmalloc((t->n_contexts + 1) * sizeof *keys);
		for (uint32_t i = 0; i < t->n_contexts; i++)
			keys[i] = (struct move){t->contexts[i].parent, t->contexts[i].addr, i};
		uint32_t n_keys = t->n_contexts;
		zp_sort(keys, n_keys, sizeof *keys, cmp_move);
		t->contexts = zp_xrealloc(t->contexts, (t->n_contexts + n) * sizeof *t->contexts);
		t->funcs = zp_xrealloc(t->funcs, (t->info.n_funcs + n) * sizeof *t->funcs);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t child = child_context(t, keys, n_keys, moves[i].ctx, moves[i].fn);
			t->contexts[moves[i].ctx].samples -= moves[i].samples;
			t->contexts[child].samples += moves[i].samples;
		}
		free(keys);
	}
	free(moves);
}

/* ---- calling contexts -------------------------------------------------- */

static int is_module(const struct raw_thread *t, uint32_t ctx)
{
	return ctx != ZR_NONE && (t->funcs[t->contexts[ctx].func].flags & ZR_FUNC_MODULE);
}

/* A zp_context (or zp_stat) cost vector: nothing measured yet. */
static void no_min(uint64_t *min)
{
	for (int e = 0; e < ZP_MAX_EVENTS; e++)
		min[e] = UINT64_MAX;
}

/*
 * Sampled time of one context alone (self): its samples, and its calls'
 * share of the empty hooks' cost (r->hook_ns1024 per call), in ns.
 */
static uint64_t sampled_self_ns(const struct raw *r, const struct zr_context *c)
{
	return c->samples * r->h.sample_period_ns + c->calls * r->hook_ns1024 / 1024;
}

/* Sampled figures of a context or a subtree of contexts: samples and their time in ns. */
struct sampled {
	uint64_t samples, ns;
};

/* Samples in the model's two events: cpu-time (ns) and samples. */
static void put_samples(const struct raw *r, struct sampled s, uint64_t *cost)
{
	cost[r->cpu] = s.ns;
	cost[r->samples] = s.samples;
}

/* Raw context i in the model's units (after fold_contexts). */
static void context_costs(const struct raw *r, const struct raw_thread *t, uint32_t i,
			  const struct sampled *incl, struct zp_context *c)
{
	const struct zr_context *rc = &t->contexts[i];
	memset(c, 0, sizeof *c);
	no_min(c->min);
	c->calls = rc->calls;
	if (rc->edge != ZR_NONE)
		edge_site(r, t, rc->edge, &c->site, &c->site_line);
	if (r->event >= 0) {
		uint64_t incl = t->ns[2 * t->info.n_funcs + t->info.n_edges + i];
		c->self[r->event] = to_ns(r, rc->self);
		c->incl[r->event] = incl;
		c->self[r->cost] = sum_to_ns(r, rc->overhead);
		c->incl[r->cost] = t->cost_ns[2 * t->info.n_funcs + t->info.n_edges + i];
		if (rc->min != UINT64_MAX)
			context_extremes_ns(r, rc, incl, &c->min[r->event], &c->max[r->event]);
	}
	if (r->cpu >= 0) {
		put_samples(r, (struct sampled){rc->samples, sampled_self_ns(r, rc)}, c->self);
		put_samples(r, incl[i], c->incl);
	}
}

/* 1 when context i runs inside another activation of its own function. */
static int recursive(const struct raw_thread *t, uint32_t i)
{
	uint32_t func = t->contexts[i].func;
	for (uint32_t c = t->contexts[i].parent; c != ZR_NONE; c = t->contexts[c].parent)
		if (t->contexts[c].func == func)
			return 1;
	return 0;
}

/*
 * What the correction took out, in ns (raw_thread.cost_ns): a context's
 * own (its overhead) and, as its inclusive, that plus its children's
 * inclusive (children come after their parents); a function's self the
 * sum of its contexts' own and what was counted on no context, its
 * inclusive the sum over its outermost contexts and, for what was counted
 * on no context, that alone (the correction of its callees there is not
 * known: a floor); an edge's the sum over the contexts along it.
 */
static void fold_costs(const struct raw *r, struct raw_thread *t)
{
	uint32_t nf = t->info.n_funcs, ne = t->info.n_edges;
	uint64_t *self = t->cost_ns =
		zp_xcalloc(2 * (size_t)nf + ne + t->n_contexts + 1, sizeof *t->cost_ns);
	uint64_t *incl = self + nf, *edge = incl + nf, *ctx = edge + ne;
	for (uint32_t i = 0; i < nf; i++)
		self[i] = incl[i] = sum_to_ns(r, t->funcs[i].overhead);
	for (uint32_t i = t->n_contexts; i-- > 0;) {
		const struct zr_context *c = &t->contexts[i];
		ctx[i] += sum_to_ns(r, c->overhead);
		if (c->parent != ZR_NONE && c->parent < t->n_contexts)
			ctx[c->parent] += ctx[i];
	}
	for (uint32_t i = 0; i < t->n_contexts; i++) {
		const struct zr_context *c = &t->contexts[i];
		self[c->func] += sum_to_ns(r, c->overhead);
		if (!recursive(t, i))
			incl[c->func] += ctx[i];
		if (c->edge != ZR_NONE)
			edge[c->edge] += ctx[i];
	}
}

/*
 * Each context's inclusive time in ns, into ns[c]: its own converted, but
 * never below its self's ns and its children's inclusive ns together.  Each
 * figure is rounded on its own and a time that ran is 1 ns at least
 * (to_ns), so over thousands of tiny contexts (a recursion 15,000 deep) the
 * selves' ns added up came out microseconds above the outermost inclusive
 * converted once (QA s15 W2: a function's self above its total, a pprof cum
 * above the report's total).  Children come after their parents.
 */
static void contexts_incl_ns(const struct raw *r, const struct raw_thread *t, uint64_t *ns)
{
	for (uint32_t i = t->n_contexts; i-- > 0;) {
		const struct zr_context *c = &t->contexts[i];
		uint64_t below = ns[i] + to_ns(r, c->self); /* ns[i]: its children's, so far */
		uint64_t own = to_ns(r, c->incl);
		ns[i] = own > below ? own : below;
		/* a calling module's context gets its root calls' sum in add_contexts */
		if (c->parent < i && !is_module(t, c->parent))
			ns[c->parent] += ns[i];
	}
}

/*
 * The function and edge records hold only what was counted on no context
 * (raw.h): adds every context's calls and times into its function (the
 * inclusive time of outermost activations only) and edge, so that they are
 * the flat sums.  A root call from a calling module (libcalls) is then given
 * its edge's calls: the --no-time wrapper's own counters count the edge and
 * the function only, and that edge and this context are one and the same
 * path.
 */
static void fold_contexts(const struct raw *r, struct raw_thread *t)
{
	uint32_t nf = t->info.n_funcs;
	uint64_t *self_ns = t->ns = zp_xcalloc(4 * (size_t)nf + t->info.n_edges + t->n_contexts + 1,
					       sizeof *t->ns);
	uint64_t *incl_ns = self_ns + nf, *edge_ns = incl_ns + nf;
	uint64_t *ctx_ns = edge_ns + t->info.n_edges, *ext_ns = ctx_ns + t->n_contexts;
	contexts_incl_ns(r, t, ctx_ns);
	for (uint32_t i = 0; i < nf; i++) {
		const struct zr_func *f = &t->funcs[i];
		self_ns[i] = sum_to_ns(r, f->self);
		incl_ns[i] = sum_to_ns(r, f->incl);
		ext_ns[2 * i] = f->min == UINT64_MAX ? UINT64_MAX : to_ns(r, f->min);
		ext_ns[2 * i + 1] = f->min == UINT64_MAX ? 0 : to_ns(r, f->max);
	}
	for (uint32_t i = 0; i < t->info.n_edges; i++)
		edge_ns[i] = sum_to_ns(r, t->edges[i].incl);
	for (uint32_t i = 0; i < t->n_contexts; i++) {
		const struct zr_context *c = &t->contexts[i];
		struct zr_func *f = &t->funcs[c->func];
		f->calls += c->calls;
		f->self += c->self;
		self_ns[c->func] += to_ns(r, c->self);
		if (!recursive(t, i)) {
			f->incl += c->incl;
			incl_ns[c->func] += ctx_ns[i];
		}
		if (c->min < f->min)
			f->min = c->min;
		if (c->max > f->max)
			f->max = c->max;
		if (c->min != UINT64_MAX) {
			uint64_t lo, hi;
			context_extremes_ns(r, c, ctx_ns[i], &lo, &hi);
			uint64_t *ext = &ext_ns[2 * c->func];
			ext[0] = lo < ext[0] ? lo : ext[0];
			ext[1] = hi > ext[1] ? hi : ext[1];
		}
		if (c->edge != ZR_NONE) {
			t->edges[c->edge].calls += c->calls;
			t->edges[c->edge].incl += c->incl;
			edge_ns[c->edge] += ctx_ns[i];
		}
	}
	for (uint32_t i = 0; i < t->n_contexts; i++) {
		struct zr_context *c = &t->contexts[i];
		if (is_module(t, c->parent) && c->edge != ZR_NONE)
			c->calls = t->edges[c->edge].calls;
	}
	fold_costs(r, t);
}

/*
 * Sampled figures of each context and everything called from it (children
 * come after parents): sums of the contexts' own, so that a context's
 * inclusive time is exactly its self time plus its children's inclusive.
 */
static struct sampled *inclusive_samples(const struct raw *r, const struct raw_thread *t)
{
	struct sampled *incl = zp_xcalloc(t->n_contexts + 1, sizeof *incl);
	for (uint32_t i = t->n_contexts; i-- > 0;) {
		incl[i].samples += t->contexts[i].samples;
		incl[i].ns += sampled_self_ns(r, &t->contexts[i]);
		uint32_t parent = t->contexts[i].parent;
		if (parent != ZR_NONE) {
			incl[parent].samples += incl[i].samples;
			incl[parent].ns += incl[i].ns;
		}
	}
	return incl;
}


/*
 * Sampled time per function and edge, from the contexts: self is the sum of
 * its contexts' samples; inclusive counts a sample once for each distinct
 * function on its stack (a context inside another activation of its own
 * function adds nothing); an edge's inclusive sums every call along it.
 */
static void add_sampled_stats(struct zp_profile *p, const struct raw *r, const struct raw_thread *t,
			      uint32_t thread, const struct sampled *incl)
{
	for (uint32_t i = 0; i < t->n_contexts; i++) {
		const struct zr_context *rc = &t->contexts[i];
		uint32_t node = t->nodes[rc->func];
		if (node == ZP_NONE || (t->funcs[rc->func].flags & ZR_FUNC_MODULE))
			continue;
		struct zp_stat s = {0};
		no_min(s.min);
		put_samples(r, (struct sampled){rc->samples, sampled_self_ns(r, rc)}, s.self);
		if (!recursive(t, i))
			put_samples(r, incl[i], s.incl);
		profile_stat_add(profile_stat(p, thread, node), &s, p->nevents);
		if (rc->edge != ZR_NONE && t->edge_ids[rc->edge] != ZP_NONE) {
			struct zp_edge *pe = &p->edges[t->edge_ids[rc->edge]];
			pe->incl[r->cpu] += incl[i].ns;
			pe->incl[r->samples] += incl[i].samples;
		}
	}
	if (t->info.samples_root) {
		/* samples with no function open: the thread's code outside every profiled one */
		uint32_t node = profile_node(p, ZP_FUNCTION, "[no function]", "", "", 0, 0);
		struct zp_context c = {0};
		no_min(c.min);
		struct sampled root = {t->info.samples_root,
				       t->info.samples_root * r->h.sample_period_ns};
		put_samples(r, root, c.self);
		put_samples(r, root, c.incl);
		struct zp_stat s = {0};
		no_min(s.min);
		memcpy(s.self, c.self, sizeof s.self);
		memcpy(s.incl, c.incl, sizeof s.incl);
		profile_stat_add(profile_stat(p, thread, node), &s, p->nevents);
		/* the index first: profile_context may move p->contexts */
		uint32_t ctx = profile_context(p, thread, ZP_NONE, node);
		profile_context_add(&p->contexts[ctx], &c, p->nevents);
	}
}

/*
 * The thread's contexts into the model, parents first.  A calling module's
 * context (libcalls) is never on a stack: no calls, and as inclusive cost
 * the sum of its root calls', so that a tree under it adds up.
 */
static void add_contexts(struct zp_profile *p, const struct raw *r, const struct raw_thread *t,
			 uint32_t thread)
{
	uint32_t n = t->n_contexts;
	struct sampled *incl_samples = r->cpu >= 0 ? inclusive_samples(r, t) : NULL;
	struct zp_context *costs = zp_xcalloc(n + 1, sizeof *costs);
	uint32_t *ids = zp_xmalloc((n + 1) * sizeof *ids);
	for (uint32_t i = 0; i < n; i++)
		context_costs(r, t, i, incl_samples, &costs[i]);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t parent = t->contexts[i].parent;
		if (is_module(t, parent) && r->event >= 0)
			costs[parent].incl[r->event] += costs[i].incl[r->event];
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct zr_context *rc = &t->contexts[i];
		uint32_t node = t->nodes[rc->func];
		uint32_t parent = rc->parent == ZR_NONE ? ZP_NONE : ids[rc->parent];
		ids[i] = ZP_NONE;
		if (node == ZP_NONE || (rc->parent != ZR_NONE && parent == ZP_NONE))
			continue;
		ids[i] = profile_context(p, thread, parent, node);
		profile_context_add(&p->contexts[ids[i]], &costs[i], p->nevents);
	}
	if (r->cpu >= 0)
		add_sampled_stats(p, r, t, thread, incl_samples);
	free(ids);
	free(costs);
	free(incl_samples);
}

/* ---- the timeline ------------------------------------------------------- */

/* a + b and a - b of times that a damaged file may make absurd: wrapped, never undefined */
static int64_t add_ns(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t sub_ns(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* A tick of the process's clock on the timeline: ns since the epoch. */
static int64_t timeline_ns(const struct raw *r, uint64_t ticks)
{
	return add_ns(r->h.start_realtime_ns,
		      (int64_t)to_ns(r, sub_clamp(ticks, r->h.start_ticks)));
}

/*
 * The thread's events into spans (doc/raw-format.md, "Timeline";
 * profile_add_timeline).  Frames still open at the end close at the last
 * event kept (the ring was full) or when the thread was last seen, never
 * before that event.
 */
static void add_spans(struct zp_profile *p, const struct raw *r, const struct raw_thread *t,
		      uint32_t thread)
{
	if (!t->n_events)
		return;
	const struct zr_header *h = &r->h;
	int lost_start = t->info.events_written > h->max_events &&
			 (h->timeline_flags & ZR_TIMELINE_KEEP_NEWEST);
	int lost_end = t->info.events_written > h->max_events && !lost_start;
	struct zp_tl_event *ev = zp_xmalloc(t->n_events * sizeof *ev);
	for (uint32_t i = 0; i < t->n_events; i++) {
		const struct zr_event *e = &t->events[i];
		if ((h->timeline_flags & ZR_TIMELINE_SWITCHES) && (e->depth & ZR_EVENT_SWITCH)) {
			int resume = (e->depth & ZR_SWITCH_RESUME) != 0;
			ev[i] = (struct zp_tl_event){.time = timeline_ns(r, e->ticks),
						     .node = ZP_NONE,
						     .kind = resume ? ZP_TL_RESUME : ZP_TL_PARK,
						     .stack = e->func,
						     .lost = (e->depth & ZR_SWITCH_LOST) != 0};
			continue;
		}
		int continued = (h->timeline_flags & ZR_TIMELINE_SWITCHES) &&
				(e->depth & ZR_EVENT_CONTINUED);
		ev[i] = (struct zp_tl_event){timeline_ns(r, e->ticks), t->nodes[e->func],
					     e->depth & ~(ZR_EVENT_EXIT | ZR_EVENT_CONTINUED),
					     (e->depth & ZR_EVENT_EXIT) != 0,
					     continued ? ZP_TL_CONTINUED : ZP_TL_CALL, 0, 0};
	}
	/* sampled time keeps no times of its own: the last event may be the last time known;
	   events are on the clock itself, frames on the thread's frame clock (raw.h) */
	uint64_t last = t->events[t->n_events - 1].ticks, known = last_known_ticks(r, t);
	if (r->h.flags & ZR_FLAG_PAID_EVERY_CALL)
		known += t->info.paid_ticks;
	uint64_t end = lost_end || known < last ? last : known;
	profile_add_timeline(p, thread, ev, t->n_events, lost_start, timeline_ns(r, end));
	free(ev);
}

/* ---- into the profile -------------------------------------------------- */

static void add_thread(struct zp_profile *p, const struct raw *r, struct raw_thread *t)
{
	char name[sizeof t->info.name + 1];
	memcpy(name, t->info.name, sizeof t->info.name);
	name[sizeof t->info.name] = 0;
	size_t known = p->nthreads;
	uint32_t thread = profile_thread(p, r->pid, t->info.tid, name);
	/*
	 * A thread of an earlier image of this process (a call made before the
	 * exec, the files read in order: launch_read_raw) is named by its later
	 * image, the program it ran last: a forked child that called close
	 * before it exec'ed sort is sort, as ps and perf name it.
	 */
	if (thread < known && *name && strcmp(p->threads[thread].name, name) != 0) {
		free(p->threads[thread].name);
		p->threads[thread].name = zp_xstrdup(name);
	}
	int ev = r->event;

	t->nodes = zp_xmalloc((t->info.n_funcs + 1) * sizeof *t->nodes);
	for (uint32_t i = 0; i < t->info.n_funcs; i++) {
		const struct zr_func *f = &t->funcs[i];
		t->nodes[i] = ZP_NONE;
		/* filtered, or of an unrecorded module: its calls are lost_module_calls */
		if (f->flags & (ZR_FUNC_FILTERED | ZR_FUNC_UNRECORDED))
			continue;
		if (f->flags & ZR_FUNC_MODULE) { /* a caller only, no statistics */
			t->nodes[i] = module_node(p, string_at(r, f->name));
			continue;
		}
		if (f->flags & ZR_FUNC_BLOCK)
			t->nodes[i] = block_node(p, r, f);
		else if (f->flags & ZR_FUNC_NAMED)
			t->nodes[i] = named_node(p, r, f);
		else
			t->nodes[i] = function_node(p, r, f);
		struct zp_stat s = {.calls = f->calls};
		for (int e = 0; e < ZP_MAX_EVENTS; e++)
			s.min[e] = UINT64_MAX;
		if (ev >= 0) {
			s.self[ev] = t->ns[i];
			s.incl[ev] = t->ns[t->info.n_funcs + i];
			s.self[r->cost] = t->cost_ns[i];
			s.incl[r->cost] = t->cost_ns[t->info.n_funcs + i];
			if (f->min != UINT64_MAX) {
				const uint64_t *ext = &t->ns[2 * t->info.n_funcs + t->info.n_edges +
							     t->n_contexts + 2 * i];
				s.min[ev] = ext[0];
				s.max[ev] = ext[1];
			}
		}
		profile_stat_add(profile_stat(p, thread, t->nodes[i]), &s, p->nevents);
	}
	t->edge_ids = zp_xmalloc((t->info.n_edges + 1) * sizeof *t->edge_ids);
	for (uint32_t i = 0; i < t->info.n_edges; i++) {
		const struct zr_edge *e = &t->edges[i];
		t->edge_ids[i] = ZP_NONE;
		uint32_t caller = e->caller == ZR_NONE ? calling_module(p, r, t, e)
						       : t->nodes[e->caller];
		uint32_t callee = t->nodes[e->callee];
		if (callee == ZP_NONE || (e->caller != ZR_NONE && caller == ZP_NONE))
			continue;
		struct zp_edge *pe = profile_edge(p, thread, ZP_CALL, caller, callee);
		pe->calls += e->calls;
		if (ev >= 0) {
			pe->incl[ev] += t->ns[2 * t->info.n_funcs + i];
			pe->incl[r->cost] += t->cost_ns[2 * t->info.n_funcs + i];
		}
		if (!pe->site)
			edge_site(r, t, i, &pe->site, &pe->site_line);
		t->edge_ids[i] = (uint32_t)(pe - p->edges);
	}
	add_contexts(p, r, t, thread);
	add_spans(p, r, t, thread);
}

/* The calls a thread made: on its contexts, and on its functions without one. */
static uint64_t thread_calls(const struct raw_thread *t)
{
	uint64_t calls = 0;
	for (uint32_t i = 0; i < t->n_contexts; i++)
		calls += t->contexts[i].calls;
	for (uint32_t i = 0; i < t->info.n_funcs; i++)
		calls += t->funcs[i].calls;
	return calls;
}

/* Per-thread counts summed over a file, reported as run meta (describe_run). */
enum {
	LOST_FUNCS,
	LOST_EDGES,
	LOST_FRAMES,
	LOST_CONTEXTS,
	LOST_STACKS,
	LOST_STACK_CALLS,
	LOST_MODULE_CALLS,
	UNSTACKED_CALLS,
	SAMPLES,
	SAMPLES_ZOND,
	SAMPLES_SAMPLING,
	SAMPLE_COST_NS,
	SAMPLES_LOST,
	SAMPLES_UNPLACED,
	PAID_SUM,
	PAID_CALLS,
	EVENTS_KEPT,
	EVENTS_DROPPED,
	EVENTS_ENDED,
	CUT_SHORT,
	CLAMPED,
	N_COUNTS
};

/* Checks every thread before adding any: a bad file adds nothing. */
static int read_threads(struct zp_profile *p, struct raw *r, uint64_t *counts, struct zerr *err)
{
	uint32_t n = r->h.n_threads;
	struct raw_thread *threads = zp_xcalloc(n, sizeof *threads);
	int rc = 0;
	for (uint32_t slot = 0; slot < n && rc == 0; slot++)
		rc = load_thread(r, slot, &threads[slot], err);
	if (rc == 0 && (r->h.flags & ZR_FLAG_SAMPLED)) {
		r->cpu = (int)profile_event(p, "cpu-time", "ns");
		r->samples = (int)profile_event(p, "samples", "samples");
		r->hook_ns1024 = (uint64_t)(r->h.hook_pair_ticks * 1e9 * 1024 / r->h.ticks_per_sec + 0.5);
	}
	if (rc == 0 && !(r->h.flags & ZR_FLAG_NO_TIME)) {
		int cycles = r->h.clock == ZR_CLOCK_MCYCLE;
		r->event = cycles ? (int)profile_event(p, "cycles", "cycles")
				  : (int)profile_event(p, "time", "ns");
		r->cost = (int)profile_event(p, "probe-cost", cycles ? "cycles" : "ns");
	}
	size_t n_hooked = 0;
	uint64_t *hooked = rc == 0 && r->h.max_sample_pcs ? hooked_functions(threads, n, &n_hooked)
							  : NULL;
	for (uint32_t slot = 0; slot < n && rc == 0; slot++) {
		struct raw_thread *t = &threads[slot];
		if (!t->info.used)
			continue;
		if (r->event >= 0)
			counts[CUT_SHORT] += close_open_frames(r, t);
		if (r->event >= 0 && (r->h.flags & ZR_FLAG_BOUND_SUMS))
			bound_sums(t);
		else if (r->event >= 0 && r->h.clock == ZR_CLOCK_MCYCLE)
			counts[CLAMPED] += bound_sums(t);
		if (hooked)
			place_samples(r, t, hooked, n_hooked);
		fold_contexts(r, t);
		add_thread(p, r, t);
		counts[LOST_FUNCS] += t->info.lost_funcs;
		counts[LOST_EDGES] += t->info.lost_edges;
		counts[LOST_FRAMES] += t->info.lost_frames;
		counts[LOST_CONTEXTS] += t->info.lost_contexts;
		counts[LOST_STACKS] += t->info.lost_stacks;
		counts[LOST_STACK_CALLS] += t->info.lost_stack_calls;
		for (uint32_t i = 0; i < t->info.n_funcs; i++)
			if (t->funcs[i].flags & ZR_FUNC_UNRECORDED)
				counts[LOST_MODULE_CALLS] += t->funcs[i].calls;
		counts[UNSTACKED_CALLS] += t->info.unstacked_calls;
		counts[SAMPLES] += t->info.samples;
		counts[SAMPLES_ZOND] += t->info.samples_zond;
		counts[SAMPLES_SAMPLING] += t->info.samples_sampling;
		counts[SAMPLE_COST_NS] += to_ns(r, t->info.sample_cost_ticks);
		counts[SAMPLES_LOST] += t->info.samples_lost;
		counts[SAMPLES_UNPLACED] += t->info.samples_unplaced;
		counts[EVENTS_KEPT] += t->n_events;
		counts[EVENTS_DROPPED] += t->events_dropped;
		counts[EVENTS_ENDED] += t->info.events_lost;
		if (t->info.paid_pair_ticks) {
			/* weighed by calls: a short thread's few cold calls cost more each */
			uint64_t calls = thread_calls(t);
			counts[PAID_SUM] += t->info.paid_pair_ticks * calls;
			counts[PAID_CALLS] += calls;
		}
	}
	for (uint32_t slot = 0; slot < n; slot++)
		free_thread(&threads[slot]);
	free(threads);
	free(hooked);
	return rc;
}

/* ---- run facts --------------------------------------------------------- */

static const char *clock_name(const struct zr_header *h)
{
	int fast = h->flags & ZR_FLAG_FAST_CLOCK;
	/* the probes read no clock: times are samples (a timeline's own reads say tsc) */
	if (h->flags & ZR_FLAG_SAMPLED)
		return "none: sampled CPU time";
	if (h->flags & ZR_FLAG_NO_TIME)
		return "none: calls only";
	switch (h->clock) {
	case ZR_CLOCK_TSC: return fast ? "tsc, unfenced" : "tsc";
	case ZR_CLOCK_CNTVCT: return fast ? "cntvct, unfenced" : "cntvct";
	case ZR_CLOCK_MCYCLE: return "mcycle";
	default: return "clock_gettime";
	}
}

static const char *arch_name(const struct zr_header *h)
{
	switch (h->arch) {
	case ZR_ARCH_AARCH64: return "aarch64";
	case ZR_ARCH_RISCV32: return "riscv32";
	case ZR_ARCH_RISCV64: return "riscv64";
	default: return "x86_64";
	}
}

/*
 * A process that put itself under seccomp (raw.h ZR_FLAG_SECCOMP): from
 * then on the runtime made no system call (doc/raw-format.md), and in
 * strict mode its clock stopped.  "seccomp" is the strictest mode of the
 * run's processes, seccomp_at_ns when the last one read did it, from its start.
 */
static void describe_seccomp(struct zp_profile *p, const struct raw *r)
{
	const struct zr_header *h = &r->h;
	if (!(h->flags & ZR_FLAG_SECCOMP))
		return;
	const char *was = profile_meta(p, "seccomp");
	int strict = (h->flags & ZR_FLAG_SECCOMP_STRICT) || (was && !strcmp(was, "strict"));
	profile_add_meta(p, "seccomp", strict ? "strict" : "filter");
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, to_ns(r, sub_clamp(h->seccomp_ticks, h->start_ticks)));
	profile_add_meta(p, "seccomp_at_ns", buf);
}

static void describe_run(struct zp_profile *p, const struct raw *r, const uint64_t *counts)
{
	const struct zr_header *h = &r->h;
	uint64_t ticks = sub_clamp(h->end_ticks, h->start_ticks);
	int64_t end_ns = h->end_realtime_ns ? h->end_realtime_ns
					    : add_ns(h->start_realtime_ns, (int64_t)to_ns(r, ticks));
	if (!p->run.pid || h->start_realtime_ns < p->run.start_ns) {
		int64_t old_end = p->run.pid ? add_ns(p->run.start_ns, p->run.duration_ns) : end_ns;
		p->run.pid = r->pid;
		p->run.start_ns = h->start_realtime_ns;
		p->run.duration_ns = sub_ns(old_end > end_ns ? old_end : end_ns, h->start_realtime_ns);
		p->run.exit_status = h->state == ZR_EXITED ? h->exit_status : -1;
		p->run.term_signal = h->state == ZR_SIGNALED ? h->term_signal : 0;
		/* what was subtracted per call: the cost measured where it was paid, if it was */
		uint64_t pair = counts[PAID_CALLS] ? counts[PAID_SUM] / counts[PAID_CALLS]
						     : h->overhead_pair_ticks;
		p->run.overhead_ns = r->event >= 0 ? (double)pair * 1e9 / h->ticks_per_sec : 0;
		profile_set_str(&p->run.clock, clock_name(h));
		profile_set_str(&p->run.arch, arch_name(h));
		if (r->event >= 0) {
			char buf[32];
			snprintf(buf, sizeof buf, "%.3f",
				 (double)h->overhead_inner_ticks * 1e9 / h->ticks_per_sec);
			profile_add_meta(p, "overhead_inner_ns", buf);
			snprintf(buf, sizeof buf, "%.3f",
				 (double)h->overhead_pair_ticks * 1e9 / h->ticks_per_sec);
			profile_add_meta(p, "overhead_pair_ns", buf);
		}
	} else if (sub_ns(end_ns, p->run.start_ns) > p->run.duration_ns) {
		p->run.duration_ns = sub_ns(end_ns, p->run.start_ns);
	}
	profile_add_count(p, "processes", 1);
	profile_add_count(p, "lost_threads", h->lost_threads);
	/* the calls of the threads not recorded, for every cause */
	profile_add_count(p, "lost_thread_calls", h->lost_thread_calls);
	/* threads not recorded for want of room (raw.h), not for want of a slot */
	profile_add_count(p, "lost_threads_room", h->lost_threads_room);
	/* processes whose raw file had no room for all their data (raw.h) */
	profile_add_count(p, "lost_room", (h->flags & ZR_FLAG_NO_ROOM) != 0);
	/* the same, for want of access: the process changed its user or root (raw.h
	   ZR_FLAG_NO_ACCESS), and its threads not recorded so */
	profile_add_count(p, "lost_access", (h->flags & ZR_FLAG_NO_ACCESS) != 0);
	profile_add_count(p, "lost_threads_access", h->lost_threads_access);
	/* processes it forked or exec'ed that made no raw file: out of reach, no room */
	profile_add_count(p, "lost_processes", h->lost_processes);
	profile_add_count(p, "lost_processes_room", h->lost_processes_room);
	profile_add_count(p, "lost_modules", h->lost_modules);
	/* the calls of functions of those modules, counted on no function */
	profile_add_count(p, "lost_module_calls", counts[LOST_MODULE_CALLS]);
	profile_add_count(p, "lost_strings", h->lost_strings);
	/* bare metal: sites whose instructions outside the hooks were not counted (raw.h) */
	profile_add_count(p, "inexact_sites", h->inexact_sites);
	/* calls of tasks sharing a thread's TLS that zond could not keep apart (raw.h) */
	profile_add_count(p, "lost_shared_tls_calls", h->lost_shared_tls_calls);
	profile_add_count(p, "lost_funcs", counts[LOST_FUNCS]);
	profile_add_count(p, "lost_edges", counts[LOST_EDGES]);
	profile_add_count(p, "lost_frames", counts[LOST_FRAMES]);
	profile_add_count(p, "lost_contexts", counts[LOST_CONTEXTS]);
	/* coroutine stacks whose frames found no room while suspended, and the calls made
	   on them after they resumed, counted on no context */
	profile_add_count(p, "lost_stacks", counts[LOST_STACKS]);
	profile_add_count(p, "lost_stack_calls", counts[LOST_STACK_CALLS]);
	profile_add_count(p, "unstacked_calls", counts[UNSTACKED_CALLS]);
	/* calls still running where the data end, of no known length (close_open_frames) */
	profile_add_count(p, "calls_cut_short", counts[CUT_SHORT]);
	/* bare metal: hooks whose clock was held (raw.h clamped_clock), records whose sums
	   were raised (bound_sums): the counter was not instructions */
	profile_add_count(p, "clamped_times", (uint64_t)h->clamped_clock + counts[CLAMPED]);
	if (counts[PAID_CALLS] && !profile_meta(p, "overhead_pair_paid_ns")) {
		/* the probe pair's cost as measured on the program's own calls (threads' mean) */
		char paid[32];
		snprintf(paid, sizeof paid, "%.3f",
			 (double)counts[PAID_SUM] / (double)counts[PAID_CALLS] * 1e9 / h->ticks_per_sec);
		profile_add_meta(p, "overhead_pair_paid_ns", paid);
	}
	if (h->max_events) {
		profile_add_meta(p, "timeline_unit", "ns");
		profile_add_meta(p, "timeline_keep",
				 (h->timeline_flags & ZR_TIMELINE_KEEP_NEWEST) ? "newest"
									       : "oldest");
		profile_add_count(p, "timeline_events", counts[EVENTS_KEPT]);
		profile_add_count(p, "timeline_dropped", counts[EVENTS_DROPPED]);
		/* of them, those of ended threads whose slots were reused: not a full ring */
		if (counts[EVENTS_ENDED])
			profile_add_count(p, "timeline_ended_threads", counts[EVENTS_ENDED]);
	}
	describe_seccomp(p, r);
	if (!(h->flags & ZR_FLAG_SAMPLED))
		return;
	/* every sample is the program's (in the contexts or "[no function]"),
	   zond's own, or lost: samples = those + samples_zond + samples_lost */
	profile_add_count(p, "samples", counts[SAMPLES]);
	profile_add_count(p, "samples_zond", counts[SAMPLES_ZOND]);
	/* of those, the samples whose period zond's own sampling filled, and the
	   handlers' time in all (runtime/linux/sample.c on_sample) */
	profile_add_count(p, "samples_sampling", counts[SAMPLES_SAMPLING]);
	profile_add_count(p, "sample_cost_ns", counts[SAMPLE_COST_NS]);
	profile_add_count(p, "samples_lost", counts[SAMPLES_LOST]);
	/* in the contexts, but not placed by pc: a callee's prologue may count for its caller */
	profile_add_count(p, "samples_unplaced", counts[SAMPLES_UNPLACED]);
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, h->sample_period_ns);
	profile_add_meta(p, "sample_period_ns", buf);
	if (r->hook_ns1024) {
		/* what each call's cpu-time includes beside its samples */
		snprintf(buf, sizeof buf, "%.3f", (double)r->hook_ns1024 / 1024);
		profile_add_meta(p, "hook_pair_ns", buf);
	}
	static const char *const samplers[] = {"", "perf_event task-clock", "cpu-time timer",
					       "perf_event task-clock, cpu-time timer"};
	if (h->samplers & (ZR_SAMPLER_PERF | ZR_SAMPLER_TIMER))
		profile_add_meta(p, "sampler", samplers[h->samplers & 3]);
	if (h->sample_state == 2)
		profile_add_meta(p, "sampling_stopped", "the program installed a handler for zond's signal");
	else if (h->sample_state == 3)
		profile_add_meta(p, "sampling_stopped", "the program put itself under seccomp");
}

/* ---- process ids -------------------------------------------------------- */

/* The inode of zond's own pid namespace, 0 unknown (runtime/linux/port.c pid_ns_inode). */
static uint64_t zond_pid_ns(void)
{
	static uint64_t ino;
	static int known;
	if (!known) {
		char link[64];
		ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link);
		for (ssize_t i = 0; i < n; i++)
			if (link[i] >= '0' && link[i] <= '9')
				ino = ino * 10 + (uint64_t)(link[i] - '0');
		known = 1;
	}
	return ino;
}

/*
 * 1 when h's pid is one zond can name the process by: of zond's pid
 * namespace, or of one above the process's (raw.h pid_levels 2 or more: the
 * /proc it saw was an outer one), or not known otherwise (older writers, no
 * /proc).  0: the pid of a namespace of the process's own, whose /proc it
 * saw (pid_levels 1): pid 1 of one such namespace is not pid 1 of another.
 */
static int pid_seen(const struct zr_header *h)
{
	uint64_t zond = zond_pid_ns();
	return h->pid_levels != 1 || !h->pid_ns || !zond || h->pid_ns == zond;
}

/* The header of the raw file at path, checked as far as its ids need: 0, or -1. */
static int read_ids(const char *path, struct zr_header *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = read_at(fd, 0, h, sizeof *h);
	close(fd);
	if (rc < 0 || memcmp(h->magic, ZR_MAGIC, sizeof h->magic) != 0 ||
	    h->version != ZR_VERSION || h->header_bytes < ZR_HEADER_V4_BYTES)
		return -1;
	old_header(h);
	return 0;
}

/*
 * The image of the namespace-local process at i continued by the one at
 * next (it exec'ed: same namespace, same pid, the exec before the new
 * image's start), the latest such; SIZE_MAX when none.  The namespaces of
 * live processes differ, and an exec keeps a process in its own.
 */
static size_t exec_before(const struct zr_header *h, const size_t *order, size_t done,
			  const char *continued, size_t next)
{
	size_t best = SIZE_MAX;
	for (size_t k = 0; k < done; k++) {
		size_t i = order[k];
		if (continued[i] || h[i].state != ZR_EXECED || h[i].ns_pid != h[next].ns_pid ||
		    h[i].pid_ns != h[next].pid_ns ||
		    h[i].end_realtime_ns > h[next].start_realtime_ns)
			continue;
		if (best == SIZE_MAX || h[i].end_realtime_ns > h[best].end_realtime_ns)
			best = i;
	}
	return best;
}

void raw_process_ids(const char *const *paths, size_t n, int64_t *pids)
{
	struct zr_header *h = zp_xcalloc(n ? n : 1, sizeof *h);
	size_t *order = zp_xcalloc(n ? n : 1, sizeof *order), local = 0;
	char *continued = zp_xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		pids[i] = -1;
		if (read_ids(paths[i], &h[i]) < 0)
			continue;
		if (pid_seen(&h[i])) {
			pids[i] = h[i].pid;
			continue;
		}
		/* the namespace-local ones by their start (insertion: few, nearly in order) */
		size_t at = local++;
		for (; at && h[order[at - 1]].start_realtime_ns > h[i].start_realtime_ns; at--)
			order[at] = order[at - 1];
		order[at] = i;
	}
	int64_t serial = 0;
	for (size_t k = 0; k < local; k++) {
		size_t i = order[k], before = exec_before(h, order, k, continued, i);
		if (before != SIZE_MAX) {
			continued[before] = 1;
			pids[i] = pids[before];
		} else {
			pids[i] = ++serial * ZP_NS_PIDS + h[i].pid;
		}
	}
	free(h);
	free(order);
	free(continued);
}

int raw_read_into(struct zp_profile *p, const char *path, struct symbols *syms, struct zerr *err)
{
	return raw_read_as(p, path, -1, syms, err);
}

int raw_read_as(struct zp_profile *p, const char *path, int64_t pid, struct symbols *syms,
		struct zerr *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zerr_set(err, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return zerr_set(err, "%s: %s", path, strerror(errno));
	}
	struct inline_memos memo = {0};
	struct raw r = {.path = path,
			.memo = &memo,
			.fd = fd,
			.size = (uint64_t)st.st_size,
			.syms = syms,
			.event = -1,
			.cost = -1,
			.cpu = -1,
			.samples = -1};
	int rc = check_header(&r, err);
	if (rc == 0) {
		r.pid = pid >= 0 ? pid : pid_seen(&r.h) ? r.h.pid : ZP_NS_PIDS + r.h.pid;
		rc = check_modules(&r, err);
	}
	if (rc == 0) {
		uint64_t counts[N_COUNTS] = {0};
		rc = read_threads(p, &r, counts, err);
		if (rc == 0)
			describe_run(p, &r, counts);
	}
	free(r.modules);
	free(r.strings);
	free(memo.m);
	close(fd);
	return rc;
}

/* ---- peeking at a file being written ------------------------------------ */

/*
 * The calls so far of the thread whose slot is at off, and its lost_*
 * counters, into pk.  The one place that knows where the runtime counts a
 * call while it runs: the calls of the thread's function records (not of a
 * filtered function, never counted, nor of a calling module's record, a
 * caller only), bounded by the table's room.
 */
static void peek_thread(int fd, const struct raw *r, uint64_t off, struct raw_peek *pk)
{
	struct zr_thread ti;
	struct zr_func f[128];
	struct zr_context c[128];
	if (read_at(fd, off, &ti, sizeof ti) < 0 || !ti.used)
		return;
	pk->lost += (uint64_t)ti.lost_funcs + ti.lost_edges + ti.lost_frames + ti.lost_contexts;
	/* calls with a context are counted on the context only (raw.h): both tables, less
	   the records that are not functions (filtered, calling modules) */
	uint32_t n = ti.n_funcs < r->h.max_funcs ? ti.n_funcs : r->h.max_funcs;
	uint8_t *skip = zp_xcalloc(n ? n : 1, 1);
	for (uint32_t i = 0, k; i < n; i += k) {
		k = n - i < 128 ? n - i : 128;
		uint64_t at = off + r->h.funcs_off + (uint64_t)i * sizeof *f;
		if (read_at(fd, at, f, k * sizeof *f) < 0)
			goto out;
		for (uint32_t j = 0; j < k; j++) {
			skip[i + j] = (f[j].flags & (ZR_FUNC_FILTERED | ZR_FUNC_MODULE |
						     ZR_FUNC_UNRECORDED)) != 0;
			if (f[j].flags & ZR_FUNC_UNRECORDED)
				pk->lost += f[j].calls;
			else if (!skip[i + j])
				pk->calls += f[j].calls;
		}
	}
	n = ti.n_contexts < r->h.max_contexts ? ti.n_contexts : r->h.max_contexts;
	for (uint32_t i = 0, k; i < n; i += k) {
		k = n - i < 128 ? n - i : 128;
		uint64_t at = off + r->h.contexts_off + (uint64_t)i * sizeof *c;
		if (read_at(fd, at, c, k * sizeof *c) < 0)
			goto out;
		for (uint32_t j = 0; j < k; j++)
			if (c[j].func >= ti.n_funcs || c[j].func >= r->h.max_funcs || !skip[c[j].func])
				pk->calls += c[j].calls;
	}
out:
	free(skip);
}

int raw_peek(const char *path, struct raw_peek *pk)
{
	struct stat st;
	struct zerr ignored;
	struct raw r = {.path = path};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r.size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	/* a file just made holds zeros until its header is written: not a raw file yet */
	int rc = r.size >= sizeof r.h && read_at(fd, 0, &r.h, sizeof r.h) == 0;
	if (rc)
		old_header(&r.h);
	rc = rc && check_header_fields(&r, &ignored) == 0;
	if (rc) {
		pk->bytes += (uint64_t)st.st_blocks * 512;
		pk->lost += (uint64_t)r.h.lost_threads + r.h.lost_threads_room +
			    r.h.lost_threads_access + r.h.lost_processes + r.h.lost_processes_room +
			    r.h.lost_modules + r.h.lost_strings + r.h.lost_shared_tls_calls;
		for (uint32_t slot = 0; slot < r.h.n_threads; slot++)
			peek_thread(fd, &r, r.h.threads_off + slot * r.h.thread_bytes, pk);
	}
	close(fd);
	return rc ? 0 : -1;
}

int raw_peek_dir(const char *dir, struct raw_peek *pk)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	int n = 0;
	while (d && (e = readdir(d)))
		if (!fnmatch("*.zraw", e->d_name, 0) &&
		    snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path &&
		    raw_peek(path, pk) == 0)
			n++;
	if (d)
		closedir(d);
	return n;
}
