/*
 * core.c - the cold paths of the runtime core: laying out the raw file,
 * giving threads their slots, adding functions, edges, modules and strings,
 * blocks, the recording gate, fork.  See core.h.
 */
#include "core.h"

#include "port.h"
#include "timeline.h"

struct zrt_process zrt;

/* the sizes doc/raw-format.md promises */
_Static_assert(sizeof(struct zr_header) == 360, "zr_header layout");
/* the fields a file of version 4's first writers lacks lie in the padding before the modules */
_Static_assert(ZR_HEADER_V4_BYTES == __builtin_offsetof(struct zr_header, lost_threads_access),
	       "zr_header v4 layout");
_Static_assert(sizeof(struct zr_module) == 32, "zr_module layout");
/* 160, 168 or 176 in older writers' files, whose funcs_off (192) leaves the rest 0 */
_Static_assert(sizeof(struct zr_thread) == 192, "zr_thread layout");
_Static_assert(sizeof(struct zr_func) == 80, "zr_func layout");
_Static_assert(sizeof(struct zr_edge) == 40, "zr_edge layout");
_Static_assert(sizeof(struct zr_context) == 80, "zr_context layout");
_Static_assert(sizeof(struct zr_frame) == 64, "zr_frame layout");
_Static_assert(sizeof(struct zr_sample_pc) == 24, "zr_sample_pc layout");

/*
 * A parent context for a call whose caller has none (the pool was full when
 * the caller was called): the call is then not counted on a context either.
 */
#define CTX_LOST 0xfffffffeu

/*
 * The contexts' index of a thread starts small and doubles as contexts come,
 * up to the size laid out for max_contexts, always at most half full: the
 * entry probe reads it on most calls, and an index spread over the whole
 * laid-out size (512 KiB by default) would take that much of the caches
 * from the program, which then runs slower than without zond wherever it
 * reads memory (zond's sampled shares showed it).
 */
#define CTX_INDEX_MIN 4096u

/*
 * A thread slot's tables are laid out for their whole size (a million
 * contexts by default: a program with a large shared interpreter needs some
 * 100,000), which costs nothing while they are holes of the file, but a write
 * into a hole that the file system has no room for kills the program
 * (SIGBUS).  So a slot's blocks are reserved with the first FIRST_FUNCS,
 * FIRST_EDGES and FIRST_CONTEXTS entries of its tables, and each table
 * doubles its reserved part as it fills (table_room): a reservation that
 * fails ends the table there (lost_*, ZR_FLAG_NO_ROOM).  Small first parts
 * keep a process that makes few calls at a few hundred KiB of disk (with
 * whole tables reserved, a program forking 1,600 times took 16 GB).  Under a
 * file size or address-space limit too small for the whole layout, the pool
 * is laid out for CTX_CHUNK contexts, then for the first parts of every
 * table, before any thread slot is given up.
 */
#define FIRST_FUNCS 1024u
#define FIRST_EDGES 2048u
#define FIRST_CONTEXTS 4096u
#define CTX_CHUNK 65536u
/* (context, pc) entries of a slot laid out small (an address-space limit) */
#define SMALL_SAMPLE_PCS 2048u

