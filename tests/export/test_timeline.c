/*
 * test_timeline.c - the profile of a window of a timeline (profile_window)
 * against figures worked out by hand from the timeline fixture (fixture.h):
 * calls, self and inclusive time per function, context and call edge, the
 * spans clipped to the window, bounds left open; and the Chrome export's
 * refusal of a run without a timeline.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export/export.h"
#include "fixture.h"

static const struct zp_stat *stat_of(const struct zp_profile *w, uint32_t thread, uint32_t node)
{
	for (size_t i = 0; i < w->nstats; i++)
		if (w->stats[i].thread == thread && w->stats[i].node == node)
			return &w->stats[i];
	return NULL;
}

static void check_stat(const struct zp_profile *w, uint32_t thread, uint32_t node, uint64_t calls,
		       uint64_t self, uint64_t incl)
{
	const struct zp_stat *s = stat_of(w, thread, node);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_EQ_U64(s->calls, calls);
	CHECK_EQ_U64(s->self[0], self);
	CHECK_EQ_U64(s->incl[0], incl);
}

/* The context reached along path (node ids, ZP_NONE-terminated) on thread, or NULL. */
static const struct zp_context *context_at(const struct zp_profile *w, uint32_t thread,
					   const uint32_t *path)
{
	uint32_t parent = ZP_NONE;
	const struct zp_context *found = NULL;
	for (; *path != ZP_NONE; path++) {
		found = NULL;
		for (size_t i = 0; i < w->ncontexts && !found; i++) {
			const struct zp_context *c = &w->contexts[i];
			if (c->thread == thread && c->parent == parent && c->node == *path)
				found = c;
		}
		if (!found)
			return NULL;
		parent = (uint32_t)(found - w->contexts);
	}
	return found;
}

static void check_context(const struct zp_profile *w, uint32_t thread, const uint32_t *path,
			  uint64_t calls, uint64_t self, uint64_t incl)
{
	const struct zp_context *c = context_at(w, thread, path);
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_EQ_U64(c->calls, calls);
	CHECK_EQ_U64(c->self[0], self);
	CHECK_EQ_U64(c->incl[0], incl);
}

static void check_edge(const struct zp_profile *w, uint32_t thread, uint32_t caller,
		       uint32_t callee, uint64_t calls, uint64_t incl)
{
	for (size_t i = 0; i < w->nedges; i++) {
		const struct zp_edge *e = &w->edges[i];
		if (e->thread == thread && e->caller == caller && e->callee == callee) {
			CHECK_EQ_U64(e->calls, calls);
			CHECK_EQ_U64(e->incl[0], incl);
			return;
		}
	}
	CHECK(!"edge not found");
}

#define N ZP_NONE
static void test_whole(void)
{
	struct zp_profile *p = fixture_timeline_profile();
	struct zp_profile *w = profile_window(p, INT64_MIN, INT64_MAX);
	CHECK_EQ_U64(w->nevents, 1);
	CHECK_EQ_STR(w->events[0].name, "time");
	CHECK_EQ_STR(w->events[0].unit, "ns");
	CHECK_EQ_U64(w->nthreads, 2);
	CHECK_EQ_U64(w->nspans, p->nspans);
	check_stat(w, 0, TL_MAIN, 1, 3000, 10000);
	check_stat(w, 0, TL_F, 3, 4500, 7000);
	check_stat(w, 0, TL_G, 3, 2500, 3500);
	check_stat(w, 1, TL_WORKER, 1, 2000, 4000);
	check_stat(w, 1, TL_F, 1, 2000, 2000);
	check_context(w, 0, (uint32_t[]){TL_MAIN, TL_F, N}, 2, 3500, 7000);
	check_context(w, 0, (uint32_t[]){TL_MAIN, TL_F, TL_G, N}, 3, 2500, 3500);
	check_context(w, 0, (uint32_t[]){TL_MAIN, TL_F, TL_G, TL_F, N}, 1, 1000, 1000);
	check_context(w, 1, (uint32_t[]){TL_WORKER, TL_F, N}, 1, 2000, 2000);
	CHECK_EQ_U64(w->ncontexts, 6);
	check_edge(w, 0, N, TL_MAIN, 1, 10000);
	check_edge(w, 0, TL_MAIN, TL_F, 2, 7000);
	check_edge(w, 0, TL_F, TL_G, 3, 3500);
	check_edge(w, 0, TL_G, TL_F, 1, 1000);
	profile_free(w);
	profile_free(p);
}

