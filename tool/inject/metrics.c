/* metrics.c - derived values through the dependency graph (metrics.h). */
#include "metrics.h"

#include <math.h>
#include <string.h>

#define BIT(i) (1u << (i))

static double share(const double *v)
{
	return 100 * v[MI_TIME_INCL] / v[MI_RUN_TIME];
}

static double self_share(const double *v)
{
	return 100 * v[MI_TIME_SELF] / v[MI_RUN_TIME];
}

static double per_call(const double *v)
{
	return v[MI_TIME_INCL] / v[MI_CALLS];
}

static double ipc(const double *v)
{
	return v[MI_INSTRUCTIONS] / v[MI_CYCLES];
}

static double mpki(const double *v)
{
	return 1000 * v[MI_CACHE_MISSES] / v[MI_INSTRUCTIONS];
}

static const struct metric table[] = {
	{"share", "%", "inclusive time, of the run's time", BIT(MI_TIME_INCL) | BIT(MI_RUN_TIME),
	 1},
	{"self-share", "%", "self time, of the run's time", BIT(MI_TIME_SELF) | BIT(MI_RUN_TIME),
	 0},
	{"per-call", "ns", "inclusive time per call", BIT(MI_TIME_INCL) | BIT(MI_CALLS), 0},
	{"ipc", "", "instructions per cycle", BIT(MI_INSTRUCTIONS) | BIT(MI_CYCLES), 0},
	{"mpki", "", "cache misses per 1000 instructions",
	 BIT(MI_CACHE_MISSES) | BIT(MI_INSTRUCTIONS), 0},
};
static double (*const compute[])(const double *) = {share, self_share, per_call, ipc, mpki};
#define NMETRICS (sizeof table / sizeof table[0])
_Static_assert(sizeof compute / sizeof compute[0] == NMETRICS, "one function per metric");

/* The dependency graph: per input, the metrics that need it. */
static struct {
	int built;
	unsigned char n[MI_COUNT];
	unsigned char metric[MI_COUNT][NMETRICS];
	unsigned char needs[NMETRICS]; /* inputs per metric */
} graph;

static void build_graph(void)
{
	for (size_t m = 0; m < NMETRICS; m++)
		for (unsigned i = 0; i < MI_COUNT; i++)
			if (table[m].needs & BIT(i)) {
				graph.metric[i][graph.n[i]++] = (unsigned char)m;
				graph.needs[m]++;
			}
	graph.built = 1;
}

const struct metric *metrics_all(size_t *n)
{
	*n = NMETRICS;
	return table;
}

size_t metrics_compute(const struct metric_inputs *in, double *value, unsigned char *done)
{
	if (!graph.built)
		build_graph();
	unsigned char marks[NMETRICS] = {0};
	size_t got = 0;
	memset(done, 0, NMETRICS);
	for (unsigned i = 0; i < MI_COUNT; i++) {
		if (!(in->have & BIT(i)))
			continue;
		for (size_t j = 0; j < graph.n[i]; j++) {
			size_t m = graph.metric[i][j];
			if (++marks[m] < graph.needs[m])
				continue;
			/* all its inputs are here; a zero divisor leaves it out */
			value[m] = compute[m](in->v);
			done[m] = isfinite(value[m]) != 0;
			got += done[m];
		}
	}
	return got;
}

void metrics_inputs(const struct zp_profile *p, uint32_t node, struct metric_inputs *in)
{
	static const struct {
		const char *event;
		int incl, self;
	} events[] = {
		{"time", MI_TIME_INCL, MI_TIME_SELF},
		{"task-clock", MI_TIME_INCL, MI_TIME_SELF}, /* --event task-clock: ns of CPU time
							       (QA s13 U F9) */
		{"cycles", MI_CYCLES, -1},
		{"instructions", MI_INSTRUCTIONS, -1},
		{"mcycle", MI_CYCLES, -1}, /* RISC-V's counters over GDB, --event mcycle,minstret */
		{"minstret", MI_INSTRUCTIONS, -1},
		{"cache-misses", MI_CACHE_MISSES, -1},
	};
	memset(in, 0, sizeof *in);
	int seen = 0;
	for (size_t s = 0; s < p->nstats; s++) {
		const struct zp_stat *st = &p->stats[s];
		if (st->node != node)
			continue;
		seen = 1;
		in->v[MI_CALLS] += (double)st->calls;
		for (size_t e = 0; e < p->nevents; e++)
			for (size_t k = 0; k < sizeof events / sizeof events[0]; k++) {
				if (strcmp(p->events[e].name, events[k].event) != 0)
					continue;
				in->v[events[k].incl] += (double)st->incl[e];
				in->have |= BIT(events[k].incl);
				if (events[k].self >= 0) {
					in->v[events[k].self] += (double)st->self[e];
					in->have |= BIT(events[k].self);
				}
			}
	}
	if (seen)
		in->have |= BIT(MI_CALLS);
	if (p->run.duration_ns > 0) {
		in->v[MI_RUN_TIME] = (double)p->run.duration_ns;
		in->have |= BIT(MI_RUN_TIME);
	}
}
