/*
 * figures.c - an inject run's measurements as the stored profile's numbers
 * (figures.h).
 */
#include "figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t inject_to_ns(uint64_t units, uint64_t hz)
{
	return hz ? (uint64_t)((unsigned __int128)units * 1000000000u / hz) : units;
}

/* A signed sum of the payload's (results.h) in ns, rounded toward 0. */
static int64_t signed_ns(uint64_t sum, uint64_t hz)
{
	if ((int64_t)sum < 0)
		return -(int64_t)inject_to_ns(-sum, hz);
	return (int64_t)inject_to_ns(sum, hz);
}

/* One call's time in ns; UINT64_MAX (none timed) stays. */
static uint64_t call_ns(uint64_t units, uint64_t hz)
{
	return units == UINT64_MAX ? UINT64_MAX : inject_to_ns(units, hz);
}

/* The profile's thread of r's thread i: a forked child's process, or the program's. */
static uint32_t thread_of(struct zp_profile *p, const struct inject_result *r, size_t i)
{
	int64_t pid = r->pids && r->pids[i] ? r->pids[i] : r->pid;
	return profile_thread(p, pid, r->tids[i], NULL);
}

/* A context's or function's figures in the stored unit while they are bounded. */
struct figure {
	uint64_t calls;
	uint64_t min, max; /* one call's; min UINT64_MAX: no call timed */
	int64_t self, incl; /* signed, as the payload's sums */
	int64_t cost;       /* probe-cost: what the compensation took out of self */
};

static struct figure figure_of(const struct inject_stat *st, uint64_t hz)
{
	return (struct figure){st->calls,        call_ns(st->min, hz),    call_ns(st->max, hz),
			       signed_ns(st->self, hz), signed_ns(st->incl, hz), 0};
}

/*
 * Bounds f given below, the inclusive of what it called (bounded before):
 * self at least 1 unit a call where something was subtracted and a call
 * was timed (code that ran took time; the payload's sums may read below
 * 0), inclusive self + below and at least the dearest call (each call was
 * clamped at 0 alone, the sum it is part of was not).  What is raised was
 * taken out by the compensation and is given back: it comes off f's cost.
 * No mean call dearer than the dearest.
 */
static void bound(struct figure *f, int64_t below, int compensated)
{
	int timed = f->min != UINT64_MAX;
	int64_t floor = compensated && timed ? (int64_t)f->calls : 0;
	int64_t self = f->self < floor ? floor : f->self;
	int64_t incl = self + below;
	if (timed && incl < (int64_t)f->max) {
		self += (int64_t)f->max - incl;
		incl = (int64_t)f->max;
	}
	int64_t given = self - f->self;
	f->cost = f->cost > given ? f->cost - given : 0;
	f->self = self;
	f->incl = incl;
	if (timed && f->calls) {
		uint64_t mean = (uint64_t)incl / f->calls;
		if (f->max < mean)
			f->max = mean;
		if (f->calls == 1)
			f->min = f->max = (uint64_t)incl;
	}
}

/* Event ev of a stat or context's cost vectors: f's counter figures. */
static void put_counter(uint64_t *self, uint64_t *incl, uint64_t *min, uint64_t *max, unsigned ev,
			const struct figure *f, int with_incl)
{
	self[ev] = (uint64_t)f->self;
	incl[ev] = with_incl ? (uint64_t)f->incl : 0;
	min[ev] = f->min;
	max[ev] = f->max;
}

/* ---- runs with calling contexts ---------------------------------------- */

/* What one run's contexts are while their figures are worked out (index: r's context). */
struct tree {
	const struct inject_result *r;
	size_t n;
	int *kept;         /* stored: its record has a node and its parent is kept */
	struct figure *fig;
	int64_t *cost_incl; /* probe-cost inclusive */
	uint64_t *below;    /* measured calls below (for the compensation's meta) */
};

/* Context i of r runs inside another activation of its own function. */
static int inner_activation(const struct inject_result *r, size_t i)
{
	for (size_t c = r->contexts[i].parent; c != INJECT_NO_CALLER; c = r->contexts[c].parent)
		if (r->contexts[c].callee == r->contexts[i].callee)
			return 1;
	return 0;
}

/*
 * What the payload subtracted from the self of a context of calls calls
 * making child_calls measured calls directly, in ns: c0 a call (inside its
 * own interval), and for each measured call it made cpair less the c0
 * inside that callee's interval (which the callee's inclusive already
 * lacks).  Not below 0 (a calibration with cpair < c0).
 */
static int64_t cost_of_self(const struct inject_result *r, uint64_t calls, uint64_t child_calls)
{
	__int128 units = (__int128)calls * r->c0 + (__int128)child_calls * ((__int128)r->cpair - r->c0);
	return units > 0 ? (int64_t)inject_to_ns((uint64_t)units, r->hz) : 0;
}

