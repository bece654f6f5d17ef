/*
 * descend.h - the thesis' call-graph descent (scenario "descend"): which
 * functions to measure next, and which to leave out, given a call graph.
 *
 * The graph comes from a first pass measuring every candidate at once
 * (its edges: nearest measured caller -> callee, and its inclusive times,
 * used only as estimates).  The descent starts at the roots (functions
 * with root calls; a root whose own first-pass time is under threshold%
 * of the whole is pruned, that time its bound; a function no candidate
 * called that never returned, such as bare metal's _cstart, is passed
 * through: its callees are roots) or at one function, and
 * goes breadth-first: each
 * function popped is measured (few per run, so accurately); then each of
 * its callees gets a bound on its inclusive time, M(c) <= sum of M(p) over
 * its callers p (the measured value for callers measured, the first pass's
 * estimate for the others); a callee whose bound is under threshold% of
 * the whole (the roots' time: measured alone where a root was, the first
 * pass's root calls until then) is pruned, never measured; the others join
 * the queue.  Transport- and architecture-
 * neutral; candidates are indexes 0..n-1.
 */
#ifndef ZOND_INJECT_DESCEND_H
#define ZOND_INJECT_DESCEND_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

struct descent;

/*
 * A descent over n candidates, with the first pass's edges (callers and
 * callees are candidate indexes) and per-candidate inclusive time (ns).
 * from: a candidate to start at, or -1 for the roots.  threshold: percent.
 */
struct descent *descent_new(size_t n, const struct inject_edge *edges, size_t nedges,
			    const uint64_t *first_incl, double threshold, ptrdiff_t from);
void descent_free(struct descent *d);

/* Up to k candidates to measure next into batch; 0 when the queue is empty. */
size_t descent_next(struct descent *d, size_t *batch, size_t k);

/* Candidate c was measured: incl its inclusive time (ns); queues or prunes its callees. */
void descent_measured(struct descent *d, size_t c, uint64_t incl);

/* 1 if c was pruned, with its bound (ns) and the whole (ns). */
int descent_pruned(const struct descent *d, size_t c, uint64_t *bound, uint64_t *whole);

#endif
