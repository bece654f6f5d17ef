/*
 * core.c - the cold paths of the runtime core: laying out the raw file,
 * giving threads their slots, adding functions, edges, modules and strings,
 * blocks, the recording gate, fork.  See core.h.
 */
#include "core.h"

#include "port.h"

struct zrt_process zrt;

/* the sizes doc/raw-format.md promises */
_Static_assert(sizeof(struct zr_header) == 288, "zr_header layout");
_Static_assert(sizeof(struct zr_module) == 32, "zr_module layout");
_Static_assert(sizeof(struct zr_thread) == 136, "zr_thread layout");
_Static_assert(sizeof(struct zr_func) == 80, "zr_func layout");
_Static_assert(sizeof(struct zr_edge) == 32, "zr_edge layout");
_Static_assert(sizeof(struct zr_context) == 80, "zr_context layout");
_Static_assert(sizeof(struct zr_frame) == 64, "zr_frame layout");
_Static_assert(sizeof(struct zr_sample_pc) == 24, "zr_sample_pc layout");

/*
 * A parent context for a call whose caller has none (the pool was full when
 * the caller was called): the call is then not counted on a context either.
 */
#define CTX_LOST 0xfffffffeu

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
	h->func_hash_off = 0;
	h->edge_hash_off = 0;
	h->stack_off = align_up(h->edges_off + (uint64_t)h->max_edges * sizeof(struct zr_edge), 64);
	h->contexts_off =
		align_up(h->stack_off + (uint64_t)h->max_depth * sizeof(struct zr_frame), 64);
	h->max_sample_pcs = cfg->max_sample_pcs ? hash_size(cfg->max_sample_pcs / 2) : 0;
	h->sample_pcs_off = align_up(
		h->contexts_off + (uint64_t)h->max_contexts * sizeof(struct zr_context), 64);
	/* page-aligned slots: no two threads ever write the same cache line */
	h->thread_bytes = align_up(
		h->sample_pcs_off + (uint64_t)h->max_sample_pcs * sizeof(struct zr_sample_pc), 4096);

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
	zrt.index_bytes = align_up(
		((uint64_t)h->func_hash_size + h->edge_hash_size + h->ctx_hash_size) * 4, 4096);
	zrt.timed = !(h->flags & ZR_FLAG_NO_TIME);
	zrt.stacked = zrt.timed || (h->flags & ZR_FLAG_SAMPLED);
}

int zrt_process_start(const struct zrt_config *cfg)
{
	struct zr_header layout = {0};
	lay_out(&layout, cfg);
	struct zr_header *h = port_map_output(layout.file_bytes);
	if (!h)
		return -1;
	*h = layout;
	copy_bytes(h->magic, ZR_MAGIC, sizeof h->magic);
	h->version = ZR_VERSION;
	h->header_bytes = sizeof *h;
	h->state = ZR_RUNNING;
	h->flags = cfg->flags;
	h->pid = cfg->pid;
	h->ppid = cfg->ppid;
	h->clock = cfg->clock;
	h->arch = cfg->arch;
	/* copied as bytes: the audit collector builds this file general-register-only,
	   where aarch64 compilers refuse floating-point operations */
	__builtin_memcpy(&h->ticks_per_sec, &cfg->ticks_per_sec, sizeof h->ticks_per_sec);
	h->start_ticks = port_clock();
	h->start_realtime_ns = cfg->start_realtime_ns;
	h->string_used = 1; /* offset 0 is the empty string */
	zrt.gate = cfg->manual ? ZRT_GATE_STOPPED : 0;
	use_mapping(h);
	return 0;
}

void zrt_process_end(int exited, int status, int64_t realtime_ns)
{
	struct zr_header *h = zrt.hdr;
	if (!h)
		return;
	h->end_ticks = port_clock();
	h->end_realtime_ns = realtime_ns;
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
	t->ctx_hash = t->edge_hash + h->edge_hash_size;
	t->busy = 0;
	t->root_lo = t->root_len = 0;
	t->root_func = t->root_ctx = ZR_NONE;
	t->pair = zrt.pair;
	t->measure[0] = t->measure[1] = ZRT_MEASURE_EVERY;
	t->paid_sum[0] = t->paid_sum[1] = 0;
	t->paid_n[0] = t->paid_n[1] = 0;
}

