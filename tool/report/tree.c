/*
 * tree.c - the top-down call tree.
 *
 * From each root (a node called at a thread's start or by nothing, or each
 * function matching o->match) the tree follows call edges, dearest first.
 * A line shows the calls and inclusive cost along the edge from its parent
 * line: the model keeps edges, not whole call paths, so a function reached
 * along several paths shows the same edge numbers under each caller.  A
 * callee already on the path is marked "(recursive)" and not followed; a
 * function whose callees were listed earlier is marked "(callees above)"
 * and not repeated, which keeps the tree as long as the graph has edges.
 * Below MAX_DEPTH levels the tree stops, saying so.
 */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>

#include "callgraph.h"
#include "rows.h"

#define MAX_DEPTH 256

struct tree {
	const struct zp_view *v;
	struct callgraph g;
	int metric, raw;
	unsigned char *on_path, *expanded;
	FILE *out;
};

static void put_line(const struct tree *t, uint64_t calls, uint64_t cost, unsigned depth,
		     uint32_t n, const char *mark)
{
	char buf[FORMAT_LEN], share[FORMAT_LEN];
	fprintf(t->out, "%10" PRIu64, calls);
	if (t->metric != METRIC_CALLS)
		fprintf(t->out, " %11s %8s",
			format_cost(buf, cost, metric_event(t->v->p, t->metric), t->raw),
			format_share(share, cost, t->v->total[t->metric]));
	fprintf(t->out, "  %*s", (int)depth * 2, "");
	report_put_name(t->out, &t->v->p->nodes[n]);
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

void report_tree(const struct zp_profile *p, const struct report_options *o, FILE *out)
{
	struct zp_view *v = profile_view(p, o->thread);
	struct tree t = {.v = v, .metric = report_metric(p, o), .raw = o->raw_numbers, .out = out};
	callgraph_build(&t.g, v);
	t.on_path = zp_xcalloc(p->nnodes, 1);
	t.expanded = zp_xcalloc(p->nnodes, 1);
	struct report_options by_total = *o;
	by_total.sort = SORT_TOTAL;
	size_t nrows;
	uint32_t *rows = report_rows(v, &by_total, t.metric, &nrows);

	fputs("call tree: ", out);
	report_put_metric(out, v, t.metric, o->raw_numbers);
	if (t.metric == METRIC_CALLS)
		fprintf(out, "%10s  %s\n", "calls", "name");
	else
		fprintf(out, "%10s %11s %8s  %s\n", "calls", "total", "total %", "name");
	for (size_t i = 0; i < nrows; i++) {
		uint64_t calls, cost;
		if (!is_root(&t, o, rows[i]))
			continue;
		root_entry(&t, rows[i], o->match != NULL, &calls, &cost);
		put_subtree(&t, rows[i], calls, cost, 0);
	}

	free(rows);
	free(t.on_path);
	free(t.expanded);
	callgraph_free(&t.g);
	profile_view_free(v);
}
