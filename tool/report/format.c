/* format.c - metrics and number formatting shared by reports and exports. */
#include "format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int metric_pick(const struct zp_profile *p, int event)
{
	if (p->nevents == 0 || event == METRIC_CALLS)
		return METRIC_CALLS;
	if (event < 0 || (size_t)event >= p->nevents)
		return -2;
	return event;
}

uint64_t metric_self(const struct zp_stat *s, int metric)
{
	return metric == METRIC_CALLS ? s->calls : s->self[metric];
}

uint64_t metric_incl(const struct zp_stat *s, int metric)
{
	return metric == METRIC_CALLS ? s->calls : s->incl[metric];
}

uint64_t metric_edge(const struct zp_edge *e, int metric)
{
	return metric == METRIC_CALLS ? e->calls : e->incl[metric];
}

uint64_t metric_context_self(const struct zp_context *c, int metric)
{
	return metric == METRIC_CALLS ? c->calls : c->self[metric];
}

uint64_t metric_context_incl(const struct zp_context *c, int metric)
{
	return metric == METRIC_CALLS ? c->calls : c->incl[metric];
}

uint64_t metric_total(const struct zp_view *v, int metric)
{
	if (metric != METRIC_CALLS)
		return v->total[metric];
	uint64_t sum = 0;
	for (size_t i = 0; i < v->p->nnodes; i++)
		sum += v->nodes[i].calls;
	return sum;
}

const struct zp_event *metric_event(const struct zp_profile *p, int metric)
{
	return metric == METRIC_CALLS ? NULL : &p->events[metric];
}

int format_is_time(const struct zp_event *ev)
{
	return ev && strcmp(ev->unit, "ns") == 0;
}

const char *format_ns(char *buf, uint64_t v)
{
	/* Thresholds sit where rounding to two decimals would print 1000.00. */
	if (v < 1000)
		snprintf(buf, FORMAT_LEN, "%" PRIu64 " ns", v);
	else if (v < 999995)
		snprintf(buf, FORMAT_LEN, "%.2f us", v / 1e3);
	else if (v < 999995000)
		snprintf(buf, FORMAT_LEN, "%.2f ms", v / 1e6);
	else
		snprintf(buf, FORMAT_LEN, "%.2f s", v / 1e9);
	return buf;
}

const char *format_cost(char *buf, uint64_t v, const struct zp_event *ev, int raw)
{
	if (raw || !format_is_time(ev)) {
		snprintf(buf, FORMAT_LEN, "%" PRIu64, v);
		return buf;
	}
	return format_ns(buf, v);
}

const char *format_share(char *buf, uint64_t part, uint64_t whole)
{
	snprintf(buf, FORMAT_LEN, "%.2f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
	return buf;
}
