/*
 * graph.c - the call graph in the manner of gprof: one entry per function,
 * its callers above it, its callees below it.
 *
 * The function line shows its share of the run (inclusive), self and total
 * cost and calls; a caller or callee line shows the calls and inclusive cost
 * along that one edge, and "calls/all calls of the callee".  A function
 * that calls itself shows its calls as "outer+recursive" and its own edge is
 * not listed; mutual recursion shows as ordinary callers and callees.
 * Every active node gets an index [n] in sort order, so that an entry can
 * be found from the lines that name it.  A node with callees but no cost
 * of its own (the calling module a libcalls run names, "[/usr/bin/app]")
 * gets an entry too, before the others: its total is the cost along its
 * calls, its self cost is not known ("-").
 */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "rows.h"

#define RULE "------------------------------------------------------------------------\n"

struct graph {
	const struct zp_view *v;
	struct callgraph g;
	int metric, raw;
	int calls_w, cost_w; /* column widths (report_widths; calls "a/b") */
	uint32_t *index; /* per node: 1-based index in the report, 0 if none */
	uint8_t *caller_only; /* per node: 1 for a node with callees and no cost of its own */
};

static uint64_t self_calls(const struct graph *gr, uint32_t n)
{
	uint64_t calls = 0;
	for (size_t i = gr->g.out_first[n]; i < gr->g.out_first[n + 1]; i++) {
		const struct zp_edge *e = &gr->v->edges[gr->g.out[i]];
		if (e->callee == n)
			calls += e->calls;
	}
	return calls;
}

static void put_columns(FILE *out, const struct graph *gr, const char *index, uint64_t share,
			const char *self, uint64_t total, const char *calls)
{
	char buf[FORMAT_LEN], sh[FORMAT_LEN];
	const struct zp_event *ev = metric_event(gr->v->p, gr->metric);
	if (gr->metric == METRIC_CALLS) {
		fprintf(out, "%-7s %*s  ", index, gr->calls_w, calls);
		return;
	}
	fprintf(out, "%-7s %8s %*s %*s %*s  ", index,
		*index ? format_share(sh, share, gr->v->total[gr->metric]) : "", gr->cost_w, self,
		gr->cost_w, format_cost(buf, total, ev, gr->raw), gr->calls_w, calls);
}

static void put_ref(FILE *out, const struct graph *gr, uint32_t n)
{
	if (n == ZP_NONE) {
		fputs("<root>\n", out);
		return;
	}
	report_put_name(out, gr->v->p, n);
	if (gr->index[n])
		fprintf(out, " [%" PRIu32 "]", gr->index[n]);
	putc('\n', out);
}

/* Edges of one side of n (callers or callees), dearest first, self-calls left out. */
static void put_edges(FILE *out, const struct graph *gr, uint32_t n, int callers)
{
	const size_t *first = callers ? gr->g.in_first : gr->g.out_first;
	const uint32_t *list = callers ? gr->g.in : gr->g.out;
	size_t count = first[n + 1] - first[n];
	uint32_t *edges = zp_xcalloc(count, sizeof *edges);
	size_t k = 0;
	for (size_t i = first[n]; i < first[n + 1]; i++)
		if (gr->v->edges[list[i]].caller != gr->v->edges[list[i]].callee)
			edges[k++] = list[i];
	report_sort_edges(gr->v, gr->metric, edges, k);
	for (size_t i = 0; i < k; i++) {
		const struct zp_edge *e = &gr->v->edges[edges[i]];
		char calls[48];
		snprintf(calls, sizeof calls, "%" PRIu64 "/%" PRIu64, e->calls,
			 gr->v->nodes[e->callee].calls);
		put_columns(out, gr, "", 0, "", metric_edge(e, gr->metric), calls);
		fputs("    ", out);
		put_ref(out, gr, callers ? e->caller : e->callee);
	}
	free(edges);
}

/* The cost along n's calls of other functions. */
static uint64_t callees_cost(const struct graph *gr, uint32_t n)
{
	uint64_t sum = 0;
	for (size_t i = gr->g.out_first[n]; i < gr->g.out_first[n + 1]; i++) {
		const struct zp_edge *e = &gr->v->edges[gr->g.out[i]];
		if (e->callee != n)
			sum += metric_edge(e, gr->metric);
	}
	return sum;
}

