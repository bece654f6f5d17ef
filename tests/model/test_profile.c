/* The profile model: identity of nodes, per-thread stats, views over threads. */
#include <stdlib.h>

#include "check.h"
#include "model/profile.h"

static void test_nodes_are_unique_by_kind_module_name_addr(void)
{
	struct zp_profile *p = profile_new();
	uint32_t a = profile_node(p, ZP_FUNCTION, "f", "/bin/a", "a.c", 3, 0x10);
	uint32_t b = profile_node(p, ZP_FUNCTION, "f", "/bin/a", NULL, 0, 0x10);
	uint32_t c = profile_node(p, ZP_FUNCTION, "f", "/lib/b.so", NULL, 0, 0x10);
	uint32_t d = profile_node(p, ZP_BLOCK, "f", "/bin/a", "a.c", 9, 0x10);
	CHECK(a == b);
	CHECK(a != c && a != d && c != d);
	CHECK_EQ_U64(p->nnodes, 3);
	CHECK_EQ_STR(p->nodes[a].file, "a.c");
	CHECK_EQ_U64(p->nodes[a].line, 3);
	CHECK(p->nodes[a].parent == ZP_NONE);
	/* Many nodes: the index grows and still finds every one. */
	char name[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "fn%d", i);
		profile_node(p, ZP_FUNCTION, name, "/bin/a", NULL, 0, (uint64_t)i);
	}
	snprintf(name, sizeof name, "fn%d", 4321);
	CHECK_EQ_U64(profile_node(p, ZP_FUNCTION, name, "/bin/a", NULL, 0, 4321), 3 + 4321);
	CHECK_EQ_U64(p->nnodes, 5003);
	profile_free(p);
}

static void test_view_sums_threads(void)
{
	struct zp_profile *p = profile_new();
	unsigned ev = profile_event(p, "time", "ns");
	CHECK_EQ_U64(profile_event(p, "time", "ns"), ev);
	CHECK(profile_find_event(p, "cycles") == -1);
	uint32_t t0 = profile_thread(p, 100, 100, "main");
	uint32_t t1 = profile_thread(p, 100, 101, "worker");
	CHECK_EQ_U64(profile_thread(p, 100, 101, "other"), t1);
	CHECK(profile_thread(p, 200, 101, "child") != t1); /* same tid, other process */
	uint32_t f = profile_node(p, ZP_FUNCTION, "f", "", NULL, 0, 1);
	uint32_t g = profile_node(p, ZP_FUNCTION, "g", "", NULL, 0, 2);

	struct zp_stat *s = profile_stat(p, t0, f);
	CHECK_EQ_U64(s->min[ev], UINT64_MAX);
	s->calls = 2, s->self[ev] = 30, s->incl[ev] = 50, s->min[ev] = 20, s->max[ev] = 30;
	s = profile_stat(p, t1, f);
	s->calls = 3, s->self[ev] = 40, s->incl[ev] = 45, s->min[ev] = 10, s->max[ev] = 20;
	CHECK(profile_stat(p, t1, f) == s);
	s = profile_stat(p, t1, g);
	s->calls = 1, s->self[ev] = 25, s->incl[ev] = 25, s->min[ev] = 25, s->max[ev] = 25;

	struct zp_edge *e = profile_edge(p, t0, ZP_CALL, ZP_NONE, f);
	e->calls = 2, e->incl[ev] = 50;
	e = profile_edge(p, t1, ZP_CALL, ZP_NONE, f);
	e->calls = 3, e->incl[ev] = 45;
	e = profile_edge(p, t1, ZP_CALL, f, g);
	e->calls = 1, e->incl[ev] = 25;
	CHECK(profile_edge(p, t1, ZP_CALL, f, g) == e);
	CHECK(profile_edge(p, t1, ZP_JUMP, f, g) != e);

	struct zp_view *v = profile_view(p, ZP_NONE);
	CHECK_EQ_U64(v->nodes[f].calls, 5);
	CHECK_EQ_U64(v->nodes[f].self[ev], 70);
	CHECK_EQ_U64(v->nodes[f].incl[ev], 95);
	CHECK_EQ_U64(v->nodes[f].min[ev], 10);
	CHECK_EQ_U64(v->nodes[f].max[ev], 30);
	CHECK_EQ_U64(v->total[ev], 95);
	CHECK_EQ_U64(v->nedges, 3); /* root->f (both threads), f->g, and the empty jump */
	uint64_t root_calls = 0;
	for (size_t i = 0; i < v->nedges; i++)
		if (v->edges[i].caller == ZP_NONE)
			root_calls += v->edges[i].calls;
	CHECK_EQ_U64(root_calls, 5);
	profile_view_free(v);

	v = profile_view(p, t1);
	CHECK_EQ_U64(v->nodes[f].calls, 3);
	CHECK_EQ_U64(v->nodes[g].self[ev], 25);
	CHECK_EQ_U64(v->total[ev], 65);
	profile_view_free(v);
	profile_free(p);
}

