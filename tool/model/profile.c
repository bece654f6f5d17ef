/*
 * profile.c - the profile model: storage and lookup of nodes, stats, edges.
 *
 * Lookups go through open-addressing tables of indexes into the profile's
 * arrays; each table knows how to hash and compare its own element kind.
 */
#define _GNU_SOURCE /* qsort_r */
#include "profile.h"
#include "util/path.h"
#include <inttypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void zp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

size_t zp_count_at_most(const void *base, size_t n, size_t size, size_t offset, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t at;
		memcpy(&at, (const char *)base + mid * size + offset, sizeof at);
		if (at <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void *zp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("zond: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *zp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fputs("zond: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *zp_xrealloc(void *ptr, size_t n)
{
	void *p = realloc(ptr, n ? n : 1);
	if (!p) {
		fputs("zond: out of memory\n", stderr);
		abort();
	}
	return p;
}

char *zp_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(zp_xmalloc(n), s, n);
}

/* ---- index tables ------------------------------------------------------ */

struct table {
	uint32_t *slot; /* element index + 1; 0 = empty */
	size_t size;    /* power of two */
	size_t used;
};

struct zp_index {
	struct table nodes, stats, edges, contexts;
	size_t cap_threads, cap_nodes, cap_stats, cap_edges, cap_contexts, cap_spans;
	/* per node, how its name is told from a namesake's (see profile_namesake_object) */
	unsigned char *namesakes;
	size_t namesakes_nodes; /* the node count they were worked out for */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return mix(h, 0);
}

static uint64_t node_hash(enum zp_node_kind kind, const char *name, const char *module,
			  uint64_t addr)
{
	return hash_str(hash_str(mix(kind, addr), name), module);
}

static uint64_t stat_hash(uint32_t thread, uint32_t node)
{
	return mix(thread, node);
}

static uint64_t edge_hash(uint32_t thread, enum zp_edge_kind kind, uint32_t caller,
			  uint32_t callee)
{
	return mix(mix(mix(thread, kind), caller), callee);
}

static uint64_t context_hash(uint32_t thread, uint32_t parent, uint32_t node)
{
	return mix(mix(mix(thread, parent), node), 0x636f6e74);
}

typedef uint64_t (*rehash_fn)(const struct zp_profile *p, uint32_t i);

static uint64_t rehash_node(const struct zp_profile *p, uint32_t i)
{
	const struct zp_node *n = &p->nodes[i];
	return node_hash(n->kind, n->name, n->module, n->addr);
}

static uint64_t rehash_stat(const struct zp_profile *p, uint32_t i)
{
	return stat_hash(p->stats[i].thread, p->stats[i].node);
}

static uint64_t rehash_edge(const struct zp_profile *p, uint32_t i)
{
	const struct zp_edge *e = &p->edges[i];
	return edge_hash(e->thread, e->kind, e->caller, e->callee);
}

static uint64_t rehash_context(const struct zp_profile *p, uint32_t i)
{
	const struct zp_context *c = &p->contexts[i];
	return context_hash(c->thread, c->parent, c->node);
}

/* Grows t when it is over half full, re-inserting every element. */
static void table_reserve(const struct zp_profile *p, struct table *t, rehash_fn rehash)
{
	if ((t->used + 1) * 2 <= t->size)
		return;
	size_t size = t->size ? t->size * 2 : 64;
	uint32_t *slot = zp_xcalloc(size, sizeof *slot);
	for (size_t i = 0; i < t->size; i++) {
		if (!t->slot[i])
			continue;
		size_t j = rehash(p, t->slot[i] - 1) & (size - 1);
		while (slot[j])
			j = (j + 1) & (size - 1);
		slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->size = size;
}

static void grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	*arr = zp_xrealloc(*arr, n * elem);
	*cap = n;
}

/* ---- profile ----------------------------------------------------------- */

struct zp_profile *profile_new(void)
{
	struct zp_profile *p = zp_xcalloc(1, sizeof *p);
	p->index = zp_xcalloc(1, sizeof *p->index);
	p->run.exit_status = -1;
	return p;
}

static void free_run(struct zp_run *r)
{
	free(r->campaign);
	free(r->collector);
	free(r->command);
	free(r->host);
	free(r->arch);
	free(r->clock);
	for (size_t i = 0; i < r->nmeta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	free(r->meta);
}

void profile_free(struct zp_profile *p)
{
	if (!p)
		return;
	free_run(&p->run);
	for (size_t i = 0; i < p->nevents; i++) {
		free(p->events[i].name);
		free(p->events[i].unit);
	}
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].name);
	for (size_t i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].name);
		free(p->nodes[i].module);
		free(p->nodes[i].file);
	}
	free(p->threads);
	free(p->nodes);
	free(p->stats);
	free(p->edges);
	free(p->instrs);
	free(p->contexts);
	free(p->spans);
	free(p->index->contexts.slot);
	free(p->index->nodes.slot);
	free(p->index->stats.slot);
	free(p->index->edges.slot);
	free(p->index->namesakes);
	free(p->index);
	free(p);
}