/* 1 when n calls another function (an edge with calls). */
static int has_callees(const struct graph *gr, uint32_t n)
{
	for (size_t i = gr->g.out_first[n]; i < gr->g.out_first[n + 1]; i++) {
		const struct zp_edge *e = &gr->v->edges[gr->g.out[i]];
		if (e->callee != n && e->calls)
			return 1;
	}
	return 0;
}

static void put_entry(FILE *out, const struct graph *gr, uint32_t n)
{
	const struct zp_stat *s = &gr->v->nodes[n];
	const struct zp_event *ev = metric_event(gr->v->p, gr->metric);
	uint64_t rec = self_calls(gr, n);
	char index[24], calls[48], self[FORMAT_LEN];
	if (gr->caller_only[n]) {
		uint64_t total = callees_cost(gr, n);
		snprintf(index, sizeof index, "[%" PRIu32 "]", gr->index[n]);
		/* never called: no caller lines (a root edge of no calls) */
		put_columns(out, gr, index, total, gr->metric == METRIC_CALLS ? "" : "-", total,
			    "-");
		put_ref(out, gr, n);
		put_edges(out, gr, n, 0);
		fputs(RULE, out);
		return;
	}
	snprintf(index, sizeof index, "[%" PRIu32 "]", gr->index[n]);
	if (rec)
		snprintf(calls, sizeof calls, "%" PRIu64 "+%" PRIu64, s->calls - rec, rec);
	else
		snprintf(calls, sizeof calls, "%" PRIu64, s->calls);
	put_edges(out, gr, n, 1);
	put_columns(out, gr, index, metric_incl(s, gr->metric),
		    gr->metric == METRIC_CALLS
			    ? ""
			    : format_cost(self, s->self[gr->metric], ev, gr->raw),
		    metric_incl(s, gr->metric), calls);
	put_ref(out, gr, n);
	put_edges(out, gr, n, 0);
	fputs(RULE, out);
}

void report_graph(const struct zp_profile *p, const struct report_options *o, FILE *out)
{
	struct zp_view *v = callgraph_view(p, o->thread);
	struct graph gr = {.v = v, .metric = report_metric(p, o), .raw = o->raw_numbers};
	callgraph_build(&gr.g, v);
	struct report_widths w = report_widths(v, gr.metric, gr.raw);
	gr.cost_w = w.cost;
	gr.calls_w = w.calls > 10 ? 2 * w.calls + 1 : 13; /* "calls/all" */
	gr.index = zp_xcalloc(p->nnodes, sizeof *gr.index);
	gr.caller_only = zp_xcalloc(p->nnodes ? p->nnodes : 1, sizeof *gr.caller_only);
	size_t nactive, nrows = 0, shown = 0;
	uint32_t *active = report_rows(v, o, gr.metric, &nactive);
	uint32_t *rows = zp_xcalloc(p->nnodes ? p->nnodes : 1, sizeof *rows);
	for (uint32_t n = 0; n < p->nnodes; n++)
		if (!report_is_active(v, n) && has_callees(&gr, n)) {
			gr.caller_only[n] = 1;
			rows[nrows++] = n;
		}
	memcpy(rows + nrows, active, nactive * sizeof *rows);
	nrows += nactive;
	free(active);
	for (size_t i = 0; i < nrows; i++)
		gr.index[rows[i]] = (uint32_t)i + 1;

	fputs("call graph: ", out);
	report_put_metric(out, v, gr.metric, o->raw_numbers);
	if (gr.metric == METRIC_CALLS)
		fprintf(out, "%-7s %*s  %s\n", "index", gr.calls_w, "calls", "name");
	else
		fprintf(out, "%-7s %8s %*s %*s %*s  %s\n", "index", "total %", gr.cost_w, "self",
			gr.cost_w, "total", gr.calls_w, "calls", "name");
	fputs(RULE, out);
	for (size_t i = 0; i < nrows && (o->limit <= 0 || shown < (size_t)o->limit); i++) {
		if (!report_matches(o, p->nodes[rows[i]].name))
			continue;
		put_entry(out, &gr, rows[i]);
		shown++;
	}

	free(rows);
	free(gr.caller_only);
	free(gr.index);
	callgraph_free(&gr.g);
	profile_view_free(v);
}
