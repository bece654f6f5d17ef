/*
 * tree.c - the top-down call tree.
 *
 * When the run has calling contexts, the tree is theirs: one line per
 * context (threads folded by path, or one thread), with the calls and
 * inclusive cost of that function along exactly that path, children
 * dearest first.  Recursion nests as it ran, and no line exceeds its parent.
 * With o->match, the tree starts at the outermost contexts of matching
 * functions, merged by path from there.
 *
 * A run without contexts (schema 1 store, a collector that kept none) gets
 * the tree rebuilt from call edges, and a line saying so: from each root (a
 * node called at a thread's start or by nothing, or each function matching
 * o->match) the tree follows call edges, dearest first.  A line shows the
 * calls and inclusive cost along the edge from its parent line, so a
 * function reached along several paths shows the same edge numbers under
 * each caller.  A callee already on the path is marked "(recursive)" and
 * not followed; a function whose callees were listed earlier is marked
 * "(callees above)" and not repeated, which keeps the tree as long as the
 * graph has edges.
 *
 * Below MAX_DEPTH levels either tree stops, saying so.
 */
#define _GNU_SOURCE /* qsort_r */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "rows.h"

#define MAX_DEPTH 256

struct tree {
	const struct zp_view *v;
	const struct zp_context_view *cv; /* the contexts' tree, or NULL */
	struct context_children k;
	struct callgraph g;
	int metric, raw;
	struct report_widths w;
	unsigned char *on_path, *expanded;
	FILE *out;
};

static void put_line(const struct tree *t, uint64_t calls, uint64_t cost, unsigned depth,
		     uint32_t n, const char *mark)
{
	char buf[FORMAT_LEN], share[FORMAT_LEN];
	fprintf(t->out, "%*" PRIu64, t->w.calls, calls);
	if (t->metric != METRIC_CALLS)
		fprintf(t->out, " %*s %8s", t->w.cost,
			format_cost(buf, cost, metric_event(t->v->p, t->metric), t->raw),
			format_share(share, cost, t->v->total[t->metric]));
	fprintf(t->out, "  %*s", (int)depth * 2, "");
	report_put_name(t->out, t->v->p, n);
	fprintf(t->out, "%s\n", mark);
}

static void put_subtree(struct tree *t, uint32_t n, uint64_t calls, uint64_t cost, unsigned depth)
{
	size_t first = t->g.out_first[n], end = t->g.out_first[n + 1];
	if (t->on_path[n]) {
		put_line(t, calls, cost, depth, n, " (recursive)");
		return;
	}
	if (first != end && t->expanded[n]) {
		put_line(t, calls, cost, depth, n, " (callees above)");
		return;
	}
	if (first != end && depth == MAX_DEPTH) {
		put_line(t, calls, cost, depth, n, " (deeper calls not shown)");
		return;
	}
	put_line(t, calls, cost, depth, n, "");
	t->on_path[n] = t->expanded[n] = 1;
	uint32_t *edges = zp_xcalloc(end - first, sizeof *edges);
	for (size_t i = first; i < end; i++)
		edges[i - first] = t->g.out[i];
	report_sort_edges(t->v, t->metric, edges, end - first);
	for (size_t i = 0; i < end - first; i++) {
		const struct zp_edge *e = &t->v->edges[edges[i]];
		put_subtree(t, e->callee, e->calls, metric_edge(e, t->metric), depth + 1);
	}
	free(edges);
	t->on_path[n] = 0;
}

/*
 * What enters a root: its calls from thread starts, or all of it when
 * nothing calls it or it was picked by name.
 */
static void root_entry(const struct tree *t, uint32_t n, int picked, uint64_t *calls,
		       uint64_t *cost)
{
	*calls = *cost = 0;
	for (size_t i = t->g.in_first[n]; !picked && i < t->g.in_first[n + 1]; i++) {
		const struct zp_edge *e = &t->v->edges[t->g.in[i]];
		if (e->caller == ZP_NONE) {
			*calls += e->calls;
			*cost += metric_edge(e, t->metric);
		}
	}
	if (*calls == 0) {
		*calls = t->v->nodes[n].calls;
		*cost = metric_incl(&t->v->nodes[n], t->metric);
	}
}

static int is_root(const struct tree *t, const struct report_options *o, uint32_t n)
{
	if (o->match)
		return report_matches(o, t->v->p->nodes[n].name);
	/* Basic blocks hang off their function, not off the call tree. */
	if (t->v->p->nodes[n].kind == ZP_BASIC_BLOCK)
		return 0;
	return t->g.in_first[n] == t->g.in_first[n + 1] || callgraph_is_root_call(&t->g, n);
}

/* ---- from calling contexts --------------------------------------------- */

struct context_order {
	const struct zp_context_view *cv;
	int metric;
};

/* Dearest first; then by name and context id, so output is reproducible. */
static int compare_contexts(const void *a, const void *b, void *arg)
{
	const struct context_order *o = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const struct zp_context *ca = &o->cv->contexts[ia], *cb = &o->cv->contexts[ib];
	uint64_t va = metric_context_incl(ca, o->metric), vb = metric_context_incl(cb, o->metric);
	if (va != vb)
		return va < vb ? 1 : -1;
	int by_name = strcmp(o->cv->p->nodes[ca->node].name, o->cv->p->nodes[cb->node].name);
	if (by_name)
		return by_name;
	return ia < ib ? -1 : ia > ib;
}