void profile_set_str(char **field, const char *value)
{
	free(*field);
	*field = value ? zp_xstrdup(value) : NULL;
}

void profile_add_meta(struct zp_profile *p, const char *key, const char *value)
{
	struct zp_run *r = &p->run;
	for (size_t i = 0; i < r->nmeta; i++) {
		if (strcmp(r->meta[i].key, key) == 0) {
			profile_set_str(&r->meta[i].value, value);
			return;
		}
	}
	r->meta = zp_xrealloc(r->meta, (r->nmeta + 1) * sizeof *r->meta);
	r->meta[r->nmeta].key = zp_xstrdup(key);
	r->meta[r->nmeta].value = zp_xstrdup(value);
	r->nmeta++;
}

void profile_add_count(struct zp_profile *p, const char *key, uint64_t n)
{
	if (!n)
		return;
	const char *old = profile_meta(p, key);
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, n + (uint64_t)(old ? strtoull(old, NULL, 10) : 0));
	profile_add_meta(p, key, buf);
}

const char *profile_meta(const struct zp_profile *p, const char *key)
{
	for (size_t i = 0; i < p->run.nmeta; i++)
		if (strcmp(p->run.meta[i].key, key) == 0)
			return p->run.meta[i].value;
	return NULL;
}

unsigned profile_event(struct zp_profile *p, const char *name, const char *unit)
{
	int i = profile_find_event(p, name);
	if (i >= 0)
		return (unsigned)i;
	if (p->nevents == ZP_MAX_EVENTS) {
		fprintf(stderr, "zond: more than %d events in one run\n", ZP_MAX_EVENTS);
		abort();
	}
	p->events[p->nevents].name = zp_xstrdup(name);
	p->events[p->nevents].unit = zp_xstrdup(unit);
	return (unsigned)p->nevents++;
}

int profile_find_event(const struct zp_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nevents; i++)
		if (strcmp(p->events[i].name, name) == 0)
			return (int)i;
	return -1;
}

uint32_t profile_thread(struct zp_profile *p, int64_t pid, int64_t tid, const char *name)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].pid == pid && p->threads[i].tid == tid)
			return (uint32_t)i;
	grow((void **)&p->threads, &p->index->cap_threads, p->nthreads + 1, sizeof *p->threads);
	p->threads[p->nthreads].pid = pid;
	p->threads[p->nthreads].tid = tid;
	p->threads[p->nthreads].name = zp_xstrdup(name ? name : "");
	return (uint32_t)p->nthreads++;
}

