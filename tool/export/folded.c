/*
 * folded.c - folded stacks, "root;caller;callee value", one line per call
 * path, for flamegraph.pl and speedscope.
 *
 * A run with calling contexts gives the real stacks: one line per context
 * (threads folded by path, or one thread), in context order (a path before
 * its extensions), its value the context's self cost in the metric; for
 * calls (counts-only runs, or -e calls) the calls of the path's last
 * function along exactly that path.  Lines of value 0 are left out.
 *
 * A run without contexts has only call edges, so paths are rebuilt:
 * walking down from the roots, each path carries a flow, the share of the
 * metric it brings into its last node.  A root starts with the cost of its
 * root calls (or its inclusive cost if nothing calls it); a callee reached
 * along edge e from a node v with flow f gets f * cost(e) / inclusive(v).
 * Each node's self cost is then split over its paths in proportion to their
 * flows, in integers that add up to the self cost exactly.  A path stops
 * before a node already on it (recursion), after MAX_DEPTH frames, or when
 * MAX_FRAMES paths exist; a node with self cost left on no path at all is
 * printed as a path of its own.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>

#include "report/callgraph.h"
#include "report/format.h"

#define MAX_DEPTH  256
#define MAX_FRAMES (1u << 20)

/* One call path: its last node and the path of its caller. */
struct frame {
	uint32_t parent; /* frame index, or ZP_NONE for a root */
	uint32_t node;
	uint32_t depth;
	long double flow;
	uint64_t value; /* the share of the node's self cost given to this path */
};

struct folder {
	struct zp_view *v;
	struct callgraph g;
	int metric;
	struct frame *frames;
	size_t nframes, cap;
	unsigned char *on_path;
};

static uint32_t add_frame(struct folder *f, uint32_t parent, uint32_t node, long double flow)
{
	if (f->nframes == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		f->frames = zp_xrealloc(f->frames, f->cap * sizeof *f->frames);
	}
	struct frame *fr = &f->frames[f->nframes];
	fr->parent = parent;
	fr->node = node;
	fr->depth = parent == ZP_NONE ? 1 : f->frames[parent].depth + 1;
	fr->flow = flow;
	fr->value = 0;
	return (uint32_t)f->nframes++;
}

static void walk(struct folder *f, uint32_t at)
{
	uint32_t n = f->frames[at].node;
	uint64_t in = metric_incl(&f->v->nodes[n], f->metric);
	f->on_path[n] = 1;
	for (size_t i = f->g.out_first[n]; i < f->g.out_first[n + 1]; i++) {
		const struct zp_edge *e = &f->v->edges[f->g.out[i]];
		long double flow = in ? f->frames[at].flow * metric_edge(e, f->metric) / in : 0;
		if (f->on_path[e->callee] || flow <= 0 || f->frames[at].depth >= MAX_DEPTH ||
		    f->nframes >= MAX_FRAMES)
			continue;
		walk(f, add_frame(f, at, e->callee, flow));
	}
	f->on_path[n] = 0;
}

/* Roots: nodes called from a thread's start, or called by nothing. */
static void walk_roots(struct folder *f)
{
	const struct zp_view *v = f->v;
	for (uint32_t n = 0; n < v->p->nnodes; n++) {
		long double flow = 0;
		size_t first = f->g.in_first[n], end = f->g.in_first[n + 1];
		for (size_t i = first; i < end; i++) {
			const struct zp_edge *e = &v->edges[f->g.in[i]];
			if (e->caller == ZP_NONE)
				flow += metric_edge(e, f->metric);
		}
		if (first == end)
			flow = metric_incl(&v->nodes[n], f->metric);
		if ((first == end && v->nodes[n].calls) || callgraph_is_root_call(&f->g, n))
			walk(f, add_frame(f, ZP_NONE, n, flow));
	}
}

/*
 * Splits self over the frames list[0..n) by flow: frame i gets the
 * difference of the rounded-down cumulative shares, so the parts add up to
 * self exactly.  Frames without flow share equally when no frame has any.
 */
static void split_self(struct frame *frames, const uint32_t *list, size_t n, uint64_t self)
{
	long double sum = 0, cum = 0;
	for (size_t i = 0; i < n; i++)
		sum += frames[list[i]].flow;
	uint64_t given = 0;
	for (size_t i = 0; i < n; i++) {
		cum += sum > 0 ? frames[list[i]].flow : 1;
		long double whole = sum > 0 ? sum : (long double)n;
		uint64_t upto = i + 1 == n ? self : (uint64_t)(self * (cum / whole));
		if (upto > self)
			upto = self;
		if (upto < given)
			upto = given;
		frames[list[i]].value = upto - given;
		given = upto;
	}
}