static void test_meta(void)
{
	struct zp_profile *p = profile_new();
	CHECK(profile_meta(p, "lost_funcs") == NULL);
	profile_add_meta(p, "lost_funcs", "3");
	profile_add_meta(p, "lost_funcs", "4");
	CHECK_EQ_STR(profile_meta(p, "lost_funcs"), "4");
	CHECK_EQ_U64(p->run.nmeta, 1);
	profile_set_str(&p->run.command, "./app x");
	CHECK_EQ_STR(p->run.command, "./app x");
	profile_free(p);
}

static void test_merge_combines_runs(void)
{
	struct zp_profile *a = profile_new(), *b = profile_new();
	unsigned ta = profile_event(a, "time", "ns");
	profile_event(b, "cycles", "cycles");
	unsigned tb = profile_event(b, "time", "ns");
	uint32_t fa = profile_node(a, ZP_FUNCTION, "f", "/bin/x", NULL, 0, 1);
	uint32_t gb = profile_node(b, ZP_FUNCTION, "g", "/bin/x", NULL, 0, 2);
	uint32_t fb = profile_node(b, ZP_FUNCTION, "f", "/bin/x", NULL, 0, 1);
	struct zp_stat *s = profile_stat(a, profile_thread(a, 1, 1, "a"), fa);
	s->calls = 1, s->self[ta] = 10, s->min[ta] = 10, s->max[ta] = 10;
	uint32_t t = profile_thread(b, 2, 2, "b");
	s = profile_stat(b, t, fb);
	s->calls = 2, s->self[tb] = 4, s->min[tb] = 1, s->max[tb] = 3;
	profile_edge(b, t, ZP_CALL, fb, gb)->calls = 7;

	profile_merge(a, b);
	CHECK_EQ_U64(a->nevents, 2);
	CHECK_EQ_U64(a->nnodes, 2);
	CHECK_EQ_U64(a->nthreads, 2);
	struct zp_view *v = profile_view(a, ZP_NONE);
	CHECK_EQ_U64(v->nodes[fa].calls, 3);
	CHECK_EQ_U64(v->nodes[fa].self[ta], 14);
	CHECK_EQ_U64(v->nodes[fa].min[ta], 1);
	CHECK_EQ_U64(v->nodes[fa].max[ta], 10);
	CHECK_EQ_U64(v->nedges, 1);
	CHECK_EQ_U64(v->edges[0].calls, 7);
	CHECK_EQ_STR(a->nodes[v->edges[0].callee].name, "g");
	profile_view_free(v);
	profile_free(a);
	profile_free(b);
}

/*
 * Two threads: main -> a -> c and main -> b -> c on one, main -> a -> c on
 * the other.  Contexts keep c under a apart from c under b; the all-thread
 * view folds the two main -> a -> c paths into one; merging keeps paths.
 */