uint32_t profile_node(struct zp_profile *p, enum zp_node_kind kind, const char *name,
		      const char *module, const char *file, int line, uint64_t addr)
{
	struct table *t = &p->index->nodes;
	if (!module)
		module = "";
	table_reserve(p, t, rehash_node);
	size_t j = node_hash(kind, name, module, addr) & (t->size - 1);
	for (; t->slot[j]; j = (j + 1) & (t->size - 1)) {
		struct zp_node *n = &p->nodes[t->slot[j] - 1];
		if (n->kind == kind && n->addr == addr && strcmp(n->name, name) == 0 &&
		    strcmp(n->module, module) == 0)
			return t->slot[j] - 1;
	}
	grow((void **)&p->nodes, &p->index->cap_nodes, p->nnodes + 1, sizeof *p->nodes);
	struct zp_node *n = &p->nodes[p->nnodes];
	n->kind = kind;
	n->name = zp_xstrdup(name);
	n->module = zp_xstrdup(module);
	n->file = zp_xstrdup(file ? file : "");
	n->line = line;
	n->addr = addr;
	n->parent = ZP_NONE;
	t->slot[j] = (uint32_t)++p->nnodes;
	t->used++;
	return (uint32_t)(p->nnodes - 1);
}

enum { NAMESAKE_UNIQUE, NAMESAKE_BY_BASE, NAMESAKE_BY_PATH };

static int node_by_name(const void *a, const void *b, void *arg)
{
	const struct zp_node *nodes = arg;
	const struct zp_node *x = &nodes[*(const uint32_t *)a], *y = &nodes[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->module, y->module);
}

static int node_by_base(const void *a, const void *b, void *arg)
{
	const struct zp_node *nodes = arg;
	const struct zp_node *x = &nodes[*(const uint32_t *)a], *y = &nodes[*(const uint32_t *)b];
	int c = strcmp(path_base(x->module), path_base(y->module));
	return c ? c : strcmp(x->module, y->module);
}

/*
 * Marks the nodes of one name, group[0, n), when they lie in different
 * objects: by the object's base name, or by its path where another of
 * them lies in an object of the same base name.  Reorders group.
 */
static void mark_namesakes(const struct zp_node *nodes, uint32_t *group, size_t n,
			   unsigned char *how)
{
	if (strcmp(nodes[group[0]].module, nodes[group[n - 1]].module) == 0)
		return; /* sorted by module: one object */
	qsort_r(group, n, sizeof *group, node_by_base, (void *)nodes);
	for (size_t first = 0, end; first < n; first = end) {
		const char *module = nodes[group[first]].module;
		int paths = 0;
		for (end = first + 1; end < n; end++) {
			const char *other = nodes[group[end]].module;
			if (strcmp(path_base(module), path_base(other)) != 0)
				break;
			paths |= strcmp(module, other) != 0;
		}
		for (size_t i = first; i < end; i++)
			how[group[i]] = paths ? NAMESAKE_BY_PATH : NAMESAKE_BY_BASE;
	}
}

static void find_namesakes(const struct zp_profile *p, unsigned char *how)
{
	uint32_t *order = zp_xcalloc(p->nnodes + 1, sizeof *order);
	size_t n = 0;
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].kind == ZP_FUNCTION && *p->nodes[i].module)
			order[n++] = i;
	qsort_r(order, n, sizeof *order, node_by_name, p->nodes);
	for (size_t first = 0, end; first < n; first = end) {
		for (end = first + 1; end < n; end++)
			if (strcmp(p->nodes[order[first]].name, p->nodes[order[end]].name) != 0)
				break;
		mark_namesakes(p->nodes, order + first, end - first, how);
	}
	free(order);
}

const char *profile_namesake_object(const struct zp_profile *p, uint32_t node)
{
	struct zp_index *x = p->index;
	if (!x->namesakes || x->namesakes_nodes != p->nnodes) {
		free(x->namesakes);
		x->namesakes = zp_xcalloc(p->nnodes + 1, 1);
		x->namesakes_nodes = p->nnodes;
		find_namesakes(p, x->namesakes);
	}
	const char *module = p->nodes[node].module;
	switch (x->namesakes[node]) {
	case NAMESAKE_BY_BASE: return path_base(module);
	case NAMESAKE_BY_PATH: return module;
	default: return NULL;
	}
}

static void stat_init(struct zp_stat *s, uint32_t thread, uint32_t node)
{
	memset(s, 0, sizeof *s);
	s->thread = thread;
	s->node = node;
	for (int e = 0; e < ZP_MAX_EVENTS; e++)
		s->min[e] = UINT64_MAX;
}

