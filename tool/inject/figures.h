/*
 * figures.h - one run's measurements (scenario.h, struct inject_result) as
 * the numbers of the stored profile: per calling context, per function
 * and thread, per call edge, and what the compensation took out (the
 * event probe-cost).
 *
 * The payload's sums are compensated and signed (results.h): where the
 * compensation took more than a short function's calls cost they read
 * below 0, while one call's time (min, max) is clamped at 0 by itself.
 * They are bounded once, per calling context, and every other figure is
 * summed from the contexts (doc/inject.md, "What the compensation took
 * out"), so that the profile's contract (model/profile.h) holds by
 * construction:
 *  - a context's self is at least 1 unit per timed call where something
 *    was subtracted (code that ran took time), never below 0; its
 *    inclusive is its self plus its children's inclusive, and at least its
 *    dearest call;
 *  - a function's calls, self, min and max are the sums (least, most) over
 *    its contexts, its inclusive the sum over its outermost ones; a call
 *    edge's calls and inclusive the sums over the contexts along it;
 *  - probe-cost alike: per context what the payload subtracted from its
 *    self (c0 a call, cpair - c0 a measured call it made directly) less
 *    what the bounds gave back, inclusive the sum as for the counter.
 * A run without contexts (the cyclic scenario's sets, a thread that
 * outgrew its table, over GDB, the region scenario) is bounded per
 * function the same way (its self at the floor, its inclusive raised with
 * it and never below its self or dearest call) and keeps the payload's
 * edges, clamped at 0: nothing there says how they split by path.
 */
#ifndef ZOND_INJECT_FIGURES_H
#define ZOND_INJECT_FIGURES_H

#include <stdint.h>

#include "model/profile.h"
#include "scenario.h"

struct inject_figures {
	unsigned ev;           /* the counter's event in the profile */
	unsigned ev2;          /* the second counter's (r->stats2), when there is one */
	const uint32_t *nodes; /* record k's node; ZP_NONE: not stored (no calls) */
	int estimated;         /* the compensation is calibrated, not exact (not over GDB):
				* name the functions whose figures rest on it (meta) */
};

/*
 * Adds r's figures to p (as above): stats, edges, contexts, probe-cost,
 * and the meta inject_calls_without_context, inject_compensation_dominates
 * and inject_compensation_share.  p's threads are r's (pid, tid).
 */
void inject_put_figures(struct zp_profile *p, const struct inject_result *r,
			const struct inject_figures *f);

/* units of the payload (r->hz of them a second or per 10^9 events) in ns or events; hz 0: as is */
uint64_t inject_to_ns(uint64_t units, uint64_t hz);

#endif
