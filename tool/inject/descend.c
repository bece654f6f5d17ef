/* descend.c - the call-graph descent with pruning (descend.h). */
#include "descend.h"

#include <stdlib.h>

#include "model/profile.h"

enum state { UNSEEN, QUEUED, MEASURED, PRUNED };

struct descent {
	size_t n;
	uint8_t *adj;       /* n * n: adj[p * n + c] when p calls c */
	uint64_t *estimate; /* the first pass's inclusive time */
	uint64_t *measured; /* inclusive time measured alone */
	uint64_t *bound;    /* of pruned ones */
	uint64_t *root_part; /* a root's share of the whole, the first pass's until measured */
	enum state *state;
	size_t *queue, head, tail;
	uint64_t whole;
	double threshold;
};

static void enqueue(struct descent *d, size_t c)
{
	d->state[c] = QUEUED;
	d->queue[d->tail++] = c;
}

struct descent *descent_new(size_t n, const struct inject_edge *edges, size_t nedges,
			    const uint64_t *first_incl, double threshold, ptrdiff_t from)
{
	struct descent *d = zp_xcalloc(1, sizeof *d);
	d->n = n;
	d->adj = zp_xcalloc(n * n + 1, 1);
	d->estimate = zp_xcalloc(n + 1, sizeof *d->estimate);
	d->measured = zp_xcalloc(n + 1, sizeof *d->measured);
	d->bound = zp_xcalloc(n + 1, sizeof *d->bound);
	d->root_part = zp_xcalloc(n + 1, sizeof *d->root_part);
	d->state = zp_xcalloc(n + 1, sizeof *d->state);
	d->queue = zp_xcalloc(n + 1, sizeof *d->queue);
	d->threshold = threshold;
	uint8_t *root = zp_xcalloc(n + 1, 1);
	for (size_t i = 0; i < nedges; i++) {
		const struct inject_edge *e = &edges[i];
		if (e->caller == INJECT_NO_CALLER) {
			root[e->callee] = 1;
			d->root_part[e->callee] += (int64_t)e->incl > 0 ? e->incl : 0;
		} else {
			d->adj[e->caller * n + e->callee] = 1;
		}
	}
	for (size_t c = 0; c < n; c++)
		d->estimate[c] = first_incl[c];
	/*
	 * A function no measured one called that never returned has no root
	 * edge (an edge is written at the return): bare metal's _cstart and
	 * exit, a main that loops for ever.  Measured alone it gives a call and
	 * no time, so it is passed through: its callees are the roots, the
	 * time of its calls to them the whole (QA s12 F5: the descent measured
	 * nothing on a picolibc program).  With --from, FUNC is the root.
	 */
	uint8_t *called = zp_xcalloc(n + 1, 1), *calls = zp_xcalloc(n + 1, 1);
	for (size_t i = 0; i < nedges; i++)
		if (edges[i].caller != INJECT_NO_CALLER) {
			called[edges[i].callee] = 1;
			calls[edges[i].caller] = 1;
		}
	for (size_t i = 0; from < 0 && i < nedges; i++) {
		const struct inject_edge *e = &edges[i];
		if (e->caller == INJECT_NO_CALLER || root[e->caller] || called[e->caller] ||
		    !calls[e->caller] || e->callee == e->caller)
			continue;
		root[e->callee] = 1;
		d->root_part[e->callee] += (int64_t)e->incl > 0 ? e->incl : 0;
	}
	for (size_t c = 0; c < n; c++)
		d->whole += d->root_part[c];
	free(called);
	free(calls);
	/*
	 * A root's own first-pass time is its bound (the first pass measured
	 * it, nested, so over rather than under): one under the threshold is
	 * pruned like a callee.  Before, every root took a run of its own:
	 * _init, frame_dummy, __do_global_dtors_aux, _fini (QA s11 F7).  The
	 * function named by --from is measured whatever its time, and so is a
	 * root whose first pass gave no time (its calls never returned).
	 */
	for (size_t c = 0; c < n; c++) {
		if (from >= 0 ? (size_t)from != c : !root[c])
			continue;
		/* 0: no time of it known (main that never returns, exit() ending the run): measured */
		if (from < 0 && d->estimate[c] > 0 &&
		    (double)d->estimate[c] * 100 < threshold * (double)d->whole) {
			d->state[c] = PRUNED;
			d->bound[c] = d->estimate[c];
		} else {
			enqueue(d, c);
		}
	}
	free(root);
	return d;
}

void descent_free(struct descent *d)
{
	if (!d)
		return;
	free(d->adj);
	free(d->estimate);
	free(d->measured);
	free(d->bound);
	free(d->root_part);
	free(d->state);
	free(d->queue);
	free(d);
}

size_t descent_next(struct descent *d, size_t *batch, size_t k)
{
	size_t got = 0;
	while (got < k && d->head < d->tail)
		batch[got++] = d->queue[d->head++];
	return got;
}

/* M(c) <= sum over its callers of their inclusive time, measured or estimated. */
static uint64_t bound_of(const struct descent *d, size_t c)
{
	uint64_t b = 0;
	for (size_t p = 0; p < d->n; p++)
		if (d->adj[p * d->n + c])
			b += d->state[p] == MEASURED ? d->measured[p] : d->estimate[p];
	return b;
}

void descent_measured(struct descent *d, size_t c, uint64_t incl)
{
	d->state[c] = MEASURED;
	d->measured[c] = incl;
	/*
	 * A root measured alone: its share of the whole is that time from now
	 * on, as the bounds of its callees are (the first pass measured every
	 * function at once, nested, its payloads inside the roots' time: 23 ms
	 * to 1.2 s on a loaded VM for a main of 6.7 ms alone, and the loop doing
	 * all of main's work came out at 0.56% of that whole and was pruned).
	 */
	if (d->root_part[c]) {
		d->whole = d->whole - d->root_part[c] + incl;
		d->root_part[c] = incl;
	}
	for (size_t callee = 0; callee < d->n; callee++) {
		if (!d->adj[c * d->n + callee] || d->state[callee] != UNSEEN)
			continue;
		uint64_t b = bound_of(d, callee);
		if ((double)b * 100 < d->threshold * (double)d->whole) {
			d->state[callee] = PRUNED;
			d->bound[callee] = b;
		} else {
			enqueue(d, callee);
		}
	}
}

int descent_pruned(const struct descent *d, size_t c, uint64_t *bound, uint64_t *whole)
{
	*bound = d->bound[c];
	*whole = d->whole;
	return d->state[c] == PRUNED;
}