struct zp_stat *profile_stat(struct zp_profile *p, uint32_t thread, uint32_t node)
{
	struct table *t = &p->index->stats;
	table_reserve(p, t, rehash_stat);
	size_t j = stat_hash(thread, node) & (t->size - 1);
	for (; t->slot[j]; j = (j + 1) & (t->size - 1)) {
		struct zp_stat *s = &p->stats[t->slot[j] - 1];
		if (s->thread == thread && s->node == node)
			return s;
	}
	grow((void **)&p->stats, &p->index->cap_stats, p->nstats + 1, sizeof *p->stats);
	struct zp_stat *s = &p->stats[p->nstats];
	stat_init(s, thread, node);
	t->slot[j] = (uint32_t)++p->nstats;
	t->used++;
	return s;
}

struct zp_edge *profile_edge(struct zp_profile *p, uint32_t thread, enum zp_edge_kind kind,
			     uint32_t caller, uint32_t callee)
{
	struct table *t = &p->index->edges;
	table_reserve(p, t, rehash_edge);
	size_t j = edge_hash(thread, kind, caller, callee) & (t->size - 1);
	for (; t->slot[j]; j = (j + 1) & (t->size - 1)) {
		struct zp_edge *e = &p->edges[t->slot[j] - 1];
		if (e->thread == thread && e->kind == kind && e->caller == caller &&
		    e->callee == callee)
			return e;
	}
	grow((void **)&p->edges, &p->index->cap_edges, p->nedges + 1, sizeof *p->edges);
	struct zp_edge *e = &p->edges[p->nedges];
	memset(e, 0, sizeof *e);
	e->thread = thread;
	e->kind = kind;
	e->caller = caller;
	e->callee = callee;
	t->slot[j] = (uint32_t)++p->nedges;
	t->used++;
	return e;
}

uint32_t profile_context(struct zp_profile *p, uint32_t thread, uint32_t parent, uint32_t node)
{
	struct table *t = &p->index->contexts;
	table_reserve(p, t, rehash_context);
	size_t j = context_hash(thread, parent, node) & (t->size - 1);
	for (; t->slot[j]; j = (j + 1) & (t->size - 1)) {
		const struct zp_context *c = &p->contexts[t->slot[j] - 1];
		if (c->thread == thread && c->parent == parent && c->node == node)
			return t->slot[j] - 1;
	}
	grow((void **)&p->contexts, &p->index->cap_contexts, p->ncontexts + 1,
	     sizeof *p->contexts);
	struct zp_context *c = &p->contexts[p->ncontexts];
	memset(c, 0, sizeof *c);
	c->thread = thread;
	c->parent = parent;
	c->node = node;
	for (int e = 0; e < ZP_MAX_EVENTS; e++)
		c->min[e] = UINT64_MAX;
	t->slot[j] = (uint32_t)++p->ncontexts;
	t->used++;
	return (uint32_t)(p->ncontexts - 1);
}

void profile_context_add(struct zp_context *dst, const struct zp_context *src, size_t nevents)
{
	dst->calls += src->calls;
	if (!dst->site) {
		dst->site = src->site;
		dst->site_line = src->site_line;
	}
	for (size_t e = 0; e < nevents; e++) {
		dst->self[e] += src->self[e];
		dst->incl[e] += src->incl[e];
		if (src->min[e] < dst->min[e])
			dst->min[e] = src->min[e];
		if (src->max[e] > dst->max[e])
			dst->max[e] = src->max[e];
	}
}

struct zp_instr *profile_add_instr(struct zp_profile *p, uint32_t thread, uint32_t node,
				   uint64_t addr, int line)
{
	/* Doubling keeps appends amortised O(1): the capacity is the next power of two. */
	if ((p->ninstrs & (p->ninstrs - 1)) == 0)
		p->instrs = zp_xrealloc(p->instrs, (p->ninstrs ? 2 * p->ninstrs : 1) * sizeof *p->instrs);
	struct zp_instr *in = &p->instrs[p->ninstrs++];
	memset(in, 0, sizeof *in);
	in->thread = thread;
	in->node = node;
	in->addr = addr;
	in->line = line;
	return in;
}