/* Prints the contexts list[0..n) and their subtrees, dearest first. */
static void put_contexts(struct tree *t, const uint32_t *list, size_t n, unsigned depth)
{
	struct context_order order = {t->cv, t->metric};
	uint32_t *sorted = zp_xcalloc(n ? n : 1, sizeof *sorted);
	memcpy(sorted, list, n * sizeof *sorted);
	qsort_r(sorted, n, sizeof *sorted, compare_contexts, &order);
	for (size_t i = 0; i < n; i++) {
		uint32_t c = sorted[i];
		const struct zp_context *x = &t->cv->contexts[c];
		size_t first = t->k.first[c], end = t->k.first[c + 1];
		uint64_t cost = metric_context_incl(x, t->metric);
		if (first != end && depth == MAX_DEPTH) {
			put_line(t, x->calls, cost, depth, x->node, " (deeper calls not shown)");
			continue;
		}
		put_line(t, x->calls, cost, depth, x->node, "");
		put_contexts(t, t->k.child + first, end - first, depth + 1);
	}
	free(sorted);
}

/*
 * The contexts below (and at) the outermost contexts of the functions
 * matching o->match, merged by path from there: the tree of each match,
 * held in a scratch profile's contexts.
 */
static struct zp_profile *matching_contexts(const struct zp_context_view *cv,
					    const struct report_options *o)
{
	const struct zp_profile *p = cv->p;
	struct zp_profile *tmp = profile_new();
	uint32_t *map = zp_xcalloc(cv->ncontexts ? cv->ncontexts : 1, sizeof *map);
	for (size_t i = 0; i < cv->ncontexts; i++) {
		const struct zp_context *c = &cv->contexts[i];
		uint32_t up = c->parent == ZP_NONE ? ZP_NONE : map[c->parent];
		map[i] = ZP_NONE;
		if (up != ZP_NONE || report_matches(o, p->nodes[c->node].name))
			map[i] = profile_context(tmp, c->thread, up, c->node);
		if (map[i] != ZP_NONE)
			profile_context_add(&tmp->contexts[map[i]], c, p->nevents);
	}
	free(map);
	return tmp;
}

static void put_context_tree(struct tree *t, const struct report_options *o)
{
	struct zp_context_view *all = profile_context_view(t->v->p, o->thread);
	struct zp_context_view shown = *all;
	struct zp_profile *matches = o->match ? matching_contexts(all, o) : NULL;
	if (matches) {
		shown.ncontexts = matches->ncontexts;
		shown.contexts = matches->contexts;
	}
	t->cv = &shown;
	context_children_build(&t->k, &shown);
	size_t roots = shown.ncontexts;
	put_contexts(t, t->k.child + t->k.first[roots], t->k.first[roots + 1] - t->k.first[roots],
		     0);
	context_children_free(&t->k);
	profile_free(matches);
	profile_context_view_free(all);
}

/* ---- rebuilt from call edges -------------------------------------------- */

static void put_edge_tree(struct tree *t, const struct report_options *o)
{
	const struct zp_profile *p = t->v->p;
	callgraph_build(&t->g, t->v);
	t->on_path = zp_xcalloc(p->nnodes, 1);
	t->expanded = zp_xcalloc(p->nnodes, 1);
	struct report_options by_total = *o;
	by_total.sort = SORT_TOTAL;
	size_t nrows;
	uint32_t *rows = report_rows(t->v, &by_total, t->metric, &nrows);
	for (size_t i = 0; i < nrows; i++) {
		uint64_t calls, cost;
		if (!is_root(t, o, rows[i]))
			continue;
		root_entry(t, rows[i], o->match != NULL, &calls, &cost);
		put_subtree(t, rows[i], calls, cost, 0);
	}
	free(rows);
	free(t->on_path);
	free(t->expanded);
	callgraph_free(&t->g);
}

void report_tree(const struct zp_profile *p, const struct report_options *o, FILE *out)
{
	struct zp_view *v = profile_view(p, o->thread);
	struct tree t = {.v = v, .metric = report_metric(p, o), .raw = o->raw_numbers, .out = out};
	fputs("call tree: ", out);
	report_put_metric(out, v, t.metric, o->raw_numbers);
	/* a campaign mixing runs with and without contexts: the header's warning says it */
	if (!p->ncontexts && !profile_meta(p, "runs_without_contexts"))
		fputs("(no calling contexts in this run: paths rebuilt from call edges, "
		      "they may not all have happened)\n",
		      out);
	t.w = report_widths(v, t.metric, t.raw);
	if (t.metric == METRIC_CALLS)
		fprintf(out, "%*s  %s\n", t.w.calls, "calls", "name");
	else
		fprintf(out, "%*s %*s %8s  %s\n", t.w.calls, "calls", t.w.cost, "total", "total %",
			"name");
	if (p->ncontexts)
		put_context_tree(&t, o);
	else
		put_edge_tree(&t, o);
	profile_view_free(v);
}