/* The contexts' figures, bounded from the leaves up (children come after their parents). */
static void bound_tree(struct tree *t, const uint32_t *nodes)
{
	const struct inject_result *r = t->r;
	int compensated = r->c0 || r->cpair;
	uint64_t *child_calls = zp_xcalloc(t->n + 1, sizeof *child_calls);
	int64_t *below = zp_xcalloc(t->n + 1, sizeof *below);
	for (size_t i = 0; i < t->n; i++) {
		const struct inject_context *c = &r->contexts[i];
		t->kept[i] = nodes[c->callee] != ZP_NONE &&
			     (c->parent == INJECT_NO_CALLER || t->kept[c->parent]);
		t->fig[i] = figure_of(&c->st, r->hz);
		if (c->parent != INJECT_NO_CALLER)
			child_calls[c->parent] += c->st.calls;
	}
	for (size_t i = t->n; i-- > 0;) {
		size_t up = r->contexts[i].parent;
		if (up != INJECT_NO_CALLER)
			t->below[up] += r->contexts[i].st.calls + t->below[i];
		if (!t->kept[i])
			continue;
		if (compensated)
			t->fig[i].cost = cost_of_self(r, t->fig[i].calls, child_calls[i]);
		bound(&t->fig[i], below[i], compensated);
		t->cost_incl[i] += t->fig[i].cost;
		if (up != INJECT_NO_CALLER) {
			below[up] += t->fig[i].incl;
			t->cost_incl[up] += t->cost_incl[i];
		}
	}
	free(child_calls);
	free(below);
}

/* Context i's figures into the profile: its context, its function's stat and its edge. */
static void put_context(struct zp_profile *p, const struct tree *t, size_t i, uint32_t *ids,
			const struct inject_figures *f, int cost)
{
	const struct inject_context *c = &t->r->contexts[i];
	const struct figure *fig = &t->fig[i];
	uint32_t th = thread_of(p, t->r, c->thread), node = f->nodes[c->callee];
	uint32_t parent = c->parent == INJECT_NO_CALLER ? ZP_NONE : ids[c->parent];
	int outermost = !inner_activation(t->r, i);
	ids[i] = profile_context(p, th, parent, node);

	struct zp_context zc = {.calls = fig->calls};
	struct zp_stat st = {.calls = fig->calls};
	for (int e = 0; e < ZP_MAX_EVENTS; e++)
		zc.min[e] = st.min[e] = UINT64_MAX;
	put_counter(zc.self, zc.incl, zc.min, zc.max, f->ev, fig, 1);
	put_counter(st.self, st.incl, st.min, st.max, f->ev, fig, outermost);
	if (cost >= 0) {
		zc.self[cost] = st.self[cost] = (uint64_t)fig->cost;
		zc.incl[cost] = (uint64_t)t->cost_incl[i];
		st.incl[cost] = outermost ? (uint64_t)t->cost_incl[i] : 0;
	}
	profile_context_add(&p->contexts[ids[i]], &zc, p->nevents);
	profile_stat_add(profile_stat(p, th, node), &st, p->nevents);

	uint32_t caller = parent == ZP_NONE ? ZP_NONE : p->contexts[parent].node;
	struct zp_edge *ze = profile_edge(p, th, ZP_CALL, caller, node);
	ze->calls += fig->calls;
	ze->incl[f->ev] += (uint64_t)fig->incl;
	if (cost >= 0)
		ze->incl[cost] += (uint64_t)t->cost_incl[i];
}

/*
 * Functions of more than 1% of the run more than half of whose measured
 * time was its measured callees' payloads, subtracted as calibrated
 * (cpair each), are named in run meta inject_compensation_dominates (the
 * three worst, worst first; inject_compensation_share: the worst's
 * percentage): their figures rest on the estimate, not on the counter (on
 * a wall clock, a 1 ns callee called millions of times under them), and
 * measuring them with fewer functions per run is what helps.  Read from
 * the payload's sums as they were, before any bound.
 */
static void say_dominated(struct zp_profile *p, const struct tree *t, const uint32_t *nodes)
{
	const struct inject_result *r = t->r;
	uint64_t *raw = zp_xcalloc(r->n + 1, sizeof *raw), *taken = zp_xcalloc(r->n + 1, sizeof *taken);
	for (size_t i = 0; i < t->n; i++) {
		const struct inject_context *c = &r->contexts[i];
		if (!t->kept[i] || inner_activation(r, i))
			continue;
		uint64_t comp = inject_to_ns(c->st.calls * r->c0 + t->below[i] * r->cpair, r->hz);
		int64_t measured = signed_ns(c->st.incl, r->hz);
		taken[c->callee] += inject_to_ns(t->below[i] * r->cpair, r->hz);
		raw[c->callee] += comp + (measured > 0 ? (uint64_t)measured : 0);
	}
	uint64_t whole = 0;
	for (size_t k = 0; k < r->n; k++)
		if (raw[k] > whole)
			whole = raw[k];
	size_t worst[3], nworst = 0;
	for (size_t k = 0; k < r->n; k++) {
		if (raw[k] <= whole / 100 || taken[k] * 2 <= raw[k])
			continue;
		size_t at = nworst < 3 ? nworst++ : 3; /* insertion by share, worst first */
		while (at > 0 && taken[k] * (double)raw[worst[at - 1]] >
					 taken[worst[at - 1]] * (double)raw[k]) {
			if (at < 3)
				worst[at] = worst[at - 1];
			at--;
		}
		if (at < 3)
			worst[at] = k;
	}
	if (nworst) {
		char names[1024] = "", buf[32];
		for (size_t i = 0; i < nworst; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
				 i ? ", " : "", p->nodes[nodes[worst[i]]].name);
		profile_add_meta(p, "inject_compensation_dominates", names);
		snprintf(buf, sizeof buf, "%.1f",
			 100.0 * (double)taken[worst[0]] / (double)raw[worst[0]]);
		profile_add_meta(p, "inject_compensation_share", buf);
	}
	free(raw);
	free(taken);
}