void profile_stat_add(struct zp_stat *dst, const struct zp_stat *src, size_t nevents)
{
	dst->calls += src->calls;
	for (size_t e = 0; e < nevents; e++) {
		dst->self[e] += src->self[e];
		dst->incl[e] += src->incl[e];
		if (src->min[e] < dst->min[e])
			dst->min[e] = src->min[e];
		if (src->max[e] > dst->max[e])
			dst->max[e] = src->max[e];
	}
}

/* ---- merging ---------------------------------------------------------- */

static void merge_costs(uint64_t *dst, const uint64_t *src, const unsigned *event_map,
			size_t nevents)
{
	for (size_t e = 0; e < nevents; e++)
		dst[event_map[e]] += src[e];
}

static void merge_extremes(uint64_t *dmin, uint64_t *dmax, const uint64_t *smin,
			   const uint64_t *smax, const unsigned *event_map, size_t nevents)
{
	for (size_t e = 0; e < nevents; e++) {
		unsigned k = event_map[e];
		if (smin[e] < dmin[k])
			dmin[k] = smin[e];
		if (smax[e] > dmax[k])
			dmax[k] = smax[e];
	}
}

/* Adds src's calls, jumps taken and inclusive costs into d (site: the first seen). */
static void edge_add(struct zp_edge *d, const struct zp_edge *src, const unsigned *event_map,
		     size_t nevents)
{
	d->calls += src->calls;
	d->taken += src->taken;
	if (!d->site) {
		d->site = src->site;
		d->site_line = src->site_line;
	}
	merge_costs(d->incl, src->incl, event_map, nevents);
}

/* Parents come first in src, so each parent is mapped before its children. */
static void merge_contexts(struct zp_profile *dst, const struct zp_profile *src,
			   const uint32_t *thread_map, const uint32_t *node_map,
			   const unsigned *event_map)
{
	uint32_t *map = zp_xcalloc(src->ncontexts, sizeof *map);
	for (size_t i = 0; i < src->ncontexts; i++) {
		const struct zp_context *c = &src->contexts[i];
		uint32_t parent = c->parent == ZP_NONE ? ZP_NONE : map[c->parent];
		map[i] = profile_context(dst, thread_map[c->thread], parent, node_map[c->node]);
		struct zp_context *d = &dst->contexts[map[i]];
		d->calls += c->calls;
		if (!d->site) {
			d->site = c->site;
			d->site_line = c->site_line;
		}
		merge_costs(d->self, c->self, event_map, src->nevents);
		merge_costs(d->incl, c->incl, event_map, src->nevents);
		merge_extremes(d->min, d->max, c->min, c->max, event_map, src->nevents);
	}
	free(map);
}

void profile_add_span(struct zp_profile *p, uint32_t thread, uint32_t node, uint32_t depth,
		      uint32_t flags, int64_t start, int64_t end)
{
	grow((void **)&p->spans, &p->index->cap_spans, p->nspans + 1, sizeof *p->spans);
	p->spans[p->nspans++] = (struct zp_span){thread, node, depth, flags, start, end};
}