static void test_contexts_fold_by_path(void)
{
	struct zp_profile *p = profile_new();
	unsigned ev = profile_event(p, "time", "ns");
	uint32_t t0 = profile_thread(p, 1, 1, "main"), t1 = profile_thread(p, 1, 2, "w");
	uint32_t m = profile_node(p, ZP_FUNCTION, "main", "", NULL, 0, 1);
	uint32_t a = profile_node(p, ZP_FUNCTION, "a", "", NULL, 0, 2);
	uint32_t b = profile_node(p, ZP_FUNCTION, "b", "", NULL, 0, 3);
	uint32_t c = profile_node(p, ZP_FUNCTION, "c", "", NULL, 0, 4);
	uint32_t m0 = profile_context(p, t0, ZP_NONE, m);
	uint32_t ac0 = profile_context(p, t0, profile_context(p, t0, m0, a), c);
	uint32_t bc0 = profile_context(p, t0, profile_context(p, t0, m0, b), c);
	CHECK(ac0 != bc0);
	CHECK_EQ_U64(profile_context(p, t0, m0, a), 1);
	uint32_t m1 = profile_context(p, t1, ZP_NONE, m);
	CHECK(m1 != m0);
	uint32_t ac1 = profile_context(p, t1, profile_context(p, t1, m1, a), c);
	CHECK_EQ_U64(p->contexts[ac0].min[ev], UINT64_MAX);
	p->contexts[ac0].calls = 2, p->contexts[ac0].incl[ev] = 10, p->contexts[ac0].min[ev] = 4;
	p->contexts[ac1].calls = 3, p->contexts[ac1].incl[ev] = 9, p->contexts[ac1].min[ev] = 3;
	p->contexts[bc0].calls = 7;

	struct zp_context_view *v = profile_context_view(p, ZP_NONE);
	CHECK_EQ_U64(v->ncontexts, 5); /* main, main/a, main/a/c, main/b, main/b/c */
	uint64_t ac_calls = 0, bc_calls = 0, ac_min = 0;
	for (size_t i = 0; i < v->ncontexts; i++) {
		const struct zp_context *x = &v->contexts[i];
		CHECK(x->parent == ZP_NONE || x->parent < i);
		if (x->node != c)
			continue;
		if (v->contexts[x->parent].node == a)
			ac_calls = x->calls, ac_min = x->min[ev];
		else
			bc_calls = x->calls;
	}
	CHECK_EQ_U64(ac_calls, 5);
	CHECK_EQ_U64(ac_min, 3);
	CHECK_EQ_U64(bc_calls, 7);
	profile_context_view_free(v);

	v = profile_context_view(p, t1);
	CHECK_EQ_U64(v->ncontexts, 3);
	CHECK_EQ_U64(v->contexts[2].calls, 3);
	profile_context_view_free(v);

	struct zp_profile *d = profile_new();
	profile_merge(d, p);
	profile_merge(d, p);
	CHECK_EQ_U64(d->ncontexts, p->ncontexts);
	CHECK_EQ_U64(d->contexts[ac1].calls, 6);
	CHECK_EQ_U64(d->contexts[bc0].calls, 14);
	profile_free(d);
	profile_free(p);
}

/* Namesakes are told apart by object, and the marks follow nodes added later. */
static void test_namesakes(void)
{
	struct zp_profile *p = profile_new();
	uint32_t run_a = profile_node(p, ZP_FUNCTION, "run", "/opt/a/libplug.so", NULL, 0, 16);
	uint32_t main_ = profile_node(p, ZP_FUNCTION, "main", "/bin/app", NULL, 0, 32);
	uint32_t blk = profile_node(p, ZP_BLOCK, "run", "/bin/app", NULL, 0, 0);
	CHECK(profile_namesake_object(p, run_a) == NULL);
	CHECK(profile_namesake_object(p, blk) == NULL);
	uint32_t run_b = profile_node(p, ZP_FUNCTION, "run", "/opt/b/libother.so", NULL, 0, 16);
	CHECK_EQ_STR(profile_namesake_object(p, run_a), "libplug.so");
	CHECK_EQ_STR(profile_namesake_object(p, run_b), "libother.so");
	CHECK(profile_namesake_object(p, main_) == NULL);
	CHECK(profile_namesake_object(p, blk) == NULL); /* a block is no function */
	uint32_t run_c = profile_node(p, ZP_FUNCTION, "run", "/opt/c/libplug.so", NULL, 0, 16);
	CHECK_EQ_STR(profile_namesake_object(p, run_a), "/opt/a/libplug.so");
	CHECK_EQ_STR(profile_namesake_object(p, run_c), "/opt/c/libplug.so");
	CHECK_EQ_STR(profile_namesake_object(p, run_b), "libother.so"); /* its base tells it */
	/* a second profile with other nodes at the same ids gets its own marks */
	struct zp_profile *q = profile_new();
	uint32_t solo = profile_node(q, ZP_FUNCTION, "run", "/opt/a/libplug.so", NULL, 0, 16);
	CHECK(profile_namesake_object(q, solo) == NULL);
	CHECK_EQ_STR(profile_namesake_object(p, run_a), "/opt/a/libplug.so");
	profile_free(q);
	profile_free(p);
}

int main(void)
{
	test_namesakes();
	test_contexts_fold_by_path();
	test_merge_combines_runs();
	test_nodes_are_unique_by_kind_module_name_addr();
	test_view_sums_threads();
	test_meta();
	return check_done();
}