static void split_all(struct folder *f)
{
	size_t nnodes = f->v->p->nnodes;
	size_t *first = zp_xcalloc(nnodes + 1, sizeof *first);
	size_t *at = zp_xcalloc(nnodes, sizeof *at);
	uint32_t *list = zp_xcalloc(f->nframes, sizeof *list);
	for (size_t i = 0; i < f->nframes; i++)
		first[f->frames[i].node + 1]++;
	for (size_t n = 0; n < nnodes; n++) {
		first[n + 1] += first[n];
		at[n] = first[n];
	}
	for (size_t i = 0; i < f->nframes; i++)
		list[at[f->frames[i].node]++] = (uint32_t)i;
	for (uint32_t n = 0; n < nnodes; n++) {
		uint64_t self = metric_self(&f->v->nodes[n], f->metric);
		if (self && first[n] == first[n + 1]) {
			/* On no path: its own path, appended after the others (add_frame may move
			 * frames). */
			uint32_t own = add_frame(f, ZP_NONE, n, 1);
			f->frames[own].value = self;
		} else if (self) {
			split_self(f->frames, list + first[n], first[n + 1] - first[n], self);
		}
	}
	free(first);
	free(at);
	free(list);
}

/* Folded stacks give ';' and spaces a meaning: names must not contain them. */
static void put_frame_name(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == ';'                                             ? ':'
		     : *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ? '_'
									   : *s,
		     out);
}

static void put_path(FILE *out, const struct folder *f, uint32_t at)
{
	const struct frame *fr = &f->frames[at];
	if (fr->parent != ZP_NONE) {
		put_path(out, f, fr->parent);
		putc(';', out);
	}
	put_frame_name(out, f->v->p->nodes[fr->node].name);
}

void export_context_path(FILE *out, const struct zp_context_view *cv, uint32_t c, uint32_t *path,
			 void (*put_name)(FILE *out, const char *name))
{
	size_t n = 0;
	if (!put_name)
		put_name = put_frame_name;
	for (; c != ZP_NONE; c = cv->contexts[c].parent)
		path[n++] = c;
	while (n--) {
		put_name(out, cv->p->nodes[cv->contexts[path[n]].node].name);
		if (n)
			putc(';', out);
	}
}

static void fold_contexts(const struct zp_profile *p, uint32_t thread, int metric, FILE *out)
{
	struct zp_context_view *cv = profile_context_view(p, thread);
	uint32_t *path = zp_xcalloc(cv->ncontexts ? cv->ncontexts : 1, sizeof *path);
	for (uint32_t c = 0; c < cv->ncontexts; c++) {
		uint64_t value = metric_context_self(&cv->contexts[c], metric);
		if (!value)
			continue;
		export_context_path(out, cv, c, path, NULL);
		fprintf(out, " %" PRIu64 "\n", value);
	}
	free(path);
	profile_context_view_free(cv);
}

static void fold_edges(const struct zp_profile *p, uint32_t thread, int metric, FILE *out)
{
	struct folder f = {.metric = metric};
	f.v = profile_view(p, thread);
	callgraph_build(&f.g, f.v);
	f.on_path = zp_xcalloc(p->nnodes, 1);

	walk_roots(&f);
	split_all(&f);
	for (uint32_t i = 0; i < f.nframes; i++) {
		if (!f.frames[i].value)
			continue;
		put_path(out, &f, i);
		fprintf(out, " %" PRIu64 "\n", f.frames[i].value);
	}

	free(f.frames);
	free(f.on_path);
	callgraph_free(&f.g);
	profile_view_free(f.v);
}

int export_folded(const struct zp_profile *p, const struct export_options *o, FILE *out,
		  struct zerr *err)
{
	if (export_check_options(p, o, err) < 0)
		return -1;
	int metric = metric_pick(p, o->event);
	if (p->ncontexts)
		fold_contexts(p, o->thread, metric, out);
	else
		fold_edges(p, o->thread, metric, out);
	if (ferror(out))
		return zerr_set(err, "cannot write the folded stacks");
	return 0;
}
