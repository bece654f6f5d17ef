/*
 * figures_test.c - an inject run's measurements as stored figures
 * (tool/inject/figures.h), on results the test makes up, so that the
 * bounds surely apply: main calls a leaf 100 times whose compensated sum
 * read below 0 (-500) while its dearest call took 300.  The leaf gets self
 * == inclusive == 300 (its dearest call; the floor of 1 a call is 100),
 * main keeps its own 1500 and its inclusive is that plus the leaf's; the
 * function stats and edges are the contexts' sums; probe-cost is what the
 * payload subtracted less what was given back.  Without contexts the leaf
 * is bounded alike.  Units as stored (hz 0).
 */
#include "check.h"
#include "inject/figures.h"

enum { MAIN, LEAF };

static struct inject_stat stat(uint64_t calls, int64_t incl, int64_t self, uint64_t min,
			       uint64_t max)
{
	return (struct inject_stat){calls, (uint64_t)incl, (uint64_t)self, min, max, {0}};
}

static int64_t tids[1] = {7};
static struct inject_stat stats[2];
static struct inject_context contexts[2];

static struct inject_result result(int with_contexts)
{
	stats[MAIN] = stat(1, 1000, 1500, 1000, 1000);
	stats[LEAF] = stat(100, -500, -500, 0, 300);
	contexts[0] = (struct inject_context){0, INJECT_NO_CALLER, MAIN, stats[MAIN]};
	contexts[1] = (struct inject_context){0, 0, LEAF, stats[LEAF]};
	struct inject_result r = {.pid = 7, .c0 = 10, .cpair = 20, .n = 2, .nthreads = 1};
	r.tids = tids;
	r.stats = stats;
	if (with_contexts) {
		r.contexts = contexts;
		r.ncontexts = 2;
	}
	return r;
}

static struct zp_profile *figures(const struct inject_result *r, uint32_t nodes[2])
{
	struct zp_profile *p = profile_new();
	unsigned ev = profile_event(p, "time", "ns");
	nodes[MAIN] = profile_node(p, ZP_FUNCTION, "main", "/x", "", 0, 0x10);
	nodes[LEAF] = profile_node(p, ZP_FUNCTION, "leaf", "/x", "", 0, 0x20);
	inject_put_figures(p, r, &(struct inject_figures){ev, 0, nodes, 1});
	return p;
}

static void with_contexts(void)
{
	uint32_t nodes[2];
	struct inject_result r = result(1);
	struct zp_profile *p = figures(&r, nodes);
	int cost = profile_find_event(p, "probe-cost");
	CHECK(cost == 1);
	CHECK_EQ_U64(p->ncontexts, 2);
	const struct zp_context *m = &p->contexts[0], *l = &p->contexts[1];
	CHECK_EQ_U64(l->self[0], 300);
	CHECK_EQ_U64(l->incl[0], 300);
	CHECK_EQ_U64(m->self[0], 1500);
	CHECK_EQ_U64(m->incl[0], 1800);
	/* probe-cost: c0 a call; main also cpair - c0 a measured call it made */
	CHECK_EQ_U64(l->self[cost], 100 * 10 - (300 + 500));
	CHECK_EQ_U64(l->incl[cost], 200);
	CHECK_EQ_U64(m->self[cost], 10 + 100 * 10);
	CHECK_EQ_U64(m->incl[cost], 1010 + 200);

	const struct zp_stat *sm = profile_stat(p, 0, nodes[MAIN]), *sl = profile_stat(p, 0, nodes[LEAF]);
	CHECK_EQ_U64(sl->calls, 100);
	CHECK_EQ_U64(sl->self[0], 300);
	CHECK_EQ_U64(sl->incl[0], 300);
	CHECK_EQ_U64(sl->max[0], 300);
	CHECK_EQ_U64(sm->incl[0], 1800);
	CHECK_EQ_U64(sm->min[0], 1800); /* its one call is its whole sum */
	CHECK_EQ_U64(sl->incl[cost], 200);

	const struct zp_edge *root = profile_edge(p, 0, ZP_CALL, ZP_NONE, nodes[MAIN]);
	const struct zp_edge *down = profile_edge(p, 0, ZP_CALL, nodes[MAIN], nodes[LEAF]);
	CHECK_EQ_U64(root->calls, 1);
	CHECK_EQ_U64(root->incl[0], 1800);
	CHECK_EQ_U64(down->calls, 100);
	CHECK_EQ_U64(down->incl[0], 300);
	CHECK_EQ_U64(down->incl[cost], 200);
	profile_free(p);
}

static void without_contexts(void)
{
	uint32_t nodes[2];
	struct inject_result r = result(0);
	struct zp_profile *p = figures(&r, nodes);
	CHECK(profile_find_event(p, "probe-cost") < 0); /* not known without the paths */
	const struct zp_stat *sm = profile_stat(p, 0, nodes[MAIN]), *sl = profile_stat(p, 0, nodes[LEAF]);
	CHECK_EQ_U64(sl->self[0], 300);
	CHECK_EQ_U64(sl->incl[0], 300);
	CHECK_EQ_U64(sm->self[0], 1500);
	CHECK(sm->incl[0] >= sm->self[0]);
	profile_free(p);
}

int main(void)
{
	with_contexts();
	without_contexts();
	return check_done();
}