/* Claims the next free thread slot; ZR_NONE when all are taken. */
static uint32_t claim_slot(struct zr_header *h)
{
	uint32_t n = __atomic_load_n(&h->n_threads, __ATOMIC_RELAXED);
	do {
		if (n >= h->max_threads)
			return ZR_NONE;
	} while (!__atomic_compare_exchange_n(&h->n_threads, &n, n + 1, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return n;
}

static int bind_new_slot(struct zrt_thread *t)
{
	struct zr_header *h = zrt.hdr;
	void *index = port_map_index(zrt.index_bytes);
	uint32_t slot = index ? claim_slot(h) : ZR_NONE;
	if (slot == ZR_NONE) {
		__atomic_fetch_add(&h->lost_threads, 1, __ATOMIC_RELAXED);
		return -1;
	}
	zrt_thread_bind(t, zrt.base + h->threads_off + slot * h->thread_bytes, index);
	struct zr_thread *ti = t->info;
	ti->tid = port_thread_id();
	port_thread_name(ti->name);
	ti->start_ticks = port_clock();
	ti->last_ticks = ti->start_ticks;
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
	port_thread_attached();
}

void zrt_thread_end(struct zrt_thread *t)
{
	if (t->state == ZRT_THREAD_ON)
		t->info->end_ticks = port_clock();
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
		if (addr >= m[i].start && addr < m[i].end)
			return &m[i];
	return NULL;
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

/* The module holding addr, recorded now if this is its first function. */
static const struct zr_module *note_module(uint64_t addr)
{
	const struct zr_module *found = find_module(addr);
	if (found)
		return found;
	struct zr_header *h = zrt.hdr;
	lock_modules();
	found = find_module(addr);
	struct port_module pm;
	if (!found && port_module_of(addr, &pm) == 0) {
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
			__atomic_fetch_add(&h->lost_modules, 1, __ATOMIC_RELAXED);
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

/* ---- functions and edges ----------------------------------------------- */

static uint32_t add_func(struct zrt_thread *t, uint64_t addr, uint32_t slot)
{
	struct zr_thread *ti = t->info;
	if (ti->n_funcs >= zrt.max_funcs) {
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
	} else if (is_filtered(addr, note_module(addr))) {
		f->flags = ZR_FUNC_FILTERED;
	} else if (zrt.function_name && (f->name = zrt.function_name(addr)) != 0) {
		f->flags = ZR_FUNC_NAMED;
	}
	ti->n_funcs = i + 1;
	t->func_hash[slot] = i + 1;
	return i;
}

/* The index of the function at addr, added on first sight; ZR_NONE when the table is full. */
static uint32_t find_func(struct zrt_thread *t, uint64_t addr)
{
	uint32_t h = zrt_hash(addr) & zrt.func_mask;
	for (;; h = (h + 1) & zrt.func_mask) {
		uint32_t x = t->func_hash[h];
		if (!x)
			return add_func(t, addr, h);
		if (t->funcs[x - 1].addr == addr)
			return x - 1;
	}
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
	uint32_t h = zrt_ctx_hash(parent, addr) & zrt.ctx_mask;
	for (;; h = (h + 1) & zrt.ctx_mask) {
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
		if (ti->n_contexts >= zrt.max_contexts) {
			ti->lost_contexts++;
			return ZR_NONE;
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
	if (site - t->root_lo < t->root_len)
		return t->root_func;
	const struct zr_module *m = note_module(site);
	if (!m)
		return ZR_NONE;
	uint32_t i = find_func(t, m->start | ZR_MODULE_BIT);
	if (i == ZR_NONE)
		return ZR_NONE;
	t->root_lo = m->start;
	t->root_len = m->end - m->start;
	t->root_func = i;
	/* the module's own root context: the parent of the contexts of its calls */
	t->root_ctx = find_context(t, ZR_NONE, m->start | ZR_MODULE_BIT, i, ZR_NONE);
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
		*parent = top->ctx == ZR_NONE ? CTX_LOST : top->ctx;
		return top->func;
	}
	uint32_t caller = zrt_root_caller(t, site);
	*parent = caller == ZR_NONE ? ZR_NONE : t->root_ctx == ZR_NONE ? CTX_LOST : t->root_ctx;
	return caller;
}

/* The edge from caller to callee, added on first sight with its call site. */
static uint32_t find_edge(struct zrt_thread *t, uint32_t caller, uint32_t callee, uint64_t site)
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
		if (ti->n_edges >= zrt.max_edges) {
			ti->lost_edges++;
			return ZR_NONE;
		}
		struct zr_edge *e = &t->edges[ti->n_edges];
		e->caller = caller;
		e->callee = callee;
		e->site = site;
		/* a port naming its functions (libcalls) shows root calls by calling module */
		if (caller == ZR_NONE && site && zrt.function_name)
			note_module(site);
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

/* Closes the frames no longer live: those whose probe ran below sp.  now == 0: read the clock. */
static uint32_t drop_stale(struct zrt_thread *t, uint64_t sp, uint64_t now)
{
	uint32_t d = t->info->depth;
	while (d > 0 && d <= zrt.max_depth && t->stack[d - 1].sp < sp) {
		if (!now && zrt.timed)
			now = port_clock();
		zrt_pop(t, d, now);
		d--;
	}
	return d;
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
static struct zr_frame *push(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp)
{
	struct zr_thread *ti = t->info;
	uint32_t d = ti->depth;
	if (zrt.gate && !gate_open(fn, d))
		return NULL;
	uint32_t i = find_func(t, fn);
	if (i == ZR_NONE || (t->funcs[i].flags & ZR_FUNC_FILTERED))
		return NULL;
	if (d >= zrt.max_depth) {
		t->funcs[i].calls++;
		/* counted, not timed; the exit probe gives the level back */
		ti->lost_frames++;
		ti->depth++;
		return NULL;
	}
	uint32_t parent;
	uint32_t e = find_edge(t, caller_at(t, d, site, &parent), i, site);
	uint32_t c = find_context(t, parent, fn, i, e);
	count_call(t, i, e, c);
	return zrt_open_frame(t, d, fn, sp, i, e, c);
}

struct zr_frame *zrt_enter_slow(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp)
{
	drop_stale(t, sp, 0);
	return push(t, fn, site, sp);
}

void zrt_exit_slow(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t now)
{
	uint32_t d = t->info->depth;
	if (d > zrt.max_depth) {
		/* only calls that were counted on entry took a level */
		uint32_t i = find_func(t, fn);
		if (i != ZR_NONE && !(t->funcs[i].flags & ZR_FUNC_FILTERED))
			t->info->depth--;
		return;
	}
	d = drop_stale(t, sp, now);
	/*
	 * fn's frame, under what it left open in its own stack frame (blocks,
	 * inlined calls abandoned by an exception); none when a frame of an
	 * ancestor comes first: a call that was never pushed (filtered, gated,
	 * table full).
	 */
	uint32_t k = d;
	while (k > 0 && t->stack[k - 1].addr != fn)
		k = t->stack[k - 1].sp > sp ? 0 : k - 1;
	for (; k > 0 && d >= k; d--)
		zrt_pop(t, d, now);
}

uint32_t zrt_count_call(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp)
{
	uint32_t e = ZR_NONE;
	if (t->busy)
		return e;
	t->busy = 1;
	zrt_signal_fence();
	uint32_t d = drop_stale(t, sp, 0);
	if (!zrt.gate || gate_open(fn, d)) {
		uint32_t i = find_func(t, fn);
		if (i != ZR_NONE && !(t->funcs[i].flags & ZR_FUNC_FILTERED)) {
			uint32_t parent;
			e = find_edge(t, caller_at(t, d, site, &parent), i, site);
			count_call(t, i, e, find_context(t, parent, fn, i, e));
		}
	}
	zrt_signal_fence();
	t->busy = 0;
	return e;
}

void zrt_unwound(struct zrt_thread *t, uint64_t sp)
{
	if (t->busy)
		return;
	t->busy = 1;
	zrt_signal_fence();
	drop_stale(t, sp, 0);
	zrt_signal_fence();
	t->busy = 0;
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

void zrt_probe_paid(struct zrt_thread *t, int which, uint64_t ticks)
{
	t->measure[which] = ZRT_MEASURE_EVERY;
	/* not while calibrating (no cost known yet), nor a window an interrupt or a preemption hit */
	if (!zrt.pair || ticks > 8 * zrt.pair)
		return;
	t->paid_sum[which] += ticks;
	t->paid_n[which]++;
	if (t->paid_n[0] < 16 || t->paid_n[1] < 16)
		return;
	uint64_t outer = t->paid_sum[0] / t->paid_n[0] + t->paid_sum[1] / t->paid_n[1];
	t->pair = zrt.inner + outer;
	t->info->paid_pair_ticks = t->pair;
}

/* ---- sampled time ------------------------------------------------------- */

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
	if (!d)
		ti->samples_root += n;
	else if (d > zrt.max_depth || t->stack[d - 1].ctx == ZR_NONE)
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
	t->busy = 1;
	zrt_signal_fence();
	drop_stale(t, sp, 0);
	struct zr_frame *fr = push(t, site | ZR_BLOCK_BIT, site, sp);
	if (fr) {
		struct zr_func *f = &t->funcs[fr->func];
		if (!f->line) {
			f->name = keep_string(name ? name : "");
			f->file = keep_string(file ? file : "");
			f->line = line > 0 ? (uint32_t)line : 1;
		}
	}
	zrt_signal_fence();
	t->busy = 0;
	if (fr && zrt.timed)
		fr->enter_ticks = port_clock();
}

/* Ends the innermost open block of that name, and whatever was left open above it. */
void zrt_block_end(struct zrt_thread *t, const char *name, uint64_t now)
{
	if (t->busy)
		return;
	t->busy = 1;
	zrt_signal_fence();
	uint32_t d = t->info->depth;
	if (d > zrt.max_depth)
		d = 0; /* the open block is not on the stack */
	uint32_t k = d;
	for (; k > 0; k--) {
		const struct zr_func *f = &t->funcs[t->stack[k - 1].func];
		if ((f->flags & ZR_FUNC_BLOCK) && same_string(string_at(f->name), name ? name : ""))
			break;
	}
	for (; k > 0 && d >= k; d--)
		zrt_pop(t, d, now);
	zrt_signal_fence();
	t->busy = 0;
}

/* ---- fork -------------------------------------------------------------- */

/* Pushes a frame carried over from the parent: counted once, timed from now. */
static void carry_frame(struct zrt_thread *t, const struct zr_frame *old,
			const struct zr_func *old_func, uint64_t site, uint64_t now)
{
	uint32_t d = t->info->depth;
	uint32_t i = find_func(t, old->addr);
	if (i == ZR_NONE)
		return;
	struct zr_func *f = &t->funcs[i];
	f->flags = old_func->flags;
	f->name = old_func->name;
	f->file = old_func->file;
	f->line = old_func->line;
	uint32_t parent;
	uint32_t e = find_edge(t, caller_at(t, d, site, &parent), i, site);
	uint32_t c = find_context(t, parent, old->addr, i, e);
	count_call(t, i, e, c);
	zrt_open_frame(t, d, old->addr, old->sp, i, e, c)->enter_ticks = now;
}

void zrt_process_forked(struct zrt_thread *t, int32_t pid, int32_t ppid, int64_t realtime_ns)
{
	struct zr_header *old = zrt.hdr;
	if (!old)
		return;
	struct zr_header *h = port_map_output(old->file_bytes);
	if (!h) {
		zrt.hdr = NULL;
		t->state = ZRT_THREAD_OFF;
		return;
	}
	/* header, modules and strings as they are; no threads yet */
	uint64_t used = old->string_used < old->string_bytes ? old->string_used : old->string_bytes;
	copy_bytes(h, old, old->strings_off + used);
	h->state = ZR_RUNNING;
	h->pid = pid;
	h->ppid = ppid;
	h->start_ticks = port_clock();
	h->start_realtime_ns = realtime_ns;
	h->end_ticks = 0;
	h->end_realtime_ns = 0;
	h->exit_status = 0;
	h->n_threads = 0;
	h->lost_threads = 0;
	zrt.module_lock = 0;

	struct zrt_thread parent = *t;
	use_mapping(h);
	if (parent.state != ZRT_THREAD_ON) {
		t->state = ZRT_THREAD_NEW;
		return;
	}
	zrt_thread_attach(t);
	if (t->state != ZRT_THREAD_ON)
		return;
	uint32_t depth = parent.info->depth;
	uint32_t kept = depth < zrt.max_depth ? depth : zrt.max_depth;
	for (uint32_t k = 0; k < kept; k++) {
		const struct zr_frame *fr = &parent.stack[k];
		uint64_t site = fr->edge != ZR_NONE ? parent.edges[fr->edge].site : 0;
		carry_frame(t, fr, &parent.funcs[fr->func], site, h->start_ticks);
	}
	t->info->depth += depth - kept;
}