/* Every figure of a run that kept its calling contexts, from them (figures.h). */
static void put_from_contexts(struct zp_profile *p, const struct inject_result *r,
			      const struct inject_figures *f)
{
	size_t n = r->ncontexts;
	struct tree t = {r,
			 n,
			 zp_xcalloc(n + 1, sizeof *t.kept),
			 zp_xcalloc(n + 1, sizeof *t.fig),
			 zp_xcalloc(n + 1, sizeof *t.cost_incl),
			 zp_xcalloc(n + 1, sizeof *t.below)};
	int cost = -1;
	if (r->c0 || r->cpair) /* none: nothing was subtracted (the kernel's event counts) */
		cost = (int)profile_event(p, "probe-cost", p->events[f->ev].unit);
	bound_tree(&t, f->nodes);
	uint32_t *ids = zp_xcalloc(n + 1, sizeof *ids);
	for (size_t i = 0; i < n; i++)
		if (t.kept[i])
			put_context(p, &t, i, ids, f, cost);
	if (cost >= 0 && f->estimated)
		say_dominated(p, &t, f->nodes);
	free(ids);
	free(t.kept);
	free(t.fig);
	free(t.cost_incl);
	free(t.below);
}

/* ---- runs without calling contexts -------------------------------------- */

/*
 * Statistic st of a function as event ev, bounded alone: its self as a
 * context's, its inclusive raised by as much and never below its self
 * (its callees' sums may have read below 0).
 */
static void put_stat(struct zp_stat *out, unsigned ev, const struct inject_stat *st, uint64_t hz,
		     int compensated)
{
	struct figure fig = figure_of(st, hz);
	int64_t children = fig.incl - fig.self;
	bound(&fig, children > 0 ? children : 0, compensated);
	put_counter(out->self, out->incl, out->min, out->max, ev, &fig, 1);
}

/* The payload's sums read below 0 when the compensation overshot: 0. */
static uint64_t at_least_0(uint64_t sum)
{
	return (int64_t)sum < 0 ? 0 : sum;
}

/* Every figure of a run without contexts, from the payload's statistics and edges. */
static void put_from_stats(struct zp_profile *p, const struct inject_result *r,
			   const struct inject_figures *f)
{
	int compensated = r->c0 || r->cpair;
	for (size_t i = 0; i < r->nthreads; i++)
		for (size_t k = 0; k < r->n; k++) {
			const struct inject_stat *in = &r->stats[i * r->n + k];
			if (!in->calls || f->nodes[k] == ZP_NONE)
				continue;
			struct zp_stat *st = profile_stat(p, thread_of(p, r, i), f->nodes[k]);
			st->calls = in->calls;
			put_stat(st, f->ev, in, r->hz, compensated);
			if (r->stats2)
				put_stat(st, f->ev2, &r->stats2[i * r->n + k], r->hz, compensated);
		}
	for (size_t i = 0; i < r->nedges; i++) {
		const struct inject_edge *e = &r->edges[i];
		uint32_t caller = e->caller == INJECT_NO_CALLER ? ZP_NONE : f->nodes[e->caller];
		if (f->nodes[e->callee] == ZP_NONE)
			continue;
		struct zp_edge *ze =
			profile_edge(p, thread_of(p, r, e->thread), ZP_CALL, caller, f->nodes[e->callee]);
		ze->calls += e->calls;
		ze->incl[f->ev] += inject_to_ns(at_least_0(e->incl), r->hz);
		if (r->stats2)
			ze->incl[f->ev2] += inject_to_ns(at_least_0(e->incl2), r->hz);
	}
}

void inject_put_figures(struct zp_profile *p, const struct inject_result *r,
			const struct inject_figures *f)
{
	for (size_t i = 0; i < r->nthreads; i++)
		thread_of(p, r, i); /* every thread that ran measured code, in order */
	if (r->noctx) {
		char buf[32];
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->noctx);
		profile_add_meta(p, "inject_calls_without_context", buf);
	}
	if (r->ncontexts && !r->noctx)
		put_from_contexts(p, r, f);
	else
		put_from_stats(p, r, f);
}