void profile_merge(struct zp_profile *dst, const struct zp_profile *src)
{
	unsigned event_map[ZP_MAX_EVENTS];
	for (size_t e = 0; e < src->nevents; e++)
		event_map[e] = profile_event(dst, src->events[e].name, src->events[e].unit);

	uint32_t *thread_map = zp_xcalloc(src->nthreads, sizeof *thread_map);
	for (size_t i = 0; i < src->nthreads; i++) {
		const struct zp_thread *t = &src->threads[i];
		thread_map[i] = profile_thread(dst, t->pid, t->tid, t->name);
	}
	uint32_t *node_map = zp_xcalloc(src->nnodes, sizeof *node_map);
	for (size_t i = 0; i < src->nnodes; i++) {
		const struct zp_node *n = &src->nodes[i];
		node_map[i] = profile_node(dst, n->kind, n->name, n->module, n->file, n->line,
					   n->addr);
	}
	for (size_t i = 0; i < src->nnodes; i++)
		if (src->nodes[i].parent != ZP_NONE)
			dst->nodes[node_map[i]].parent = node_map[src->nodes[i].parent];

	for (size_t i = 0; i < src->nstats; i++) {
		const struct zp_stat *s = &src->stats[i];
		struct zp_stat *d = profile_stat(dst, thread_map[s->thread], node_map[s->node]);
		d->calls += s->calls;
		merge_costs(d->self, s->self, event_map, src->nevents);
		merge_costs(d->incl, s->incl, event_map, src->nevents);
		merge_extremes(d->min, d->max, s->min, s->max, event_map, src->nevents);
	}
	for (size_t i = 0; i < src->nedges; i++) {
		const struct zp_edge *e = &src->edges[i];
		uint32_t caller = e->caller == ZP_NONE ? ZP_NONE : node_map[e->caller];
		struct zp_edge *d = profile_edge(dst, thread_map[e->thread], e->kind, caller,
						 node_map[e->callee]);
		edge_add(d, e, event_map, src->nevents);
	}
	for (size_t i = 0; i < src->ninstrs; i++) {
		const struct zp_instr *in = &src->instrs[i];
		struct zp_instr *d = profile_add_instr(dst, thread_map[in->thread],
						       node_map[in->node], in->addr, in->line);
		merge_costs(d->cost, in->cost, event_map, src->nevents);
	}
	merge_contexts(dst, src, thread_map, node_map, event_map);
	for (size_t i = 0; i < src->nspans; i++) {
		const struct zp_span *sp = &src->spans[i];
		profile_add_span(dst, thread_map[sp->thread], node_map[sp->node], sp->depth,
				 sp->flags, sp->start, sp->end);
	}
	free(thread_map);
	free(node_map);
}

void profile_drop_contexts(struct zp_profile *p)
{
	free(p->contexts);
	p->contexts = NULL;
	p->ncontexts = 0;
	p->index->cap_contexts = 0;
	free(p->index->contexts.slot);
	p->index->contexts = (struct table){0};
}

/* ---- views ------------------------------------------------------------- */

struct zp_view *profile_view(const struct zp_profile *p, uint32_t thread)
{
	struct zp_view *v = zp_xcalloc(1, sizeof *v);
	v->p = p;
	v->nodes = zp_xcalloc(p->nnodes, sizeof *v->nodes);
	for (size_t i = 0; i < p->nnodes; i++)
		stat_init(&v->nodes[i], thread, (uint32_t)i);
	for (size_t i = 0; i < p->nstats; i++) {
		const struct zp_stat *s = &p->stats[i];
		if (thread != ZP_NONE && s->thread != thread)
			continue;
		profile_stat_add(&v->nodes[s->node], s, p->nevents);
		for (size_t e = 0; e < p->nevents; e++)
			v->total[e] += s->self[e];
	}

	/* Edges of all threads fold into one per (kind, caller, callee). */
	unsigned identity[ZP_MAX_EVENTS];
	for (unsigned k = 0; k < ZP_MAX_EVENTS; k++)
		identity[k] = k;
	struct zp_profile *tmp = profile_new();
	for (size_t i = 0; i < p->nedges; i++) {
		const struct zp_edge *e = &p->edges[i];
		if (thread != ZP_NONE && e->thread != thread)
			continue;
		struct zp_edge *d = profile_edge(tmp, thread, e->kind, e->caller, e->callee);
		edge_add(d, e, identity, p->nevents);
	}
	v->nedges = tmp->nedges;
	v->edges = tmp->edges;
	tmp->edges = NULL;
	tmp->nedges = 0;
	profile_free(tmp);
	if (p->ncontexts) {
		v->incl_all = zp_xcalloc((size_t)p->nnodes * ZP_MAX_EVENTS, sizeof *v->incl_all);
		v->ctx_calls = zp_xcalloc(p->nnodes, sizeof *v->ctx_calls);
		v->incl_nocall =
			zp_xcalloc((size_t)p->nnodes * ZP_MAX_EVENTS, sizeof *v->incl_nocall);
		for (size_t i = 0; i < p->ncontexts; i++) {
			const struct zp_context *c = &p->contexts[i];
			if ((thread != ZP_NONE && c->thread != thread) || c->node >= p->nnodes)
				continue;
			v->ctx_calls[c->node] += c->calls;
			for (size_t e = 0; e < p->nevents; e++) {
				size_t k = (size_t)c->node * ZP_MAX_EVENTS + e;
				v->incl_all[k] += c->incl[e];
				if (!c->calls)
					v->incl_nocall[k] += c->incl[e];
			}
		}
	}
	return v;
}

