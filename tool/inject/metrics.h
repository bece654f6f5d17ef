/*
 * metrics.h - values derived from the primary data of one result set (one
 * run), through the dependency graph of the thesis (section 4.4.2): each
 * metric names the inputs it needs; an index from every input to the
 * metrics that depend on it is built once; the inputs a result set has
 * mark their metrics, and a metric is computed when all its inputs are
 * marked.  Inputs of different runs never meet: each run is its own set.
 *
 * A metric is monotone when its value for a function is at least the sum
 * of its values for the functions it calls (when nothing else calls them):
 * the share of the run's time spent inside a function is (inclusive time
 * contains the callees'), so the call-graph descent may prune on it
 * (descend.h prunes on exactly that bound); a ratio (time per call, IPC,
 * misses per 1000 instructions) is not, and cannot prune.
 */
#ifndef ZOND_INJECT_METRICS_H
#define ZOND_INJECT_METRICS_H

#include <stddef.h>

#include "model/profile.h"

/* Primary data of one function in one result set. */
enum metric_input {
	MI_CALLS,
	MI_TIME_INCL,    /* ns, the function and its callees */
	MI_TIME_SELF,    /* ns, the function alone */
	MI_RUN_TIME,     /* ns, the result set's whole measured time */
	MI_CYCLES,       /* inclusive, a hardware counter */
	MI_INSTRUCTIONS, /* inclusive, a hardware counter */
	MI_CACHE_MISSES, /* inclusive, a hardware counter */
	MI_COUNT
};

struct metric_inputs {
	double v[MI_COUNT];
	unsigned have; /* bit (1u << input) per input present */
};

struct metric {
	const char *name, *unit, *what;
	unsigned needs; /* bits of enum metric_input */
	int monotone;
};

/* Every metric zond knows, in print order. */
const struct metric *metrics_all(size_t *n);

/*
 * The metrics whose inputs are all in `in`: value[m] set and done[m] 1
 * for metric m of metrics_all, done[m] 0 for the others.  Returns how many.
 */
size_t metrics_compute(const struct metric_inputs *in, double *value, unsigned char *done);

/*
 * The inputs of node `node` of run p (its statistics summed over threads;
 * events "time", "cycles", "instructions", "cache-misses" by name, RISC-V's
 * "mcycle" and "minstret" as cycles and instructions; the run's
 * duration as MI_RUN_TIME when known).
 */
void metrics_inputs(const struct zp_profile *p, uint32_t node, struct metric_inputs *in);

#endif
