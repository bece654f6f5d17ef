/*
 * flat.c - the flat profile: one row per function, block or basic block
 * with its calls, inclusive (total) and self cost, the average, cheapest
 * and dearest call (inclusive), and its share of the run's self cost.
 */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"

int report_parse_sort(const char *s)
{
	static const char *const keys[] = {
		[SORT_SELF] = "self", [SORT_TOTAL] = "total", [SORT_CALLS] = "calls",
		[SORT_AVG] = "avg",   [SORT_MAX] = "max",     [SORT_NAME] = "name",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(s, keys[i]) == 0)
			return (int)i;
	return -1;
}

static const char *cost_text(char *buf, uint64_t v, const struct zp_event *ev, int raw)
{
	return v == UINT64_MAX ? "-" : format_cost(buf, v, ev, raw);
}

/* 1 for a function of a libcalls run that was called and never timed. */
static int counted_only(const struct zp_view *v, uint32_t n, int metric)
{
	const struct zp_stat *s = &v->nodes[n];
	const char *collector = v->p->run.collector;
	return collector && strcmp(collector, "libcalls") == 0 &&
	       v->p->nodes[n].kind == ZP_FUNCTION && s->calls && !s->incl[metric] &&
	       !s->self[metric] && s->min[metric] == UINT64_MAX;
}

/* The five costs of row n: total, self, avg, min, max (UINT64_MAX: none). */
static void row_costs(const struct zp_view *v, uint32_t n, int metric, uint64_t c[5])
{
	const struct zp_stat *s = &v->nodes[n];
	c[0] = s->incl[metric];
	c[1] = s->self[metric];
	c[2] = profile_view_avg(v, n, (unsigned)metric);
	/* an event kept per function only (probe-cost of record and libcalls
	   runs stored before it had an inclusive figure) has none: not 0, none */
	if (s->incl[metric] == 0 && s->self[metric] > 0)
		c[0] = c[2] = UINT64_MAX;
	/* libcalls' counted-only functions (dlopen, setjmp...): called, never
	   timed, their cost their caller's, not 0 */
	else if (counted_only(v, n, metric))
		c[0] = c[1] = c[2] = UINT64_MAX;
	/* below self by the rounding of many contexts' ticks to ns (deep recursion:
	   each level's self and inclusive rounded apart): at least self */
	else if (c[0] < c[1])
		c[0] = c[1];
	/* code that ran for less than a unit a call on average still ran: not 0 */
	if (c[2] == 0 && s->incl[metric] > 0)
		c[2] = 1;
	c[3] = s->min[metric];
	/* no single call measured (sampled time has no min or max of one call) */
	c[4] = s->calls && s->min[metric] != UINT64_MAX ? s->max[metric] : UINT64_MAX;
}

static void put_row(FILE *out, const struct zp_view *v, int metric, uint32_t n, int raw,
		    const struct report_widths *w)
{
	const struct zp_stat *s = &v->nodes[n];
	fprintf(out, "%*" PRIu64, w->calls, s->calls);
	if (metric != METRIC_CALLS) {
		const struct zp_event *ev = &v->p->events[metric];
		char buf[FORMAT_LEN];
		uint64_t c[5];
		row_costs(v, n, metric, c);
		for (int i = 0; i < 5; i++)
			fprintf(out, " %*s", w->cost, cost_text(buf, c[i], ev, raw));
		fprintf(out, " %8s", format_share(buf, s->self[metric], v->total[metric]));
	}
	fputs("  ", out);
	report_put_name(out, v->p, n);
	putc('\n', out);
}

/* The rows shown: those matching, up to the limit; *matched counts all that match. */
static size_t shown_rows(const struct zp_view *v, const struct report_options *o,
			 uint32_t *rows, size_t nrows, size_t *matched)
{
	size_t shown = 0;
	*matched = 0;
	for (size_t i = 0; i < nrows; i++) {
		if (!report_matches(o, v->p->nodes[rows[i]].name))
			continue;
		(*matched)++;
		if (o->limit > 0 && shown == (size_t)o->limit)
			continue;
		rows[shown++] = rows[i];
	}
	return shown;
}

static void put_table(FILE *out, const struct zp_view *v, const struct report_options *o)
{
	int metric = report_metric(v->p, o);
	size_t nrows, matched;
	uint32_t *rows = report_rows(v, o, metric, &nrows);
	size_t shown = shown_rows(v, o, rows, nrows, &matched);
	struct report_widths w = report_widths(v, metric, o->raw_numbers);

	fputs("flat profile: ", out);
	report_put_metric(out, v, metric, o->raw_numbers);
	if (metric == METRIC_CALLS)
		fprintf(out, "%*s  %s\n", w.calls, "calls", "name");
	else
		fprintf(out, "%*s %*s %*s %*s %*s %*s %8s  %s\n", w.calls, "calls", w.cost,
			"total", w.cost, "self", w.cost, "avg", w.cost, "min", w.cost, "max",
			"self %", "name");
	for (size_t i = 0; i < shown; i++)
		put_row(out, v, metric, rows[i], o->raw_numbers, &w);
	if (matched > shown)
		fprintf(out, "(%zu more not shown)\n", matched - shown);
	free(rows);
}

static void put_thread_title(FILE *out, const struct zp_profile *p, uint32_t t)
{
	const struct zp_thread *th = &p->threads[t];
	fprintf(out, "thread %" PRId64 "/%" PRId64 "%s", th->pid, th->tid, *th->name ? " (" : "");
	report_put_text(out, th->name, 0);
	/* an id of the run's own (ZP_NS_PIDS): the pid the process had */
	if (th->pid >= ZP_NS_PIDS)
		fprintf(out, "%spid %" PRId64 " of a pid namespace of its own", *th->name ? ", " : " (",
			th->pid % ZP_NS_PIDS);
	fprintf(out, "%s: ", *th->name || th->pid >= ZP_NS_PIDS ? ")" : "");
}

void report_flat(const struct zp_profile *p, const struct report_options *o, FILE *out)
{
	if (!o->per_thread) {
		struct zp_view *v = profile_view(p, o->thread);
		if (o->thread != ZP_NONE && o->thread < p->nthreads)
			put_thread_title(out, p, o->thread);
		put_table(out, v, o);
		profile_view_free(v);
		return;
	}
	for (uint32_t t = 0; t < p->nthreads; t++) {
		if (o->thread != ZP_NONE && t != o->thread)
			continue;
		struct zp_view *v = profile_view(p, t);
		if (t > 0 && o->thread == ZP_NONE)
			putc('\n', out);
		put_thread_title(out, p, t);
		put_table(out, v, o);
		profile_view_free(v);
	}
}