uint64_t profile_stack_frames(const struct zp_profile *p, uint32_t thread, uint32_t *deepest)
{
	/* a parent comes before its children: one pass gives every depth */
	uint32_t *depth = zp_xcalloc(p->ncontexts + 1, sizeof *depth);
	uint64_t frames = 0;
	*deepest = 0;
	for (size_t i = 0; i < p->ncontexts; i++) {
		uint32_t up = p->contexts[i].parent;
		depth[i] = up == ZP_NONE || up >= i ? 1 : depth[up] + 1;
		if (thread != ZP_NONE && p->contexts[i].thread != thread)
			continue;
		frames += depth[i];
		if (depth[i] > *deepest)
			*deepest = depth[i];
	}
	free(depth);
	return frames;
}

uint64_t profile_view_avg(const struct zp_view *v, uint32_t n, unsigned event)
{
	const struct zp_stat *s = &v->nodes[n];
	if (!s->calls)
		return UINT64_MAX;
	uint64_t incl = s->incl[event], nocall = 0;
	if (v->incl_all) {
		uint64_t all = v->incl_all[(size_t)n * ZP_MAX_EVENTS + event];
		/*
		 * A forked child's continuation of a call is time of no call of
		 * its own (doc/raw-format.md "Files"): left out, so that the
		 * average is of whole calls, as min and max are.
		 */
		nocall = v->incl_nocall[(size_t)n * ZP_MAX_EVENTS + event];
		/*
		 * Calls outside the contexts with none of the time outside them
		 * were counted untimed (no frame): their time is their caller's,
		 * so the average is over the contexts' calls.  (Time outside the
		 * contexts, a full context pool, was timed on the function.)
		 */
		uint64_t timed = v->ctx_calls[n];
		if (all >= incl && timed && timed < s->calls)
			return (all - nocall) / timed;
		if (all > incl)
			incl = all;
	}
	return (incl > nocall ? incl - nocall : 0) / s->calls;
}

void profile_view_free(struct zp_view *v)
{
	if (!v)
		return;
	free(v->incl_all);
	free(v->ctx_calls);
	free(v->incl_nocall);
	free(v->nodes);
	free(v->edges);
	free(v);
}

struct zp_context_view *profile_context_view(const struct zp_profile *p, uint32_t thread)
{
	struct zp_profile *tmp = profile_new();
	uint32_t *map = zp_xcalloc(p->ncontexts, sizeof *map);
	for (size_t i = 0; i < p->ncontexts; i++) {
		const struct zp_context *c = &p->contexts[i];
		map[i] = ZP_NONE;
		if (thread != ZP_NONE && c->thread != thread)
			continue;
		uint32_t parent = c->parent == ZP_NONE ? ZP_NONE : map[c->parent];
		map[i] = profile_context(tmp, thread, parent, c->node);
		profile_context_add(&tmp->contexts[map[i]], c, p->nevents);
	}
	free(map);
	struct zp_context_view *v = zp_xcalloc(1, sizeof *v);
	v->p = p;
	v->ncontexts = tmp->ncontexts;
	v->contexts = tmp->contexts;
	tmp->contexts = NULL;
	tmp->ncontexts = 0;
	profile_free(tmp);
	return v;
}

void profile_context_view_free(struct zp_context_view *v)
{
	if (!v)
		return;
	free(v->contexts);
	free(v);
}