/* [2 us, 7 us): every call that ran in it, clipped to it. */
static void test_window(void)
{
	struct zp_profile *p = fixture_timeline_profile();
	struct zp_profile *w = profile_window(p, 2000, 7000);
	check_stat(w, 0, TL_MAIN, 1, 1000, 5000);
	check_stat(w, 0, TL_F, 3, 3000, 4000);
	check_stat(w, 0, TL_G, 2, 1000, 1500);
	check_stat(w, 1, TL_WORKER, 1, 2000, 4000);
	check_stat(w, 1, TL_F, 1, 2000, 2000);
	check_context(w, 0, (uint32_t[]){TL_MAIN, TL_F, N}, 2, 2500, 4000);
	check_context(w, 0, (uint32_t[]){TL_MAIN, TL_F, TL_G, N}, 2, 1000, 1500);
	check_context(w, 0, (uint32_t[]){TL_MAIN, TL_F, TL_G, TL_F, N}, 1, 500, 500);
	check_edge(w, 0, TL_MAIN, TL_F, 2, 4000);
	check_edge(w, 0, TL_F, TL_G, 2, 1500);
	check_edge(w, 0, TL_G, TL_F, 1, 500);
	/* g 8-8.5 is outside; the rest clipped, and marked where they were cut */
	CHECK_EQ_U64(w->nspans, 8);
	CHECK_EQ_U64(w->spans[0].start, TL_START + 2000);
	CHECK_EQ_U64(w->spans[0].end, TL_START + 7000);
	CHECK_EQ_U64(w->spans[0].flags, ZP_SPAN_NO_START | ZP_SPAN_NO_END);
	CHECK_EQ_U64(w->spans[1].flags, ZP_SPAN_NO_START);
	CHECK_EQ_U64(w->spans[3].flags, ZP_SPAN_NO_END);
	profile_free(w);

	/* open bounds; a window with nothing in it has no calls */
	w = profile_window(p, 8200, INT64_MAX);
	check_stat(w, 0, TL_MAIN, 1, 1000, 1800);
	check_stat(w, 0, TL_F, 1, 500, 800);
	check_stat(w, 0, TL_G, 1, 300, 300);
	CHECK(stat_of(w, 1, TL_WORKER) == NULL);
	profile_free(w);
	w = profile_window(p, 20000, 30000);
	CHECK_EQ_U64(w->nstats + w->nspans + w->ncontexts, 0);
	profile_free(w);
	profile_free(p);
}

static void test_no_timeline(void)
{
	struct zp_profile *p = fixture_context_profile(1);
	struct export_options o = {.thread = ZP_NONE};
	struct zerr err = {{0}};
	char *text;
	size_t len;
	FILE *out = open_memstream(&text, &len);
	CHECK(export_chrome(p, &o, out, &err) < 0);
	fclose(out);
	CHECK_EQ_STR(err.msg, "run 8 has no timeline: record it with --timeline");
	CHECK_EQ_U64(len, 0);
	free(text);
	/* a trace run's timeline is read from its trace: `trace record` refuses --timeline */
	profile_set_str(&p->run.collector, "trace");
	out = open_memstream(&text, &len);
	CHECK(export_chrome(p, &o, out, &err) < 0);
	fclose(out);
	CHECK_EQ_STR(err.msg,
		     "run 8 has no timeline: read its trace with `zond trace report --timeline`");
	free(text);
	profile_free(p);
}

/*
 * Times read on two CPUs may go back by a few ticks: the thread's calls
 * still nest by time as they do by depth (a sibling never starts inside the
 * call before it, a child never ends after its parent).
 */
static void test_time_backwards(void)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	uint32_t t = profile_thread(p, 1, 1, "");
	uint32_t m = profile_node(p, ZP_FUNCTION, "m", "", "", 0, 1);
	uint32_t a = profile_node(p, ZP_FUNCTION, "a", "", "", 0, 2);
	const struct zp_tl_event ev[] = {
		{100, m, 0, 0, 0, 0, 0}, {110, a, 1, 0, 0, 0, 0}, {120, a, 1, 1, 0, 0, 0},
		{118, a, 1, 0, 0, 0, 0}, /* read on another CPU: 2 ns behind the exit before it */
		{130, a, 1, 1, 0, 0, 0}, {125, m, 0, 1, 0, 0, 0},
	};
	profile_add_timeline(p, t, ev, sizeof ev / sizeof *ev, 0, 200);
	CHECK_EQ_U64(p->nspans, 3);
	if (p->nspans == 3) {
		CHECK(p->spans[0].node == m && p->spans[0].start == 100 && p->spans[0].end == 130);
		CHECK(p->spans[1].node == a && p->spans[1].start == 110 && p->spans[1].end == 120);
		CHECK(p->spans[2].node == a && p->spans[2].start == 120 && p->spans[2].end == 130);
	}
	profile_free(p);
}

int main(void)
{
	test_whole();
	test_time_backwards();
	test_window();
	test_no_timeline();
	return check_done();
}
