/* rows.c - row selection and ordering shared by the text reports. */
#define _GNU_SOURCE /* qsort_r */
#include "rows.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

int report_metric(const struct zp_profile *p, const struct report_options *o)
{
	int m = metric_pick(p, o->event);
	return m == -2 ? 0 : m;
}

int report_is_active(const struct zp_view *v, uint32_t n)
{
	const struct zp_stat *s = &v->nodes[n];
	if (s->calls)
		return 1;
	for (size_t e = 0; e < v->p->nevents; e++)
		if (s->self[e] || s->incl[e])
			return 1;
	return 0;
}

struct row_order {
	const struct zp_view *v;
	enum report_sort sort;
	int metric;
};

/* The number row n sorts by, larger first. */
static long double sort_value(const struct row_order *o, uint32_t n)
{
	const struct zp_stat *s = &o->v->nodes[n];
	switch (o->sort) {
	case SORT_TOTAL: return metric_incl(s, o->metric);
	case SORT_CALLS: return s->calls;
	case SORT_AVG:
		return s->calls && o->metric != METRIC_CALLS
			       ? (long double)profile_view_avg(o->v, n, (unsigned)o->metric)
			       : 0;
	case SORT_MAX: return o->metric == METRIC_CALLS ? s->calls : s->max[o->metric];
	case SORT_NAME: return 0;
	default: return metric_self(s, o->metric);
	}
}

static int compare_rows(const void *a, const void *b, void *arg)
{
	const struct row_order *o = arg;
	uint32_t na = *(const uint32_t *)a, nb = *(const uint32_t *)b;
	long double va = sort_value(o, na), vb = sort_value(o, nb);
	if (va != vb)
		return va < vb ? 1 : -1;
	int c = strcmp(o->v->p->nodes[na].name, o->v->p->nodes[nb].name);
	if (c)
		return c;
	return na < nb ? -1 : na > nb;
}

uint32_t *report_rows(const struct zp_view *v, const struct report_options *o, int metric,
		      size_t *n)
{
	struct row_order order = {v, o->sort, metric};
	uint32_t *rows = zp_xcalloc(v->p->nnodes, sizeof *rows);
	*n = 0;
	for (uint32_t i = 0; i < v->p->nnodes; i++)
		if (report_is_active(v, i))
			rows[(*n)++] = i;
	qsort_r(rows, *n, sizeof *rows, compare_rows, &order);
	return rows;
}

struct edge_order {
	const struct zp_view *v;
	int metric;
};

static int compare_edges(const void *a, const void *b, void *arg)
{
	const struct edge_order *o = arg;
	uint32_t ea = *(const uint32_t *)a, eb = *(const uint32_t *)b;
	uint64_t va = metric_edge(&o->v->edges[ea], o->metric);
	uint64_t vb = metric_edge(&o->v->edges[eb], o->metric);
	if (va != vb)
		return va < vb ? 1 : -1;
	return ea < eb ? -1 : ea > eb;
}

void report_sort_edges(const struct zp_view *v, int metric, uint32_t *edges, size_t n)
{
	struct edge_order order = {v, metric};
	qsort_r(edges, n, sizeof *edges, compare_edges, &order);
}

int report_matches(const struct report_options *o, const char *name)
{
	if (!o->match)
		return 1;
	for (const char *const *g = o->match; *g; g++)
		if (symbols_name_matches(*g, name))
			return 1;
	return 0;
}

void report_put_text(FILE *out, const char *text, int in_path)
{
	/* a name is bytes: a control character (a tab) would break the columns and lines */
	for (const unsigned char *s = (const unsigned char *)text; *s; s++)
		putc(*s < 0x20 || *s == 0x7f ? '?' : in_path && *s == ';' ? ':' : *s, out);
}

void report_put_name(FILE *out, const struct zp_profile *p, uint32_t node)
{
	const struct zp_node *n = &p->nodes[node];
	report_put_text(out, n->name, 0);
	const char *object = profile_namesake_object(p, node);
	if (object) {
		fputs(" (", out);
		report_put_text(out, object, 0);
		putc(')', out);
	}
	if (n->kind == ZP_BLOCK)
		fputs(" [block]", out);
	else if (n->kind == ZP_BASIC_BLOCK)
		fputs(" [bb]", out);
}

void report_put_metric(FILE *out, const struct zp_view *v, int metric, int raw)
{
	char total[FORMAT_LEN];
	if (metric == METRIC_CALLS) {
		fprintf(out, "calls only (no event measured), %s calls\n",
			format_cost(total, metric_total(v, metric), NULL, raw));
		return;
	}
	const struct zp_event *ev = &v->p->events[metric];
	/* the unit named is the one the values are printed in */
	if (raw || !format_is_time(ev))
		fprintf(out, "%s (%s), total %s\n", ev->name, ev->unit,
			format_cost(total, v->total[metric], ev, raw));
	else
		fprintf(out, "%s (each value with its unit), total %s\n", ev->name,
			format_cost(total, v->total[metric], ev, raw));
}

struct report_widths report_widths(const struct zp_view *v, int metric, int raw)
{
	struct report_widths w = {10, 11};
	uint64_t calls = 0, cost = metric == METRIC_CALLS ? 0 : v->total[metric];
	for (size_t i = 0; i < v->p->nnodes; i++) {
		const struct zp_stat *s = &v->nodes[i];
		calls = s->calls > calls ? s->calls : calls;
		if (metric != METRIC_CALLS) {
			cost = s->incl[metric] > cost ? s->incl[metric] : cost;
			cost = s->self[metric] > cost ? s->self[metric] : cost;
		}
	}
	char buf[FORMAT_LEN];
	int len = snprintf(buf, sizeof buf, "%" PRIu64, calls);
	w.calls = len > w.calls ? len : w.calls;
	if (metric != METRIC_CALLS) {
		len = (int)strlen(format_cost(buf, cost, &v->p->events[metric], raw));
		w.cost = len > w.cost ? len : w.cost;
	}
	return w;
}