static uint32_t at_most(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint64_t align_up(uint64_t n, uint64_t a)
{
	return (n + a - 1) / a * a;
}

/* The smallest power of two that is at least twice n, so that probing always ends. */
static uint32_t hash_size(uint32_t n)
{
	uint32_t size = 16;
	while (size < 2 * (uint64_t)n)
		size *= 2;
	return size;
}

/*
 * Stack switches: the parking area (zrt_park), private memory that grows
 * as stacks are parked: an open-addressing table of the stacks parked, by
 * key, at most half full; their frames in chains of blocks of PARK_BLOCK.
 */
#define PARK_BLOCK 16u
#define PARK_FIRST 64u /* slots and blocks of a thread's first area */

/*
 * A parent context for a call made on a stack whose frames were lost while
 * it was suspended (zrt_thread.lost_path): counted in lost_stack_calls, on
 * no context.
 */
#define CTX_SWITCHED 0xfffffffdu

struct zrt_parked {
	uint64_t key;   /* the context the thread comes back through; 0: a free slot */
	uint64_t at;    /* the frame clock when parked (timed) */
	uint32_t first; /* its first block, ZR_NONE for none */
	uint32_t depth; /* its depth (frames kept: at most max_depth) */
	uint32_t id;    /* its name on the timeline */
	uint16_t lost;  /* it ran on with its callers lost (lost_path) */
	uint16_t by_swap; /* parked by swapcontext, whose return puts it back */
};

struct zrt_parking {
	struct zrt_parked *slots;
	uint32_t mask, used;
	struct zr_frame *frames; /* n_blocks blocks of PARK_BLOCK frames */
	uint32_t *next;          /* each block's next in its chain, or in the free list */
	uint32_t n_blocks, fresh, free_head, n_free; /* blocks below fresh have been used */
	uint32_t last_id;
};
static void park_free(struct zrt_thread *t);

static void copy_bytes(void *dst, const void *src, uint64_t n)
{
	__builtin_memcpy(dst, src, n);
}

static int same_string(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static const char *base_name(const char *path)
{
	const char *base = path;
	for (; *path; path++)
		if (*path == '/')
			base = path + 1;
	return base;
}

/* A filter or trigger path names a module by its full path, or by base name alone. */
int zrt_module_matches(const char *wanted, const char *path)
{
	if (same_string(wanted, path))
		return 1;
	return base_name(wanted) == wanted && same_string(wanted, base_name(path));
}

static void lay_out(struct zr_header *h, const struct zrt_config *cfg)
{
	h->max_modules = cfg->max_modules;
	h->max_threads = cfg->max_threads;
	h->max_funcs = cfg->max_funcs;
	h->max_edges = cfg->max_edges;
	h->max_depth = cfg->max_depth;
	h->max_contexts = cfg->max_contexts;
	h->ctx_hash_size = hash_size(cfg->max_contexts);
	h->sample_period_ns = cfg->sample_period_ns;
	h->sample_signal = cfg->sample_signal;
	h->func_hash_size = hash_size(cfg->max_funcs);
	h->edge_hash_size = hash_size(cfg->max_edges);
	h->string_bytes = cfg->string_bytes;

	h->funcs_off = align_up(sizeof(struct zr_thread), 64);
	h->edges_off = align_up(h->funcs_off + (uint64_t)h->max_funcs * sizeof(struct zr_func), 64);
	/*
	 * The hash indexes are touched at random: in the file, each new page of
	 * them cost a file-backed fault (several us on ext4) and readers never
	 * look at them, so they live in the port's private memory (offsets 0).
	 */
	h->seccomp_ticks = 0;
	h->lost_threads_room = 0;
	h->lost_processes = 0;
	h->edge_bytes = sizeof(struct zr_edge);
	h->stack_off = align_up(h->edges_off + (uint64_t)h->max_edges * sizeof(struct zr_edge), 64);
	h->contexts_off =
		align_up(h->stack_off + (uint64_t)h->max_depth * sizeof(struct zr_frame), 64);
	h->max_sample_pcs = cfg->max_sample_pcs ? hash_size(cfg->max_sample_pcs / 2) : 0;
	h->sample_pcs_off = align_up(
		h->contexts_off + (uint64_t)h->max_contexts * sizeof(struct zr_context), 64);
	uint64_t end = zrt_timeline_lay_out(
		h, cfg,
		align_up(h->sample_pcs_off +
				 (uint64_t)h->max_sample_pcs * sizeof(struct zr_sample_pc),
			 64));
	/* page-aligned slots: no two threads ever write the same cache line */
	h->thread_bytes = align_up(end, 4096);

	h->modules_off = align_up(sizeof *h, 64);
	h->strings_off =
		align_up(h->modules_off + (uint64_t)h->max_modules * sizeof(struct zr_module), 64);
	h->threads_off = align_up(h->strings_off + h->string_bytes, 4096);
	h->file_bytes = h->threads_off + (uint64_t)h->max_threads * h->thread_bytes;
}

static void use_mapping(void *base)
{
	struct zr_header *h = base;
	zrt.hdr = h;
	zrt.base = base;
	zrt.file_bytes = h->file_bytes;
	zrt.func_mask = h->func_hash_size - 1;
	zrt.edge_mask = h->edge_hash_size - 1;
	zrt.max_funcs = h->max_funcs;
	zrt.max_edges = h->max_edges;
	zrt.max_depth = h->max_depth;
	zrt.ctx_mask = h->ctx_hash_size - 1;
	zrt.max_contexts = h->max_contexts;
	zrt.pc_mask = h->max_sample_pcs ? h->max_sample_pcs - 1 : 0;
	zrt.timeline = h->max_events;
	zrt.index_bytes = align_up(
		((uint64_t)h->func_hash_size + h->edge_hash_size + h->ctx_hash_size) * 4, 4096);
	zrt.timed = !(h->flags & ZR_FLAG_NO_TIME);
	zrt.stacked = zrt.timed || (h->flags & ZR_FLAG_SAMPLED);
	zrt.clocked = zrt.timed || zrt.timeline;
}

/*
 * The raw file for layout, with the blocks of everything but the thread
 * slots reserved (each slot is reserved when a thread takes it); NULL when
 * there is no room (*why PORT_NO_ROOM) or the directory is out of reach
 * (PORT_NO_ACCESS).
 */
static struct zr_header *map_file(const struct zr_header *layout, int *why)
{
	struct zr_header *h = port_map_output(layout->file_bytes, why);
	int rc = h ? port_reserve_output(0, layout->threads_off) : 0;
	if (rc < 0) {
		*why = rc;
		port_drop_output(h, layout->file_bytes);
		h = NULL;
	}
	return h;
}

/*
 * Room for data: as many thread slots as RLIMIT_FSIZE allows, and when the
 * file system has no room for the file, one with none (the run still says
 * which process could not be recorded, and why: ZR_FLAG_NO_ROOM).
 */
static struct zr_header *map_file_with_room(struct zr_header *layout, const struct zrt_config *cfg)
{
	uint64_t limit = port_output_limit();
	if (layout->file_bytes > limit && cfg->max_contexts > CTX_CHUNK) {
		struct zrt_config small = *cfg;
		small.max_contexts = CTX_CHUNK;
		uint32_t flags = layout->flags;
		*layout = (struct zr_header){0};
		lay_out(layout, &small);
		layout->flags = flags;
	}
	/*
	 * Still too large (an address-space limit: zond takes a small share of
	 * what is left): each slot laid out for the first parts of its tables,
	 * so that threads are given up last; what the tables cannot hold is
	 * lost, counted (lost_*) and said (ZR_FLAG_NO_ROOM).
	 */
	if (layout->file_bytes > limit && cfg->max_contexts > FIRST_CONTEXTS) {
		struct zrt_config small = *cfg;
		small.max_contexts = FIRST_CONTEXTS;
		small.max_funcs = at_most(cfg->max_funcs, 4 * FIRST_FUNCS);
		small.max_edges = at_most(cfg->max_edges, 4 * FIRST_EDGES);
		small.max_sample_pcs = at_most(cfg->max_sample_pcs, SMALL_SAMPLE_PCS);
		uint32_t flags = layout->flags;
		*layout = (struct zr_header){0};
		lay_out(layout, &small);
		layout->flags = flags | ZR_FLAG_NO_ROOM;
	}
	if (layout->file_bytes > limit) {
		uint64_t fit = limit > layout->threads_off
				       ? (limit - layout->threads_off) / layout->thread_bytes
				       : 0;
		layout->max_threads = (uint32_t)fit;
		layout->file_bytes = layout->threads_off + fit * layout->thread_bytes;
		layout->flags |= ZR_FLAG_NO_ROOM;
	}
	int why = PORT_NO_ROOM;
	struct zr_header *h = layout->file_bytes <= limit ? map_file(layout, &why) : NULL;
	/* out of reach: no smaller file would do better (an exec'ed image counted the loss) */
	if (!h && why != PORT_NO_ACCESS) {
		/* a header alone, a few KiB: the run still has the process */
		struct zrt_config none = *cfg;
		none.max_threads = none.max_modules = 0;
		none.string_bytes = 64;
		*layout = (struct zr_header){0};
		lay_out(layout, &none);
		layout->flags = cfg->flags | ZR_FLAG_NO_ROOM;
		h = layout->file_bytes <= limit ? map_file(layout, &why) : NULL;
	}
	return h;
}

static void set_ids(struct zr_header *h, const struct zrt_ids *ids)
{
	h->pid = ids->pid;
	h->ppid = ids->ppid;
	h->ns_pid = ids->ns_pid;
	h->pid_levels = ids->pid_levels;
	h->pid_ns = ids->pid_ns;
}

int zrt_process_start(const struct zrt_config *cfg)
{
	struct zr_header layout = {0};
	lay_out(&layout, cfg);
	layout.flags = cfg->flags;
	struct zr_header *h = map_file_with_room(&layout, cfg);
	if (!h)
		return -1;
	*h = layout;
	copy_bytes(h->magic, ZR_MAGIC, sizeof h->magic);
	h->version = ZR_VERSION;
	h->header_bytes = sizeof *h;
	h->state = ZR_RUNNING;
	set_ids(h, &cfg->ids);
	h->clock = cfg->clock;
	h->arch = cfg->arch;
	/* copied as bytes: the audit collector builds this file general-register-only,
	   where aarch64 compilers refuse floating-point operations */
	__builtin_memcpy(&h->ticks_per_sec, &cfg->ticks_per_sec, sizeof h->ticks_per_sec);
	h->start_ticks = cfg->start.ticks ? cfg->start.ticks : port_clock();
	h->start_realtime_ns = cfg->start.realtime_ns;
	h->string_used = 1; /* offset 0 is the empty string */
	zrt.gate = cfg->manual ? ZRT_GATE_STOPPED : 0;
	use_mapping(h);
	zrt.slots_cut = h->max_threads < cfg->max_threads;
	return 0;
}

void zrt_process_end(int exited, int status, int64_t realtime_ns)
{
	struct zr_header *h = zrt.hdr;
	if (!h)
		return;
	h->end_ticks = port_clock();
	h->end_realtime_ns = realtime_ns;
	uint64_t lost = 0;
	for (int i = 0; i < ZRT_LOST_COUNTERS; i++)
		lost += __atomic_load_n(&zrt.lost_calls[i].calls, __ATOMIC_RELAXED);
	h->lost_thread_calls = lost;
	if (exited) {
		h->exit_status = status;
		h->state = ZR_EXITED;
	}
}

void zrt_set_recording(int on)
{
	if (on)
		__atomic_fetch_and(&zrt.gate, ~ZRT_GATE_STOPPED, __ATOMIC_RELAXED);
	else
		__atomic_fetch_or(&zrt.gate, ZRT_GATE_STOPPED, __ATOMIC_RELAXED);
}

/* ---- threads ----------------------------------------------------------- */

uint64_t zrt_thread_bytes(void)
{
	return zrt.hdr ? zrt.hdr->thread_bytes : 0;
}

uint64_t zrt_index_bytes(void)
{
	return zrt.hdr ? zrt.index_bytes : 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The reserved part of a table of max entries a slot starts with: first, or
   the n its former thread used (reserved then), if more. */
static uint32_t first_room(uint32_t max, uint32_t first, uint32_t n)
{
	return min_u32(max, first > n ? first : n);
}

void zrt_thread_bind(struct zrt_thread *t, void *slot, void *index)
{
	const struct zr_header *h = zrt.hdr;
	uint8_t *s = slot;
	t->info = slot;
	t->funcs = (struct zr_func *)(s + h->funcs_off);
	t->edges = (struct zr_edge *)(s + h->edges_off);
	t->func_hash = index;
	t->edge_hash = (uint32_t *)index + h->func_hash_size;
	t->stack = (struct zr_frame *)(s + h->stack_off);
	t->contexts = (struct zr_context *)(s + h->contexts_off);
	t->sample_pcs = (struct zr_sample_pc *)(s + h->sample_pcs_off);
	t->events = (struct zr_event *)(s + h->events_off);
	t->ctx_hash = t->edge_hash + h->edge_hash_size;
	t->ctx_mask = zrt.ctx_mask < CTX_INDEX_MIN - 1 ? zrt.ctx_mask : CTX_INDEX_MIN - 1;
	/* a slot of the file has its tables' first entries reserved; scratch
	   memory (calibration) all */
	int in_file = s >= zrt.base && s < zrt.base + zrt.file_bytes;
	const struct zr_thread *ti = t->info;
	int used = in_file && ti->used; /* the ended threads' summary */
	t->func_limit = zrt.max_funcs;
	t->edge_limit = zrt.max_edges;
	t->ctx_limit = zrt.max_contexts;
	t->func_room = in_file ? first_room(zrt.max_funcs, FIRST_FUNCS, used ? ti->n_funcs : 0)
			       : zrt.max_funcs;
	t->edge_room = in_file ? first_room(zrt.max_edges, FIRST_EDGES, used ? ti->n_edges : 0)
			       : zrt.max_edges;
	t->ctx_room = in_file ? first_room(zrt.max_contexts, FIRST_CONTEXTS,
					   used ? ti->n_contexts : 0)
			      : zrt.max_contexts;
	t->busy = 0;
	t->root_lo = t->root_len = 0;
	t->root_func = t->root_ctx = t->root_last = ZR_NONE;
	t->pair = zrt.pair;
	t->measure[0] = t->measure[1] = ZRT_MEASURE_EVERY;
	t->paid_sum[0] = t->paid_sum[1] = 0;
	t->paid_n[0] = t->paid_n[1] = 0;
}

static uint8_t *slot_at(uint32_t slot)
{
	return zrt.base + zrt.hdr->threads_off + slot * zrt.hdr->thread_bytes;
}

static uint32_t reuse_slot(void);

/*
 * Reserves the file blocks of [off, off + bytes) of the raw file: 0, or
 * PORT_NO_ROOM, or PORT_NO_ACCESS (the file out of reach: the process changed
 * its user or root), named by the header's flags.
 */
static int reserve(uint64_t off, uint64_t bytes)
{
	int rc = bytes ? port_reserve_output(off, bytes) : 0;
	if (rc >= 0)
		return 0;
	rc = rc == PORT_NO_ACCESS ? PORT_NO_ACCESS : PORT_NO_ROOM;
	__atomic_fetch_or(&zrt.hdr->flags,
			  rc == PORT_NO_ACCESS ? ZR_FLAG_NO_ACCESS : ZR_FLAG_NO_ROOM,
			  __ATOMIC_RELAXED);
	return rc;
}

/*
 * Reserves slot's blocks, of its function, edge and context tables the first
 * entries only (zrt_thread_bind's rooms): 0, or reserve's failure.
 */
static int reserve_slot(uint32_t slot)
{
	const struct zr_header *h = zrt.hdr;
	uint64_t at = h->threads_off + (uint64_t)slot * h->thread_bytes;
	uint64_t funcs = (uint64_t)min_u32(h->max_funcs, FIRST_FUNCS) * sizeof(struct zr_func);
	uint64_t edges = (uint64_t)min_u32(h->max_edges, FIRST_EDGES) * sizeof(struct zr_edge);
	uint64_t contexts =
		(uint64_t)min_u32(h->max_contexts, FIRST_CONTEXTS) * sizeof(struct zr_context);
	uint64_t pool_end = h->contexts_off + (uint64_t)h->max_contexts * sizeof(struct zr_context);
	/* the slot's head and its first functions; the first edges; the stack and
	   the first contexts; what follows the context pool (samples, timeline) */
	int rc = reserve(at, h->funcs_off + funcs);
	if (!rc)
		rc = reserve(at + h->edges_off, edges);
	if (!rc)
		rc = reserve(at + h->stack_off, h->contexts_off - h->stack_off + contexts);
	if (!rc)
		rc = reserve(at + pool_end, h->thread_bytes - pool_end);
	return rc;
}

/*
 * Claims the next free thread slot, its blocks reserved before it counts
 * (n_threads): every slot below n_threads may be read and written, and
 * never a hole the file system may have no room for (on a full tmpfs even
 * reading one is a SIGBUS, in the program or in zond's reader).  ZR_NONE
 * when every slot is taken, or (*no_room set to reserve's failure) when there
 * is no room for the next one, or no way to reserve it.  Two threads may reserve the same slot: the one that does not
 * get it reserves the next.
 */
static uint32_t claim_slot(struct zr_header *h, int *no_room)
{
	uint32_t n = __atomic_load_n(&h->n_threads, __ATOMIC_RELAXED);
	do {
		if (n >= h->max_threads)
			return ZR_NONE;
		int rc = reserve_slot(n);
		if (rc < 0) {
			*no_room = rc;
			return ZR_NONE;
		}
	} while (!__atomic_compare_exchange_n(&h->n_threads, &n, n + 1, 0, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	return n;
}

/*
 * Room for entry n of a table of t's slot (its first entry at table, size
 * bytes each): its blocks reserved, the reserved part doubled at a time; 0
 * when the table is full or the file system has no room (which ends it).
 */
static int table_room(uint32_t n, uint32_t *room, uint32_t *limit, const void *table,
		      uint32_t size)
{
	while (n >= *room) {
		if (*room >= *limit)
			return 0;
		uint32_t more = min_u32(*limit - *room, *room ? *room : 1);
		uint64_t at = (uint64_t)((const uint8_t *)table - zrt.base) + (uint64_t)*room * size;
		if (reserve(at, (uint64_t)more * size) < 0) {
			*limit = *room;
			return 0;
		}
		*room += more;
	}
	return 1;
}

/* Room for one more context in t's pool. */
static int context_room(struct zrt_thread *t)
{
	return table_room(t->info->n_contexts, &t->ctx_room, &t->ctx_limit, t->contexts,
			  sizeof(struct zr_context));
}

/*
 * Indexes of ended threads, kept for the next threads.  A thread's index is
 * megabytes of hash tables (zrt.index_bytes) of which it touches a few
 * pages; mapping a fresh one for each thread and unmapping it at its end
 * (a TLB shootdown on every CPU the process runs on) made a program that
 * starts many short threads five to nine times slower.  At its end a
 * thread clears the cells it used, each entry of its tables looked up
 * again (work in proportion to what it recorded, not to the index), and
 * leaves the index here, SPARE_INDEXES at most.
 */
enum { SPARE_INDEXES = 8 };
static struct {
	int lock;
	uint32_t n;
	void *index[SPARE_INDEXES];
} spare;

/* Zeroes the cell of index (mask + 1 cells) that holds value, probing from h: 0, or -1 if none. */
static int clear_cell(uint32_t *index, uint32_t mask, uint32_t h, uint32_t value)
{
	for (uint32_t n = 0; n <= mask; n++, h = (h + 1) & mask)
		if (index[h] == value) {
			index[h] = 0;
			return 0;
		}
	return -1;
}

/* Clears the cells of t's index its tables' entries hold: 0, or -1 (an entry not found). */
static int clear_index(struct zrt_thread *t)
{
	const struct zr_thread *ti = t->info;
	int rc = 0;
	for (uint32_t i = 0; i < ti->n_funcs && !rc; i++)
		rc = clear_cell(t->func_hash, zrt.func_mask, zrt_hash(t->funcs[i].addr) & zrt.func_mask,
				i + 1);
	for (uint32_t i = 0; i < ti->n_edges && !rc; i++) {
		const struct zr_edge *e = &t->edges[i];
		rc = clear_cell(t->edge_hash, zrt.edge_mask,
				zrt_edge_hash(e->caller, t->funcs[e->callee].addr) & zrt.edge_mask, i + 1);
	}
	for (uint32_t i = 0; i < ti->n_contexts && !rc; i++) {
		const struct zr_context *c = &t->contexts[i];
		rc = clear_cell(t->ctx_hash, t->ctx_mask, zrt_ctx_hash(c->parent, c->addr) & t->ctx_mask,
				i + 1);
	}
	return rc;
}

/* t's index, now that t ended: kept for the next thread when it can be cleared, else unmapped. */
static void give_index(struct zrt_thread *t)
{
	int kept = 0;
	if (clear_index(t) == 0) {
		while (__atomic_exchange_n(&spare.lock, 1, __ATOMIC_ACQUIRE))
			;
		if (spare.n < SPARE_INDEXES) {
			spare.index[spare.n++] = t->func_hash;
			kept = 1;
		}
		__atomic_store_n(&spare.lock, 0, __ATOMIC_RELEASE);
	}
	if (!kept)
		port_unmap_index(t->func_hash, zrt.index_bytes);
}

/* An index for a new thread: an ended thread's, cleared, or a fresh one; NULL when none. */
static void *take_index(void)
{
	void *index = NULL;
	while (__atomic_exchange_n(&spare.lock, 1, __ATOMIC_ACQUIRE))
		;
	if (spare.n)
		index = spare.index[--spare.n];
	__atomic_store_n(&spare.lock, 0, __ATOMIC_RELEASE);
	return index ? index : port_map_index(zrt.index_bytes);
}

static int bind_new_slot(struct zrt_thread *t)
{
	struct zr_header *h = zrt.hdr;
	void *index = take_index();
	int no_room = 0;
	uint32_t slot = index ? claim_slot(h, &no_room) : ZR_NONE;
	/* every slot taken, or no room for another: an ended thread's, already reserved */
	if (slot == ZR_NONE && index)
		slot = reuse_slot();
	if (slot == ZR_NONE) {
		if (index)
			port_unmap_index(index, zrt.index_bytes);
		/* the real cause: the file out of reach (the process changed its user or
		   root, and the kernel cannot reserve through the mapping), no room (a slot
		   not reserved, or fewer slots than asked), or every slot taken */
		if (no_room == PORT_NO_ACCESS)
			__atomic_fetch_add(&h->lost_threads_access, 1, __ATOMIC_RELAXED);
		else if (no_room || zrt.slots_cut)
			__atomic_fetch_add(&h->lost_threads_room, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&h->lost_threads, 1, __ATOMIC_RELAXED);
		uint32_t n = __atomic_fetch_add(&zrt.n_lost_threads, 1, __ATOMIC_RELAXED);
		t->lost_counter = 1 + n % ZRT_LOST_COUNTERS;
		return -1;
	}
	zrt_thread_bind(t, slot_at(slot), index);
	struct zr_thread *ti = t->info;
	ti->tid = port_thread_id();
	port_thread_name(ti->name);
	ti->start_ticks = port_clock();
	ti->last_ticks = ti->start_ticks;
	ti->paid_ticks = 0;
	/* the reader skips slots not (yet) marked used */
	__atomic_store_n(&ti->used, 1, __ATOMIC_RELEASE);
	return 0;
}

void zrt_thread_attach(struct zrt_thread *t)
{
	if (!zrt.hdr || bind_new_slot(t) < 0) {
		t->state = ZRT_THREAD_OFF;
		return;
	}
	t->state = ZRT_THREAD_ON;
	if (!t->shared_tls)
		port_thread_attached();
}

/*
 * Closes the frames t left open as it ended (pthread_exit from inside
 * calls), timed up to now as the reader times those of a process that ended:
 * merged into the ended threads' summary, they were lost while their
 * callees' times were kept (a caller far cheaper than its callees).
 */
static void close_ended_frames(struct zrt_thread *t)
{
	struct zr_thread *ti = t->info;
	if (!ti->depth)
		return;
	zrt_take(t, ZRT_HERE());
	uint64_t clock = zrt.clocked ? port_clock() : 0;
	uint64_t now = zrt.timed ? zrt_frame_clock(t, clock) : clock;
	uint32_t d = ti->depth < zrt.max_depth ? ti->depth : zrt.max_depth;
	ti->depth = d; /* calls deeper than the stack were counted, never pushed */
	for (; d > 0; d--)
		zrt_pop(t, d, now);
	zrt_unbusy(t);
	if (zrt_unlikely(zrt.timeline))
		zrt_timeline_closed(t, 0, now);
}

void zrt_thread_end(struct zrt_thread *t)
{
	if (t->state != ZRT_THREAD_ON || t->busy)
		return;
	close_ended_frames(t);
	/*
	 * What the thread still runs (the program's later key destructors; on
	 * the last thread, after main's pthread_exit, the exit handlers) is
	 * recorded: its next call attaches it again, to a slot of its own.
	 */
	t->state = ZRT_THREAD_NEW;
	/* its name now: a program names its threads after they start (pthread_setname_np) */
	port_thread_name(t->info->name);
	give_index(t);
	park_free(t);
	t->lost_path = t->park_lost = 0;
	uint64_t now = port_clock();
	/* nonzero: the slot may now be merged and handed on (reuse_slot) */
	__atomic_store_n(&t->info->end_ticks, now ? now : 1, __ATOMIC_RELEASE);
}

/*
 * Ended threads.  A slot outlives its thread; when every slot is taken, the
 * next new thread merges the slots of all ended threads into one of them,
 * the "ended threads" summary (tid 0), and takes one of the slots freed so:
 * a program that starts many short threads keeps every call, only their
 * split between ended threads is lost.  Cold path (a thread's first call),
 * under a spin lock; no ended slot is written by its thread any more.
 */
static struct {
	uint32_t lock;
	uint32_t summary; /* its slot, ZR_NONE until there is one */
	struct zrt_thread sum;
	uint32_t *map;      /* an ended thread's function index -> the summary's */
	uint32_t *edge_map; /* its edge index -> the summary's */
	uint32_t *ctx_map;  /* its context index -> the summary's (CTX_LOST: none) */
	uint32_t *free;     /* slots freed by merging, n_free of them */
	uint32_t n_free;
} ended = {.summary = ZR_NONE};

static uint32_t find_func(struct zrt_thread *t, uint64_t addr);
static uint32_t find_edge(struct zrt_thread *t, uint32_t caller, uint32_t callee, uint64_t site,
			  uint64_t pc);
static uint32_t find_context(struct zrt_thread *t, uint32_t parent, uint64_t addr, uint32_t i,
			     uint32_t e);

/*
 * The index of the function keyed by f's address in t, with f's identity
 * (flags, names, module) copied over: a function of another table (an ended
 * thread's, a parent's across fork) is the same function here.
 */
static uint32_t adopt_func(struct zrt_thread *t, const struct zr_func *f)
{
	uint32_t i = find_func(t, f->addr);
	if (i != ZR_NONE) {
		struct zr_func *g = &t->funcs[i];
		g->flags = f->flags;
		g->name = f->name;
		g->file = f->file;
		g->line = f->line;
		g->module = f->module;
	}
	return i;
}

static void zero_bytes(void *p, uint64_t n)
{
	/* volatile: a loop the compiler would turn into a call of the program's memset */
	volatile uint8_t *b = p;
	while (n--)
		*b++ = 0;
}

/* Refills t's context index, ctx_mask + 1 entries, from its contexts. */
static void index_contexts(struct zrt_thread *t)
{
	volatile uint32_t *x = t->ctx_hash; /* volatile: not a call of the program's memset */
	for (uint32_t h = 0; h <= t->ctx_mask; h++)
		x[h] = 0;
	for (uint32_t i = 0; i < t->info->n_contexts; i++) {
		const struct zr_context *c = &t->contexts[i];
		uint32_t h = zrt_ctx_hash(c->parent, c->addr) & t->ctx_mask;
		while (t->ctx_hash[h])
			h = (h + 1) & t->ctx_mask;
		t->ctx_hash[h] = i + 1;
	}
}

/* Grows t's context index until n contexts fill at most half of it, and refills it. */
static void fit_ctx_index(struct zrt_thread *t, uint32_t n)
{
	while ((uint64_t)n * 2 > (uint64_t)t->ctx_mask + 1 && t->ctx_mask < zrt.ctx_mask)
		t->ctx_mask = t->ctx_mask * 2 + 1;
	index_contexts(t);
}

/* Rebuilds the hash indexes of the tables t is bound to (the summary's index is private). */
static void index_tables(struct zrt_thread *t)
{
	for (uint32_t i = 0; i < t->info->n_funcs; i++) {
		uint32_t h = zrt_hash(t->funcs[i].addr) & zrt.func_mask;
		while (t->func_hash[h])
			h = (h + 1) & zrt.func_mask;
		t->func_hash[h] = i + 1;
	}
	for (uint32_t i = 0; i < t->info->n_edges; i++) {
		const struct zr_edge *e = &t->edges[i];
		uint32_t h = zrt_edge_hash(e->caller, t->funcs[e->callee].addr) & zrt.edge_mask;
		while (t->edge_hash[h])
			h = (h + 1) & zrt.edge_mask;
		t->edge_hash[h] = i + 1;
	}
	fit_ctx_index(t, t->info->n_contexts);
}

/* Makes the ended thread in slot the summary of ended threads: 0, or -1 (no memory). */
static int start_summary(uint32_t slot)
{
	uint64_t map_entries = (uint64_t)zrt.max_funcs + zrt.max_edges + zrt.max_contexts;
	uint64_t map_bytes = map_entries * sizeof *ended.map;
	uint64_t free_bytes = (uint64_t)zrt.hdr->max_threads * sizeof *ended.free;
	void *index = port_map_index(zrt.index_bytes + map_bytes + free_bytes);
	if (!index)
		return -1;
	zrt_thread_bind(&ended.sum, slot_at(slot), index);
	ended.map = (uint32_t *)((uint8_t *)index + zrt.index_bytes);
	ended.edge_map = ended.map + zrt.max_funcs;
	ended.ctx_map = ended.edge_map + zrt.max_edges;
	ended.free = ended.map + map_entries;
	index_tables(&ended.sum);
	struct zr_thread *ti = ended.sum.info;
	ti->tid = 0;
	const char name[16] = "(ended threads)";
	copy_bytes(ti->name, name, sizeof ti->name);
	ti->depth = 0; /* none: closed at the thread's end (close_ended_frames) */
	ended.summary = slot;
	return 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* 1 when no ancestor of t's context i is of the same function (its incl is not in theirs). */
static int outermost_context(const struct zrt_thread *t, uint32_t i)
{
	uint32_t up = t->contexts[i].parent;
	while (up != ZR_NONE && t->contexts[up].func != t->contexts[i].func)
		up = t->contexts[up].parent;
	return up == ZR_NONE;
}

/*
 * Counts n samples at (ctx, pc) in the thread's table: 0 when it is full
 * (three quarters used, so that a probe always ends at a free entry).
 */
static int place_sample(struct zrt_thread *t, uint32_t ctx, uint64_t pc, uint64_t n)
{
	struct zr_thread *ti = t->info;
	for (uint32_t i = zrt_hash(pc ^ ((uint64_t)ctx << 40) ^ ctx);; i++) {
		struct zr_sample_pc *e = &t->sample_pcs[i & zrt.pc_mask];
		if (e->samples && e->pc == pc && e->ctx == ctx) {
			e->samples += n;
			return 1;
		}
		if (e->samples)
			continue;
		if (ti->n_sample_pcs >= (zrt.pc_mask + 1) / 4 * 3)
			return 0;
		e->pc = pc;
		e->ctx = ctx;
		zrt_signal_fence();
		e->samples = n;
		ti->n_sample_pcs++;
		return 1;
	}
}

/*
 * Adds the ended thread d's context i into the summary's context of the
 * same path (its parent is merged already: parents come first).  A context
 * the summary's pool has no room for keeps its calls and times on its
 * function and edge, as the runtime does for a call without a context
 * (lost_contexts counts its calls; its samples go to samples_lost).  Run
 * after d's functions and edges are merged (ended.map, ended.edge_map).
 */
static void merge_context(const struct zrt_thread *d, uint32_t i)
{
	struct zrt_thread *s = &ended.sum;
	struct zr_thread *si = s->info;
	const struct zr_context *c = &d->contexts[i];
	uint32_t func = ended.map[c->func];
	uint32_t edge = c->edge == ZR_NONE ? ZR_NONE : ended.edge_map[c->edge];
	uint32_t parent = c->parent == ZR_NONE ? ZR_NONE : ended.ctx_map[c->parent];
	uint32_t k = ZR_NONE;
	if (func != ZR_NONE) {
		/* find_context counts one lost call; the calls lost here are counted below */
		uint32_t lost = si->lost_contexts;
		k = find_context(s, parent, c->addr, func, edge);
		si->lost_contexts = lost;
	}
	ended.ctx_map[i] = k == ZR_NONE ? CTX_LOST : k;
	if (k != ZR_NONE) {
		struct zr_context *to = &s->contexts[k];
		to->calls += c->calls;
		to->incl += c->incl;
		to->self += c->self;
		to->samples += c->samples;
		to->overhead += c->overhead;
		to->min = min_u64(to->min, c->min);
		to->max = max_u64(to->max, c->max);
		return;
	}
	si->samples_lost += c->samples;
	if (func == ZR_NONE) {
		si->lost_funcs += (uint32_t)c->calls;
		return;
	}
	/* its path is lost, not its calls: the function and edge records keep them */
	si->lost_contexts += (uint32_t)c->calls;
	struct zr_func *g = &s->funcs[func];
	g->calls += c->calls;
	g->self += c->self;
	g->overhead += c->overhead;
	if (outermost_context(d, i))
		g->incl += c->incl;
	g->min = min_u64(g->min, c->min);
	g->max = max_u64(g->max, c->max);
	if (edge != ZR_NONE) {
		s->edges[edge].calls += c->calls;
		s->edges[edge].incl += c->incl;
	}
}

/*
 * Adds the ended thread d's (context, pc) entries into the summary's table
 * under the contexts they were merged into (after merge_context); those of
 * a context the summary had no room for went to samples_lost with its
 * samples.  What the summary's table cannot keep is unplaced.
 */
static void merge_sample_pcs(const struct zrt_thread *d)
{
	struct zrt_thread *s = &ended.sum;
	for (uint32_t i = 0; zrt.pc_mask && d->info->n_sample_pcs && i <= zrt.pc_mask; i++) {
		const struct zr_sample_pc *e = &d->sample_pcs[i];
		uint32_t k = e->samples ? ended.ctx_map[e->ctx] : CTX_LOST;
		if (k != CTX_LOST && !place_sample(s, k, e->pc, e->samples))
			s->info->samples_unplaced += e->samples;
	}
}

/* Adds the ended thread d's calls and times into the summary. */
static void merge_thread(const struct zrt_thread *d)
{
	struct zrt_thread *s = &ended.sum;
	struct zr_thread *si = s->info;
	const struct zr_thread *di = d->info;
	for (uint32_t i = 0; i < di->n_funcs; i++) {
		const struct zr_func *f = &d->funcs[i];
		uint32_t j = ended.map[i] = adopt_func(s, f);
		if (j == ZR_NONE) {
			si->lost_funcs += (uint32_t)f->calls;
			continue;
		}
		struct zr_func *g = &s->funcs[j];
		g->calls += f->calls;
		g->incl += f->incl;
		g->self += f->self;
		g->overhead += f->overhead;
		g->min = min_u64(g->min, f->min);
		g->max = max_u64(g->max, f->max);
	}
	for (uint32_t i = 0; i < di->n_edges; i++) {
		const struct zr_edge *e = &d->edges[i];
		uint32_t caller = e->caller == ZR_NONE ? ZR_NONE : ended.map[e->caller];
		uint32_t callee = ended.map[e->callee];
		uint32_t k = ended.edge_map[i] =
			callee == ZR_NONE || (e->caller != ZR_NONE && caller == ZR_NONE)
				? ZR_NONE
				: find_edge(s, caller, callee, e->site, e->pc);
		if (k == ZR_NONE) {
			si->lost_edges += (uint32_t)e->calls;
			continue;
		}
		s->edges[k].calls += e->calls;
		s->edges[k].incl += e->incl;
	}
	for (uint32_t i = 0; i < di->n_contexts; i++)
		merge_context(d, i);
	merge_sample_pcs(d);
	zrt_timeline_merged(s, d);
	si->samples_unplaced += di->samples_unplaced;
	si->lost_funcs += di->lost_funcs;
	si->lost_edges += di->lost_edges;
	si->lost_frames += di->lost_frames;
	si->lost_stacks += di->lost_stacks;
	si->lost_stack_calls += di->lost_stack_calls;
	si->lost_contexts += di->lost_contexts;
	si->samples += di->samples;
	si->samples_zond += di->samples_zond;
	si->samples_sampling += di->samples_sampling;
	si->sample_cost_ticks += di->sample_cost_ticks;
	si->samples_root += di->samples_root;
	si->samples_lost += di->samples_lost;
	si->start_ticks = min_u64(si->start_ticks, di->start_ticks);
	if (di->last_ticks > si->last_ticks)
		si->last_ticks = di->last_ticks;
	if (di->end_ticks > si->end_ticks)
		si->end_ticks = di->end_ticks;
}

/*
 * Merges every ended thread's slot but the summary's into the summary and
 * frees it.  Only the slots claimed so far (n_threads): the others may be
 * holes of the file with no room behind them.
 */
static void merge_ended(void)
{
	struct zr_header *h = zrt.hdr;
	uint32_t n = __atomic_load_n(&h->n_threads, __ATOMIC_ACQUIRE);
	for (uint32_t slot = 0; slot < n; slot++) {
		struct zr_thread *ti = (struct zr_thread *)slot_at(slot);
		if (slot == ended.summary || !__atomic_load_n(&ti->used, __ATOMIC_ACQUIRE) ||
		    !__atomic_load_n(&ti->end_ticks, __ATOMIC_ACQUIRE))
			continue;
		if (ended.summary == ZR_NONE) {
			if (start_summary(slot) < 0)
				return;
			continue;
		}
		struct zrt_thread d = {
			.info = ti,
			.funcs = (struct zr_func *)(slot_at(slot) + h->funcs_off),
			.edges = (struct zr_edge *)(slot_at(slot) + h->edges_off),
			.contexts = (struct zr_context *)(slot_at(slot) + h->contexts_off),
			.sample_pcs = (struct zr_sample_pc *)(slot_at(slot) + h->sample_pcs_off),
		};
		merge_thread(&d);
		/* the reader skips it from here on; cleared for its next thread */
		__atomic_store_n(&ti->used, 0, __ATOMIC_RELEASE);
		zero_bytes(d.funcs, (uint64_t)ti->n_funcs * sizeof *d.funcs);
		zero_bytes(d.edges, (uint64_t)ti->n_edges * sizeof *d.edges);
		zero_bytes(d.contexts, (uint64_t)ti->n_contexts * sizeof *d.contexts);
		if (ti->n_sample_pcs)
			zero_bytes(d.sample_pcs, (uint64_t)h->max_sample_pcs * sizeof *d.sample_pcs);
		zero_bytes(ti, sizeof *ti);
		ended.free[ended.n_free++] = slot;
	}
}

/* A slot freed from an ended thread, for a new thread; ZR_NONE when there is none. */
static uint32_t reuse_slot(void)
{
	while (__atomic_exchange_n(&ended.lock, 1, __ATOMIC_ACQUIRE))
		;
	if (!ended.n_free)
		merge_ended();
	uint32_t slot = ended.n_free ? ended.free[--ended.n_free] : ZR_NONE;
	__atomic_store_n(&ended.lock, 0, __ATOMIC_RELEASE);
	return slot;
}

/* ---- strings and modules ----------------------------------------------- */

/* Copies s into the string pool; 0 (the empty string) when the pool is full. */
static uint32_t keep_string(const char *s)
{
	struct zr_header *h = zrt.hdr;
	uint32_t n = 1;
	while (s[n - 1])
		n++;
	uint32_t off = __atomic_fetch_add(&h->string_used, n, __ATOMIC_RELAXED);
	if (off > h->string_bytes || h->string_bytes - off < n) {
		__atomic_fetch_add(&h->lost_strings, 1, __ATOMIC_RELAXED);
		return 0;
	}
	copy_bytes((char *)zrt.base + h->strings_off + off, s, n);
	return off;
}

uint32_t zrt_keep_string(const char *s)
{
	return zrt.hdr ? keep_string(s) : 0;
}

static const char *string_at(uint32_t off)
{
	return (const char *)zrt.base + zrt.hdr->strings_off + off;
}

static struct zr_module *module_table(void)
{
	return (struct zr_module *)(zrt.base + zrt.hdr->modules_off);
}

static const struct zr_module *find_module(uint64_t addr)
{
	const struct zr_module *m = module_table();
	uint32_t n = __atomic_load_n(&zrt.hdr->n_modules, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (addr >= m[i].start && addr < m[i].end &&
		    !(__atomic_load_n(&m[i].flags, __ATOMIC_RELAXED) & ZR_MODULE_CLOSED))
			return &m[i];
	return NULL;
}

/* zr_func.module of the module record m: its index + 1, 0 for none. */
static uint32_t module_number(const struct zr_module *m)
{
	return m ? (uint32_t)(m - module_table()) + 1 : 0;
}

static void lock_modules(void)
{
	while (__atomic_exchange_n(&zrt.module_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void unlock_modules(void)
{
	__atomic_store_n(&zrt.module_lock, 0, __ATOMIC_RELEASE);
}

static void revive_functions(uint32_t module);

/* A closed record of the very object pm (path, addresses, bias): it was loaded again. */
static struct zr_module *closed_record(const struct port_module *pm)
{
	struct zr_module *m = module_table();
	for (uint32_t i = zrt.hdr->n_modules; i-- > 0;)
		if ((m[i].flags & ZR_MODULE_CLOSED) && m[i].start == pm->start &&
		    m[i].end == pm->end && m[i].bias == pm->bias &&
		    same_string(string_at(m[i].path), pm->path))
			return &m[i];
	return NULL;
}

/*
 * Whether pm, a module the table has no room for, is seen for the first time
 * since it was loaded (lost_modules counts each load once); under the module
 * lock.  Told apart by range, ZRT_UNRECORDED at once (beyond, each lookup counts).
 */
static int first_unrecorded(const struct port_module *pm)
{
	uint64_t(*at)[2] = zrt.unrecorded_at;
	int free_at = -1;
	for (int i = 0; i < ZRT_UNRECORDED; i++) {
		if (at[i][0] == pm->start && at[i][1] == pm->end)
			return 0;
		if (free_at < 0 && at[i][0] == at[i][1])
			free_at = i;
	}
	if (free_at >= 0) {
		at[free_at][0] = pm->start;
		at[free_at][1] = pm->end;
	}
	return 1;
}

/* Forgets the unrecorded modules no longer loaded (first_unrecorded); under the module lock. */
static void forget_unrecorded(void)
{
	struct port_module pm;
	for (int i = 0; i < ZRT_UNRECORDED; i++)
		if (zrt.unrecorded_at[i][0] != zrt.unrecorded_at[i][1] &&
		    (port_module_of(zrt.unrecorded_at[i][0], &pm) < 0 ||
		     pm.start != zrt.unrecorded_at[i][0] || pm.end != zrt.unrecorded_at[i][1]))
			zrt.unrecorded_at[i][0] = zrt.unrecorded_at[i][1] = 0;
}

/*
 * The module holding addr, recorded now if this is its first function.  An
 * object unloaded and loaded again at the same addresses (a plugin reloaded)
 * gets its record and functions back, so that reloading in a loop fills no
 * table; *revived is then set.  NULL for an address in no object, or (*full
 * set) in one the table has no room for.
 */
static const struct zr_module *note_module(uint64_t addr, int *revived, int *full)
{
	const struct zr_module *found = find_module(addr);
	if (found)
		return found;
	struct zr_header *h = zrt.hdr;
	lock_modules();
	found = find_module(addr);
	struct port_module pm;
	int known = !found && port_module_of(addr, &pm) == 0;
	struct zr_module *again = known ? closed_record(&pm) : NULL;
	if (again) {
		__atomic_and_fetch(&again->flags, ~ZR_MODULE_CLOSED, __ATOMIC_RELAXED);
		revive_functions(module_number(again));
		found = again;
		if (revived)
			*revived = 1;
	} else if (known) {
		uint32_t n = h->n_modules;
		if (n < h->max_modules) {
			struct zr_module *m = &module_table()[n];
			m->start = pm.start;
			m->end = pm.end;
			m->bias = pm.bias;
			m->path = keep_string(pm.path);
			__atomic_store_n(&h->n_modules, n + 1, __ATOMIC_RELEASE);
			found = m;
		} else {
			if (first_unrecorded(&pm))
				__atomic_fetch_add(&h->lost_modules, 1, __ATOMIC_RELAXED);
			if (full)
				*full = 1;
		}
	}
	unlock_modules();
	return found;
}

static int is_filtered(uint64_t addr, const struct zr_module *m)
{
	if (!m || !zrt.n_filters)
		return 0;
	const char *path = string_at(m->path);
	uint64_t link = addr - m->bias;
	for (size_t i = 0; i < zrt.n_filters; i++) {
		const struct zrt_filter *f = &zrt.filters[i];
		if (link >= f->start && link < f->end && zrt_module_matches(f->module, path))
			return 1;
	}
	return 0;
}

/* The part of a function's key that is an address in its module. */
static uint64_t key_address(uint64_t key)
{
	return key & ~(ZR_BLOCK_BIT | ZR_MODULE_BIT | ZR_CLOSED_BIT);
}

/* mark_key's module: the functions of unrecorded modules no longer loaded */
#define UNRECORDED_GONE UINT32_MAX

/*
 * A key (a function's or a context's addr) retired when in [start, end)
 * (module 0), or brought back when retired and its function is of module;
 * with UNRECORDED_GONE retired when its function is of an unrecorded module
 * and no object is loaded at it any more.
 */
static void mark_key(uint64_t *addr, const struct zr_func *f, uint64_t start, uint64_t end,
		     uint32_t module)
{
	uint64_t key = __atomic_load_n(addr, __ATOMIC_RELAXED);
	uint64_t a = key_address(key);
	struct port_module pm;
	if (module == UNRECORDED_GONE) {
		if ((f->flags & ZR_FUNC_UNRECORDED) && !(key & ZR_CLOSED_BIT) &&
		    port_module_of(a, &pm) < 0)
			__atomic_store_n(addr, key | ZR_CLOSED_BIT, __ATOMIC_RELAXED);
	} else if (module && (key & ZR_CLOSED_BIT) && f->module == module)
		__atomic_store_n(addr, key & ~ZR_CLOSED_BIT, __ATOMIC_RELAXED);
	else if (!module && !(key & ZR_CLOSED_BIT) && a >= start && a < end)
		__atomic_store_n(addr, key | ZR_CLOSED_BIT, __ATOMIC_RELAXED);
}

/*
 * Every thread's functions, blocks and module records, and their contexts
 * (keyed by address too, and caching the function's index: a context of a
 * retired function found again would count a new object's calls on it):
 * retired when keyed in [start, end) (module 0), or brought back when
 * retired and of module.
 */
static void mark_functions(uint64_t start, uint64_t end, uint32_t module)
{
	struct zr_header *h = zrt.hdr;
	uint32_t n = __atomic_load_n(&h->n_threads, __ATOMIC_ACQUIRE);
	for (uint32_t slot = 0; slot < n; slot++) {
		const struct zr_thread *ti = (const struct zr_thread *)slot_at(slot);
		if (!__atomic_load_n(&ti->used, __ATOMIC_ACQUIRE))
			continue;
		struct zr_func *f = (struct zr_func *)((uint8_t *)ti + h->funcs_off);
		uint32_t nf = __atomic_load_n(&ti->n_funcs, __ATOMIC_ACQUIRE);
		for (uint32_t i = 0; i < nf; i++)
			mark_key(&f[i].addr, &f[i], start, end, module);
		struct zr_context *c = (struct zr_context *)((uint8_t *)ti + h->contexts_off);
		uint32_t nc = __atomic_load_n(&ti->n_contexts, __ATOMIC_ACQUIRE);
		for (uint32_t i = 0; i < nc; i++)
			if (c[i].func < nf)
				mark_key(&c[i].addr, &f[c[i].func], start, end, module);
	}
}

static void retire_functions(uint64_t start, uint64_t end)
{
	mark_functions(start, end, 0);
}

static void revive_functions(uint32_t module)
{
	mark_functions(0, 0, module);
}

void zrt_module_closed(uint64_t start, uint64_t end)
{
	if (!zrt.hdr || start >= end)
		return;
	lock_modules();
	struct zr_module *m = module_table();
	uint32_t n = zrt.hdr->n_modules;
	for (uint32_t i = 0; i < n; i++)
		if (m[i].start < end && start < m[i].end && !(m[i].flags & ZR_MODULE_CLOSED))
			__atomic_or_fetch(&m[i].flags, ZR_MODULE_CLOSED, __ATOMIC_RELAXED);
	retire_functions(start, end);
	/* every thread's cached calling module may be this one */
	__atomic_add_fetch(&zrt.modules_closed, 1, __ATOMIC_RELEASE);
	if (zrt.unrecorded)
		forget_unrecorded();
	unlock_modules();
}

void zrt_unrecorded_closed(void)
{
	if (!zrt.hdr || !__atomic_load_n(&zrt.unrecorded, __ATOMIC_RELAXED))
		return;
	lock_modules();
	forget_unrecorded();
	mark_functions(0, 0, UNRECORDED_GONE);
	unlock_modules();
}

/* ---- functions and edges ----------------------------------------------- */

static uint32_t probe_func(struct zrt_thread *t, uint64_t addr, uint32_t *slot);

static uint32_t add_func(struct zrt_thread *t, uint64_t addr, uint32_t slot)
{
	struct zr_thread *ti = t->info;
	if (!table_room(ti->n_funcs, &t->func_room, &t->func_limit, t->funcs,
			sizeof(struct zr_func))) {
		ti->lost_funcs++;
		return ZR_NONE;
	}
	uint32_t i = ti->n_funcs;
	struct zr_func *f = &t->funcs[i];
	f->addr = addr;
	f->min = UINT64_MAX;
	if (addr & ZR_BLOCK_BIT) {
		f->flags = ZR_FUNC_BLOCK;
	} else if (addr & ZR_MODULE_BIT) {
		const struct zr_module *m = find_module(addr & ~ZR_MODULE_BIT);
		f->flags = ZR_FUNC_MODULE;
		f->name = m ? m->path : 0;
		f->module = module_number(m);
	} else {
		int revived = 0, full = 0;
		const struct zr_module *m = note_module(addr, &revived, &full);
		uint32_t j;
		/* this thread's entry of it, from the object's last load, is live again */
		if (revived && (j = probe_func(t, addr, &slot)) != ZR_NONE)
			return j;
		f->module = module_number(m);
		if (full) {
			/* its calls are counted as lost, on no other module's function */
			f->flags = ZR_FUNC_UNRECORDED;
			__atomic_store_n(&zrt.unrecorded, 1, __ATOMIC_RELAXED);
		} else if (is_filtered(addr, m))
			f->flags = ZR_FUNC_FILTERED;
		else if (zrt.function_name && (f->name = zrt.function_name(addr)) != 0)
			f->flags = ZR_FUNC_NAMED;
	}
	ti->n_funcs = i + 1;
	t->func_hash[slot] = i + 1;
	return i;
}

/* The index of the function at addr, ZR_NONE with *slot the empty hash slot for it. */
static uint32_t probe_func(struct zrt_thread *t, uint64_t addr, uint32_t *slot)
{
	uint32_t h = zrt_hash(addr) & zrt.func_mask;
	for (;; h = (h + 1) & zrt.func_mask) {
		uint32_t x = t->func_hash[h];
		if (!x) {
			*slot = h;
			return ZR_NONE;
		}
		if (t->funcs[x - 1].addr == addr)
			return x - 1;
	}
}

/* The index of the function at addr, added on first sight; ZR_NONE when the table is full. */
static uint32_t find_func(struct zrt_thread *t, uint64_t addr)
{
	uint32_t slot;
	uint32_t i = probe_func(t, addr, &slot);
	return i != ZR_NONE ? i : add_func(t, addr, slot);
}

/*
 * The context of func i at addr called from context parent (ZR_NONE: a root
 * call) over edge e, added on first sight; ZR_NONE when the pool is full or
 * parent is CTX_LOST.
 */
static uint32_t find_context(struct zrt_thread *t, uint32_t parent, uint64_t addr, uint32_t i,
			     uint32_t e)
{
	struct zr_thread *ti = t->info;
	if (parent == CTX_LOST) {
		ti->lost_contexts++;
		return ZR_NONE;
	}
	if (parent == CTX_SWITCHED) {
		ti->lost_stack_calls++;
		return ZR_NONE;
	}
	uint32_t h = zrt_ctx_hash(parent, addr) & t->ctx_mask;
	for (;; h = (h + 1) & t->ctx_mask) {
		uint32_t x = t->ctx_hash[h];
		if (x) {
			struct zr_context *c = &t->contexts[x - 1];
			if (c->parent == parent && c->addr == addr) {
				/* an edge the table had no room for when the context came */
				if (c->edge == ZR_NONE)
					c->edge = e;
				return x - 1;
			}
			continue;
		}
		if (!context_room(t)) {
			ti->lost_contexts++;
			return ZR_NONE;
		}
		if ((uint64_t)(ti->n_contexts + 1) * 2 > (uint64_t)t->ctx_mask + 1 &&
		    t->ctx_mask < zrt.ctx_mask) {
			/* its slot moves with the index's size */
			fit_ctx_index(t, ti->n_contexts + 1);
			for (h = zrt_ctx_hash(parent, addr) & t->ctx_mask; t->ctx_hash[h];)
				h = (h + 1) & t->ctx_mask;
		}
		struct zr_context *c = &t->contexts[ti->n_contexts];
		c->parent = parent;
		c->func = i;
		c->edge = e;
		c->addr = addr;
		c->min = UINT64_MAX;
		t->ctx_hash[h] = ++ti->n_contexts;
		return ti->n_contexts - 1;
	}
}

uint32_t zrt_root_caller(struct zrt_thread *t, uint64_t site)
{
	if (!zrt.root_modules || !site)
		return ZR_NONE;
	uint32_t gen = __atomic_load_n(&zrt.modules_closed, __ATOMIC_ACQUIRE);
	if (site - t->root_lo < t->root_len && t->root_gen == gen)
		return t->root_func;
	const struct zr_module *m = note_module(site, NULL, NULL);
	if (!m)
		return ZR_NONE;
	uint32_t i = find_func(t, m->start | ZR_MODULE_BIT);
	if (i == ZR_NONE)
		return ZR_NONE;
	t->root_lo = m->start;
	t->root_len = m->end - m->start;
	t->root_func = i;
	t->root_gen = gen;
	/* the module's own root context: the parent of the contexts of its calls */
	t->root_ctx = find_context(t, ZR_NONE, m->start | ZR_MODULE_BIT, i, ZR_NONE);
	t->root_last = ZR_NONE;
	return i;
}

/*
 * The caller (function index) of a call at stack depth d made from site, and
 * in *parent its context: ZR_NONE for a root call, CTX_LOST when the caller
 * has none.
 */
static uint32_t caller_at(struct zrt_thread *t, uint32_t d, uint64_t site, uint32_t *parent)
{
	if (d > zrt.max_depth) {
		*parent = CTX_LOST;
		return ZR_NONE;
	}
	if (d) {
		const struct zr_frame *top = &t->stack[d - 1];
		*parent = top->ctx != ZR_NONE ? top->ctx : t->lost_path ? CTX_SWITCHED : CTX_LOST;
		return top->func;
	}
	if (t->lost_path) {
		*parent = CTX_SWITCHED; /* its callers are not known: no root edge either */
		return ZR_NONE;
	}
	uint32_t caller = zrt_root_caller(t, site);
	*parent = caller == ZR_NONE ? ZR_NONE : t->root_ctx == ZR_NONE ? CTX_LOST : t->root_ctx;
	return caller;
}

/*
 * The edge from caller to callee, added on first sight with its call site
 * and the entry probe's own return address pc (where the callee's code ran:
 * the reader's way to an inlined callee's call line).
 */
static uint32_t find_edge(struct zrt_thread *t, uint32_t caller, uint32_t callee, uint64_t site,
			  uint64_t pc)
{
	uint64_t addr = t->funcs[callee].addr;
	uint32_t h = zrt_edge_hash(caller, addr) & zrt.edge_mask;
	for (;; h = (h + 1) & zrt.edge_mask) {
		uint32_t x = t->edge_hash[h];
		if (x) {
			if (t->edges[x - 1].caller == caller && t->edges[x - 1].callee == callee)
				return x - 1;
			continue;
		}
		struct zr_thread *ti = t->info;
		if (!table_room(ti->n_edges, &t->edge_room, &t->edge_limit, t->edges,
				sizeof(struct zr_edge))) {
			ti->lost_edges++;
			return ZR_NONE;
		}
		struct zr_edge *e = &t->edges[ti->n_edges];
		e->caller = caller;
		e->callee = callee;
		e->site = site;
		e->pc = pc;
		/* a port naming its functions (libcalls) shows root calls by calling module */
		if (caller == ZR_NONE && site && zrt.function_name)
			note_module(site, NULL, NULL);
		t->edge_hash[h] = ++ti->n_edges;
		return ti->n_edges - 1;
	}
}

static int gate_open(uint64_t fn, uint32_t depth)
{
	uint32_t gate = __atomic_load_n(&zrt.gate, __ATOMIC_RELAXED);
	if (gate & ZRT_GATE_STOPPED)
		return 0;
	/* inside the trigger function exactly when anything is on the stack */
	if (gate & ZRT_GATE_TRIGGER)
		return depth > 0 || (fn == zrt.trigger && fn != 0);
	return 1;
}

/*
 * Closes the frames no longer live at a probe at sp, for a new call of fn
 * from pc (zrt_frame_stale; fn 0 for an exit or an unwinding).  now == 0:
 * read the clock.
 */
static uint32_t drop_stale(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t pc, uint64_t now)
{
	uint32_t d = t->info->depth;
	while (d > 0 && d <= zrt.max_depth && zrt_frame_stale(t, &t->stack[d - 1], fn, sp, pc)) {
		if (!now && zrt.timed)
			now = zrt_frame_clock(t, port_clock());
		zrt_pop(t, d, now);
		d--;
	}
	return d;
}

/* Whether calls of function i (ZR_NONE: no room for it) are kept off the stack. */
static int off_stack(const struct zrt_thread *t, uint32_t i)
{
	return i == ZR_NONE || (t->funcs[i].flags & (ZR_FUNC_FILTERED | ZR_FUNC_UNRECORDED));
}

/*
 * Whether a call of function i is kept off the stack (off_stack); the call
 * of a function of an unrecorded module is counted on its record alone.
 */
static int skip_call(struct zrt_thread *t, uint32_t i)
{
	if (!off_stack(t, i))
		return 0;
	if (i != ZR_NONE && (t->funcs[i].flags & ZR_FUNC_UNRECORDED))
		t->funcs[i].calls++;
	return 1;
}

void zrt_note_missed(struct zrt_thread *t, uint64_t fn)
{
	uint32_t n = t->n_missed;
	if (n >= ZRT_MISSED) {
		t->info->lost_funcs++; /* not counted at all */
		return;
	}
	t->missed[n] = fn;
	zrt_signal_fence();
	t->n_missed = n + 1;
}

void zrt_count_missed(struct zrt_thread *t)
{
	uint32_t done = 0, n;
	do {
		n = __atomic_load_n(&t->n_missed, __ATOMIC_RELAXED);
		for (; done < n; done++) {
			uint32_t i = find_func(t, t->missed[done]);
			if (skip_call(t, i))
				continue;
			t->funcs[i].calls++;
			t->info->unstacked_calls++; /* the real stack is not known */
		}
		/* a handler interrupting this one may have added more */
	} while (!__atomic_compare_exchange_n(&t->n_missed, &n, 0, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

void zrt_charge_popped(struct zrt_thread *t, struct zr_frame *fr, uint64_t now)
{
	struct zr_edge *edge = fr->edge != ZR_NONE ? &t->edges[fr->edge] : NULL;
	struct zr_context *ctx = fr->ctx != ZR_NONE ? &t->contexts[fr->ctx] : NULL;
	/*
	 * A call continued from before a fork (zr_thread.continued_frames) is
	 * only a piece of one: its time goes into the sums, not into min and
	 * max, as a call cut short; a frame opened at its depth later is a call
	 * of this process.
	 */
	uint32_t k = (uint32_t)(fr - t->stack);
	int whole = k >= t->info->continued_frames;
	if (!whole)
		t->info->continued_frames = k;
	zr_frame_charge(fr, fr > t->stack ? fr - 1 : NULL, &t->funcs[fr->func], edge, ctx, now,
			zrt.inner, t->pair, whole);
	t->info->last_ticks = now;
}

/* Counts one call of func i: on its context c, or without one on the function and edge e. */
static void count_call(struct zrt_thread *t, uint32_t i, uint32_t e, uint32_t c)
{
	if (c != ZR_NONE) {
		t->contexts[c].calls++;
		return;
	}
	t->funcs[i].calls++;
	if (e != ZR_NONE)
		t->edges[e].calls++;
}

/* Counts a call of fn (key: address, or block site | ZR_BLOCK_BIT) and pushes its frame. */
static struct zr_frame *push(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp,
			     uint64_t pc)
{
	struct zr_thread *ti = t->info;
	uint32_t d = ti->depth;
	if (zrt.gate && !gate_open(fn, d))
		return NULL;
	uint32_t i = find_func(t, fn);
	if (skip_call(t, i))
		return NULL;
	if (d >= zrt.max_depth) {
		t->funcs[i].calls++;
		/* counted, not timed; the exit probe gives the level back */
		ti->lost_frames++;
		ti->depth++;
		return NULL;
	}
	uint32_t parent;
	uint32_t caller = caller_at(t, d, site, &parent);
	uint32_t e = d || parent != CTX_SWITCHED ? find_edge(t, caller, i, site, pc) : ZR_NONE;
	uint32_t c = find_context(t, parent, fn, i, e);
	count_call(t, i, e, c);
	/* the caller's next call of fn takes the fast path's cache (core.h zrt_enter) */
	if (c != ZR_NONE && t->contexts[c].edge != ZR_NONE) {
		zrt_entered_context(t, c);
		if (d)
			t->stack[d - 1].last_child = c;
	}
	return zrt_open_frame(t, d, fn, zrt_sp_key(sp, pc), i, e, c);
}

struct zr_frame *zrt_enter_slow(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp,
				uint64_t pc)
{
	if (t->busy)
		return NULL;
	zrt_take(t, ZRT_HERE());
	drop_stale(t, fn, sp, pc, 0);
	struct zr_frame *fr = push(t, fn, site, sp, pc);
	zrt_unbusy(t);
	return fr;
}

static void exit_slow(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t now)
{
	uint32_t d = t->info->depth;
	if (d > zrt.max_depth) {
		/* only calls that were counted on entry took a level */
		uint32_t i = find_func(t, fn);
		if (!off_stack(t, i))
			t->info->depth--;
		return;
	}
	d = drop_stale(t, 0, sp, 0, now);
	/*
	 * fn's frame, under what it left open in its own stack frame (blocks,
	 * inlined calls abandoned by an exception); none when a frame of an
	 * ancestor comes first: a call that was never pushed (filtered, gated,
	 * table full).
	 */
	uint32_t k = d;
	while (k > 0 && t->stack[k - 1].addr != fn)
		k = zrt_frame_sp(&t->stack[k - 1]) > sp ? 0 : k - 1;
	for (; k > 0 && d >= k; d--)
		zrt_pop(t, d, now);
}

void zrt_exit_resuming(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t now)
{
	if (t->busy && zrt_still_busy(t, sp))
		return;
	zrt_take(t, ZRT_HERE());
	uint32_t d = t->info->depth;
	if (d > zrt.max_depth) {
		exit_slow(t, fn, sp, now); /* no frame kept so deep: only its level */
	} else {
		/* a frame resuming before (its unwinding reached us) is closed here */
		d = drop_stale(t, 0, sp, 0, now);
		uint32_t k = d; /* fn's frame, as exit_slow finds it */
		while (k > 0 && t->stack[k - 1].addr != fn)
			k = zrt_frame_sp(&t->stack[k - 1]) > sp ? 0 : k - 1;
		if (k) {
			for (; d > k; d--)
				zrt_pop(t, d, now);
			t->stack[k - 1].sp = 0;
		}
	}
	zrt_unbusy(t);
}

void zrt_exit_slow(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t now)
{
	if (t->busy && zrt_still_busy(t, sp))
		return;
	zrt_take(t, ZRT_HERE());
	exit_slow(t, fn, sp, now);
	zrt_unbusy(t);
}

uint32_t zrt_count_call(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp, uint64_t pc)
{
	uint32_t e = ZR_NONE;
	if (t->busy && zrt_still_busy(t, sp)) {
		zrt_note_missed(t, fn);
		return e;
	}
	zrt_take(t, ZRT_HERE());
	uint32_t d = drop_stale(t, fn, sp, pc, 0);
	if (!zrt.gate || gate_open(fn, d)) {
		uint32_t i = find_func(t, fn);
		if (!skip_call(t, i)) {
			uint32_t parent;
			uint32_t caller = caller_at(t, d, site, &parent);
			if (d || parent != CTX_SWITCHED)
				e = find_edge(t, caller, i, site, pc);
			count_call(t, i, e, find_context(t, parent, fn, i, e));
		}
	}
	zrt_unbusy(t);
	return e;
}

/* ---- stack switches ---------------------------------------------------- */

static uint64_t slots_bytes(uint32_t n)
{
	return (uint64_t)n * sizeof(struct zrt_parked);
}

static uint64_t blocks_bytes(uint32_t n)
{
	return (uint64_t)n * (PARK_BLOCK * sizeof(struct zr_frame) + sizeof(uint32_t));
}

static void park_free(struct zrt_thread *t)
{
	struct zrt_parking *p = t->parking;
	if (!p)
		return;
	if (p->slots)
		port_unmap_index(p->slots, slots_bytes(p->mask + 1));
	if (p->frames)
		port_unmap_index(p->frames, blocks_bytes(p->n_blocks));
	port_unmap_index(p, sizeof *p);
	t->parking = NULL;
}

static struct zrt_parking *parking(struct zrt_thread *t)
{
	if (!t->parking) {
		struct zrt_parking *p = port_map_index(sizeof *p);
		if (!p)
			return NULL;
		p->slots = port_map_index(slots_bytes(PARK_FIRST));
		if (!p->slots) {
			port_unmap_index(p, sizeof *p);
			return NULL;
		}
		p->mask = PARK_FIRST - 1;
		p->free_head = ZR_NONE;
		t->parking = p;
	}
	return t->parking;
}

/* The slot of key, or of where it would go. */
static uint32_t park_slot(const struct zrt_parking *p, uint64_t key)
{
	uint32_t h = zrt_hash(key) & p->mask;
	while (p->slots[h].key && p->slots[h].key != key)
		h = (h + 1) & p->mask;
	return h;
}

/* Room for one more stack: the table doubles when it would be more than half full. */
static int park_room(struct zrt_parking *p)
{
	if ((uint64_t)(p->used + 1) * 2 <= (uint64_t)p->mask + 1)
		return 1;
	uint32_t size = (p->mask + 1) * 2;
	if (!size)
		return 0;
	struct zrt_parked *old = p->slots, *slots = port_map_index(slots_bytes(size));
	if (!slots)
		return 0;
	uint32_t old_size = p->mask + 1;
	p->slots = slots;
	p->mask = size - 1;
	for (uint32_t i = 0; i < old_size; i++)
		if (old[i].key)
			p->slots[park_slot(p, old[i].key)] = old[i];
	port_unmap_index(old, slots_bytes(old_size));
	return 1;
}

/* Room for n more blocks: the block pool doubles (at least) when short. */
static int block_room(struct zrt_parking *p, uint32_t n)
{
	uint64_t have = (uint64_t)p->n_free + (p->n_blocks - p->fresh);
	if (have >= n)
		return 1;
	uint64_t want = p->n_blocks ? 2 * (uint64_t)p->n_blocks : PARK_FIRST;
	if (want < p->fresh + (uint64_t)n)
		want = p->fresh + (uint64_t)n;
	if (want >= ZR_NONE)
		return 0;
	struct zr_frame *frames = port_map_index(blocks_bytes((uint32_t)want));
	if (!frames)
		return 0;
	uint32_t *next = (uint32_t *)(frames + want * PARK_BLOCK);
	if (p->frames) {
		copy_bytes(frames, p->frames, (uint64_t)p->fresh * PARK_BLOCK * sizeof *frames);
		copy_bytes(next, p->next, (uint64_t)p->fresh * sizeof *next);
		port_unmap_index(p->frames, blocks_bytes(p->n_blocks));
	}
	p->frames = frames;
	p->next = next;
	p->n_blocks = (uint32_t)want;
	return 1;
}

static uint32_t take_block(struct zrt_parking *p)
{
	if (p->free_head != ZR_NONE) {
		uint32_t b = p->free_head;
		p->free_head = p->next[b];
		p->n_free--;
		return b;
	}
	return p->fresh++;
}

static void give_blocks(struct zrt_parking *p, uint32_t b)
{
	while (b != ZR_NONE) {
		uint32_t next = p->next[b];
		p->next[b] = p->free_head;
		p->free_head = b;
		p->n_free++;
		b = next;
	}
}

/* Removes slot h's stack, its blocks given back (backward-shift deletion). */
static void park_remove(struct zrt_parking *p, uint32_t h)
{
	give_blocks(p, p->slots[h].first);
	p->used--;
	for (uint32_t j = (h + 1) & p->mask; p->slots[j].key; j = (j + 1) & p->mask) {
		uint32_t home = zrt_hash(p->slots[j].key) & p->mask;
		/* j's entry may fill the hole at h when its home is not in (h, j] */
		if (((j - home) & p->mask) >= ((j - h) & p->mask)) {
			p->slots[h] = p->slots[j];
			h = j;
		}
	}
	p->slots[h].key = 0;
}

/* Copies n frames between the stack and a chain of blocks starting at b. */
static void chain_copy(struct zrt_parking *p, uint32_t b, struct zr_frame *stack, uint32_t n,
		       int out)
{
	for (uint32_t k = 0; k < n; k += PARK_BLOCK, b = p->next[b]) {
		uint32_t m = n - k < PARK_BLOCK ? n - k : PARK_BLOCK;
		struct zr_frame *blk = &p->frames[(uint64_t)b * PARK_BLOCK];
		if (out)
			copy_bytes(blk, stack + k, m * sizeof *stack);
		else
			copy_bytes(stack + k, blk, m * sizeof *stack);
	}
}

/* The timeline's event of a switch (the caller holds t's busy flag). */
static void note_switch(struct zrt_thread *t, uint32_t kind, uint32_t id)
{
	if (zrt_unlikely(zrt.timeline)) {
		uint64_t now = port_clock();
		zrt_timeline_switch(t, kind, id, zrt.timed ? zrt_frame_clock(t, now) : now);
	}
}

void zrt_park(struct zrt_thread *t, uint64_t key, int by_swap)
{
	if (t->busy || !key)
		return;
	zrt_take(t, ZRT_HERE());
	struct zr_thread *ti = t->info;
	uint32_t depth = ti->depth, kept = depth < zrt.max_depth ? depth : zrt.max_depth;
	/* a stack with nothing open needs no record, unless its resumption could
	   then be taken for that of a stack whose frames were lost */
	int keep = depth || t->lost_path || t->park_lost;
	struct zrt_parking *p = keep ? parking(t) : t->parking;
	uint32_t id = 0;
	if (p) {
		/* the key's last parking was never resumed: it is replaced */
		uint32_t h = park_slot(p, key);
		if (p->slots[h].key)
			park_remove(p, h);
	}
	if (keep) {
		uint32_t blocks = (kept + PARK_BLOCK - 1) / PARK_BLOCK;
		if (p && park_room(p) && block_room(p, blocks)) {
			struct zrt_parked *k = &p->slots[park_slot(p, key)];
			k->key = key;
			k->at = zrt.timed ? zrt_frame_clock(t, port_clock()) : 0;
			k->depth = depth;
			k->lost = (uint16_t)t->lost_path;
			k->by_swap = (uint16_t)(by_swap != 0);
			k->id = id = ++p->last_id ? p->last_id : ++p->last_id;
			k->first = ZR_NONE;
			/* the chain, built back to front */
			for (uint32_t n = 0; n < blocks; n++) {
				uint32_t b = take_block(p);
				p->next[b] = k->first;
				k->first = b;
			}
			chain_copy(p, k->first, t->stack, kept, 1);
			p->used++;
		} else {
			/* no memory for more: its calls go on counted, their callers lost */
			ti->lost_stacks++;
			t->park_lost = 1;
		}
	}
	note_switch(t, ZR_SWITCH_PARK, id);
	ti->depth = 0;
	t->lost_path = 0;
	zrt_unbusy(t);
}

void zrt_unpark(struct zrt_thread *t, uint64_t key)
{
	if (t->busy)
		return;
	zrt_take(t, ZRT_HERE());
	struct zrt_parking *p = t->parking;
	uint32_t h = p ? park_slot(p, key) : 0, id = 0;
	/* what is open is a stack left without its switch: dead, its calls untimed */
	t->info->depth = 0;
	if (key && p && p->slots[h].key == key) {
		struct zrt_parked *k = &p->slots[h];
		struct zr_frame *fr = t->stack;
		uint32_t kept = k->depth < zrt.max_depth ? k->depth : zrt.max_depth;
		chain_copy(p, k->first, fr, kept, 0);
		if (zrt.timed) {
			uint64_t away = zrt_frame_clock(t, port_clock()) - k->at;
			for (uint32_t f = 0; f < kept; f++)
				fr[f].enter_ticks += away;
		}
		t->info->depth = k->depth;
		t->lost_path = k->lost;
		id = k->id;
		park_remove(p, h);
	} else {
		/* never parked here (another thread's, or a fresh one), or lost */
		t->lost_path = t->park_lost;
	}
	note_switch(t, ZR_SWITCH_RESUME | (t->lost_path ? ZR_SWITCH_LOST : 0), id);
	zrt_unbusy(t);
}

int zrt_parked_by(struct zrt_thread *t, uint64_t key)
{
	struct zrt_parking *p = t->parking;
	if (!p || !key)
		return 0;
	const struct zrt_parked *k = &p->slots[park_slot(p, key)];
	return k->key != key ? 0 : k->by_swap ? ZRT_PARKED_SWAP : ZRT_PARKED_GET;
}

void zrt_unwound(struct zrt_thread *t, uint64_t sp)
{
	if (t->busy && zrt_still_busy(t, sp))
		return;
	zrt_take(t, ZRT_HERE());
	drop_stale(t, 0, sp, 0, 0);
	zrt_unbusy(t);
}

int zrt_still_busy(struct zrt_thread *t, uint64_t sp)
{
	uint64_t busy = t->busy;
	if (!busy)
		return 0;
	int busy_alt = zrt_on_alt_stack(t, busy), sp_alt = zrt_on_alt_stack(t, sp);
	/* a handler's frames run below what it interrupted, a signal frame apart */
	if (busy_alt == sp_alt ? sp < busy : sp_alt)
		return 1;
	t->busy = 0;
	return 0;
}

void zrt_func_times(const struct zrt_thread *t, uint32_t i, uint64_t *self, uint64_t *incl)
{
	*self = t->funcs[i].self;
	*incl = t->funcs[i].incl;
	for (uint32_t c = 0; c < t->info->n_contexts; c++) {
		const struct zr_context *ctx = &t->contexts[c];
		if (ctx->func != i)
			continue;
		*self += ctx->self;
		uint32_t up = ctx->parent;
		while (up != ZR_NONE && t->contexts[up].func != i)
			up = t->contexts[up].parent;
		if (up == ZR_NONE)
			*incl += ctx->incl;
	}
}

/* ---- probe cost where it is paid --------------------------------------- */

void zrt_probe_paid(struct zrt_thread *t, struct zr_frame *fr, int which, uint64_t ticks)
{
	t->info->paid_ticks += ticks;
	if (fr) {
		if (fr->ctx != ZR_NONE)
			t->contexts[fr->ctx].overhead += ticks;
		else if (fr->func != ZR_NONE)
			t->funcs[fr->func].overhead += ticks;
	}
	/* the mean whole pair, now and then: the reports' cost per call */
	t->paid_sum[which] += ticks;
	t->paid_n[which]++;
	if (which || t->measure[0]--)
		return;
	t->measure[0] = ZRT_MEASURE_EVERY;
	if (t->paid_n[1])
		t->info->paid_pair_ticks = t->pair + t->paid_sum[0] / t->paid_n[0] +
					   t->paid_sum[1] / t->paid_n[1];
}

/* ---- sampled time ------------------------------------------------------- */

void zrt_sample_sampling(struct zrt_thread *t, uint64_t n, uint64_t cost_ticks)
{
	struct zr_thread *ti = t->info;
	ti->samples += n;
	ti->samples_zond += n;
	ti->samples_sampling += n;
	ti->sample_cost_ticks += cost_ticks;
}

void zrt_sample(struct zrt_thread *t, uint64_t n, int in_zond, uint64_t pc)
{
	struct zr_thread *ti = t->info;
	ti->samples += n;
	zrt_signal_fence();
	if (in_zond || t->busy) {
		ti->samples_zond += n;
		return;
	}
	uint32_t d = ti->depth;
	/* frames beyond the shadow stack are not kept: their samples go to the
	   deepest frame kept, whose inclusive time holds them in exact mode too */
	if (d > zrt.max_depth)
		d = zrt.max_depth;
	if (!d)
		ti->samples_root += n;
	else if (t->stack[d - 1].ctx == ZR_NONE)
		ti->samples_lost += n;
	else {
		uint32_t ctx = t->stack[d - 1].ctx;
		t->contexts[ctx].samples += n;
		zrt_signal_fence();
		if (zrt.pc_mask && !place_sample(t, ctx, pc, n))
			ti->samples_unplaced += n;
	}
}

/* ---- blocks ------------------------------------------------------------ */

void zrt_block_begin(struct zrt_thread *t, uint64_t site, const char *name, const char *file,
		     int line, uint64_t sp)
{
	if (t->busy)
		return;
	zrt_take(t, ZRT_HERE());
	drop_stale(t, site | ZR_BLOCK_BIT, sp, site, 0);
	struct zr_frame *fr = push(t, site | ZR_BLOCK_BIT, site, sp, site);
	if (fr) {
		struct zr_func *f = &t->funcs[fr->func];
		if (!f->line) {
			f->name = keep_string(name ? name : "");
			f->file = keep_string(file ? file : "");
			f->line = line > 0 ? (uint32_t)line : 1;
		}
	}
	zrt_unbusy(t);
	if (!fr || !zrt.clocked)
		return;
	uint64_t now = port_clock();
	if (zrt.timed)
		fr->enter_ticks = zrt_frame_clock(t, now);
	/* a block is on the timeline as a function is: a window's stacks keep it */
	if (zrt_unlikely(zrt.timeline))
		zrt_timeline_enter(t, fr, zrt.timed ? fr->enter_ticks : now);
}

/* Ends the innermost open block of that name, and whatever was left open above it. */
void zrt_block_end(struct zrt_thread *t, const char *name, uint64_t now)
{
	if (t->busy)
		return;
	zrt_take(t, ZRT_HERE());
	uint32_t d = t->info->depth;
	if (d > zrt.max_depth)
		d = 0; /* the open block is not on the stack */
	uint32_t k = d;
	for (; k > 0; k--) {
		const struct zr_func *f = &t->funcs[t->stack[k - 1].func];
		if ((f->flags & ZR_FUNC_BLOCK) && same_string(string_at(f->name), name ? name : ""))
			break;
	}
	uint32_t closed = k;
	for (; k > 0 && d >= k; d--)
		zrt_pop(t, d, now);
	zrt_unbusy(t);
	/* the outermost frame closed, the block, is still in its slot of the stack */
	if (zrt_unlikely(zrt.timeline) && closed > 0)
		zrt_timeline_closed(t, closed - 1, now);
}

/* ---- fork -------------------------------------------------------------- */

/*
 * Pushes a frame carried over from the parent, timed from now.  The call was
 * counted in the parent's file: the child continues it (one run, one call),
 * so its function, edge and context (the same path) are found or added but
 * not counted again.
 */
static void carry_frame(struct zrt_thread *t, const struct zr_frame *old,
			const struct zr_func *old_func, const uint64_t site[2], uint64_t now)
{
	uint32_t d = t->info->depth;
	uint32_t i = adopt_func(t, old_func);
	if (i == ZR_NONE)
		return;
	uint32_t parent;
	uint32_t e = find_edge(t, caller_at(t, d, site[0], &parent), i, site[0], site[1]);
	uint32_t c = find_context(t, parent, old->addr, i, e);
	zrt_open_frame(t, d, old->addr, old->sp, i, e, c)->enter_ticks = now;
}

/*
 * The forking thread's open frames and their call sites, copied in the
 * parent just before the fork (zrt_fork_prepare) into private memory: the
 * child reads them from its own copy, while the parent, back from fork,
 * goes on changing its shadow stack in the file both still map.  Forks
 * are serialised by libc from the prepare handler to the parent's or
 * child's one, so one copy serves the process.
 */
static struct {
	uint32_t valid;
	int32_t pid;           /* the forking process */
	uint32_t depth, kept;  /* its depth, and the frames copied (at most max_depth) */
	struct zr_frame *frames;
	uint64_t *sites;       /* each frame's call site and entry probe's pc (zr_edge) */
} forking;

void zrt_fork_prepare(struct zrt_thread *t)
{
	forking.valid = 0;
	if (!zrt.hdr || t->state != ZRT_THREAD_ON || t->busy)
		return;
	uint64_t bytes =
		(uint64_t)zrt.max_depth * (sizeof *forking.frames + 2 * sizeof *forking.sites);
	if (!forking.frames) {
		void *m = port_map_index(bytes);
		if (!m)
			return;
		forking.frames = m;
		forking.sites = (uint64_t *)(forking.frames + zrt.max_depth);
	}
	uint32_t depth = t->info->depth;
	uint32_t kept = depth < zrt.max_depth ? depth : zrt.max_depth;
	for (uint32_t k = 0; k < kept; k++) {
		const struct zr_frame *fr = &t->stack[k];
		forking.frames[k] = *fr;
		forking.sites[2 * k] = fr->edge != ZR_NONE ? t->edges[fr->edge].site : 0;
		forking.sites[2 * k + 1] = fr->edge != ZR_NONE ? t->edges[fr->edge].pc : 0;
	}
	forking.pid = zrt.hdr->pid;
	forking.depth = depth;
	forking.kept = kept;
	forking.valid = 1;
}

void zrt_fork_done(void)
{
	forking.valid = 0;
}

int zrt_process_forked(struct zrt_thread *t, const struct zrt_ids *ids,
		       const struct zrt_anchor *start)
{
	struct zr_header *old = zrt.hdr;
	if (!old)
		return 0;
	int why = PORT_NO_ROOM;
	struct zr_header *h = map_file(old, &why);
	if (!h) {
		/* the parent's header, still mapped, counts the child and why it was lost */
		__atomic_fetch_add(why == PORT_NO_ACCESS ? &old->lost_processes
							 : &old->lost_processes_room,
				   1, __ATOMIC_RELAXED);
		zrt.hdr = NULL;
		t->state = ZRT_THREAD_OFF;
		return why == PORT_NO_ACCESS ? PORT_NO_ACCESS : PORT_NO_ROOM;
	}
	/* header, modules and strings as they are; no threads yet */
	uint64_t used = old->string_used < old->string_bytes ? old->string_used : old->string_bytes;
	copy_bytes(h, old, old->strings_off + used);
	h->state = ZR_RUNNING;
	set_ids(h, ids);
	h->start_ticks = start->ticks;
	h->start_realtime_ns = start->realtime_ns;
	h->end_ticks = 0;
	h->end_realtime_ns = 0;
	h->exit_status = 0;
	h->n_threads = 0;
	h->lost_threads = 0;
	h->lost_threads_room = 0;
	h->lost_threads_access = 0;
	h->lost_processes = 0;
	h->lost_processes_room = 0;
	h->lost_shared_tls_calls = 0;
	h->lost_thread_calls = 0;
	/* the parent's threads not recorded are not the child's */
	for (int i = 0; i < ZRT_LOST_COUNTERS; i++)
		zrt.lost_calls[i].calls = 0;
	zrt.n_lost_threads = 0;
	h->flags &= ~ZR_FLAG_NO_ACCESS; /* the parent's (NO_ROOM may be the layout's: kept) */
	zrt.module_lock = 0;
	ended.lock = 0;
	ended.summary = ZR_NONE;
	ended.n_free = 0;

	struct zrt_thread parent = *t;
	t->lost_counter = 0;
	use_mapping(h);
	if (parent.state != ZRT_THREAD_ON) {
		t->state = ZRT_THREAD_NEW;
		return 0;
	}
	/* without the parent's copy (a fork by a bare system call), its file as it is now */
	int copied = forking.valid && forking.pid == ids->ppid;
	forking.valid = 0;
	/* the stacks parked in the parent name the parent's records: their calls
	   would be filed under other contexts here, so they are dropped, lost */
	if (t->parking) {
		if (t->parking->used)
			t->park_lost = 1;
		park_free(t);
	}
	zrt_thread_attach(t);
	if (t->state != ZRT_THREAD_ON)
		return 0;
	uint32_t depth = copied ? forking.depth : parent.info->depth;
	uint32_t kept = depth < zrt.max_depth ? depth : zrt.max_depth;
	for (uint32_t k = 0; k < kept; k++) {
		const struct zr_frame *fr = copied ? &forking.frames[k] : &parent.stack[k];
		const struct zr_edge *pe = fr->edge != ZR_NONE ? &parent.edges[fr->edge] : NULL;
		uint64_t site[2] = {pe ? pe->site : 0, pe ? pe->pc : 0};
		if (copied) {
			site[0] = forking.sites[2 * k];
			site[1] = forking.sites[2 * k + 1];
		}
		carry_frame(t, fr, &parent.funcs[fr->func], site, h->start_ticks);
	}
	t->info->continued_frames = t->info->depth;
	/* the timeline starts inside them: each is there, entered before */
	if (zrt_unlikely(zrt.timeline))
		for (uint32_t k = 0; k < t->info->depth; k++)
			zrt_timeline_continued(t, &t->stack[k], zrt.timed ? zrt_frame_clock(t, h->start_ticks)
									  : h->start_ticks);
	t->info->depth += depth - kept;
	return 0;
}
