/*
 * test_folded.c - folded stacks rebuilt from call edges.
 *
 * Exact lines for the fixture (all threads, one thread, counts only, a
 * second event), exact integer splitting of a self cost over several paths,
 * termination on recursion, and on a larger tangled graph the one property
 * every flame graph relies on: the lines add up to the run's self cost.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export/export.h"
#include "fixture.h"

/* The folded export of p as one string (malloc'ed). */
static char *folded(const struct zp_profile *p, uint32_t thread, int event)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct export_options o = {.thread = thread, .event = event};
	struct zerr err;
	CHECK(export_folded(p, &o, f, &err) == 0);
	fclose(f);
	return buf;
}

/* Sums the values of the lines, checking each is "frames value". */
static uint64_t sum_lines(const char *text, size_t *nlines)
{
	uint64_t sum = 0;
	*nlines = 0;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		const char *space = memchr(line, ' ', (size_t)(end - line));
		CHECK(space && space > line && space[1] >= '0' && space[1] <= '9');
		if (!space)
			break;
		sum += strtoull(space + 1, NULL, 10);
		(*nlines)++;
		line = end + 1;
	}
	return sum;
}

static void check_text(const struct zp_profile *p, uint32_t thread, int event, const char *want)
{
	char *got = folded(p, thread, event);
	CHECK_EQ_STR(got, want);
	free(got);
}

static void check_fixture(void)
{
	struct zp_profile *p = fixture_profile(1);
	check_text(p, ZP_NONE, 0,
		   "main 1000\n"
		   "main;work 6000\n"
		   "main;work;helper 2000\n"
		   "main;parse 1000\n"
		   "worker_main 500\n"
		   "worker_main;helper 600\n"
		   "worker_main;fact 2400\n");
	check_text(p, 1, 0,
		   "worker_main 500\n"
		   "worker_main;helper 600\n"
		   "worker_main;fact 2400\n");
	profile_free(p);

	p = fixture_profile(2);
	check_text(p, 0, 1,
		   "main 3000\n"
		   "main;work 18000\n"
		   "main;work;helper 6000\n"
		   "main;parse 3000\n");
	profile_free(p);

	p = fixture_profile(0);
	check_text(p, ZP_NONE, 0,
		   "main 1\n"
		   "main;work 4\n"
		   "main;work;helper 8\n"
		   "main;parse 2\n"
		   "worker_main 1\n"
		   "worker_main;helper 3\n"
		   "worker_main;fact 5\n");
	profile_free(p);
}

static uint32_t add(struct zp_profile *p, const char *name, uint64_t self, uint64_t incl)
{
	uint32_t n = profile_node(p, ZP_FUNCTION, name, "m", "", 0, 0);
	struct zp_stat *s = profile_stat(p, 0, n);
	s->calls = 1;
	s->self[0] = self;
	s->incl[0] = incl;
	return n;
}

static void call(struct zp_profile *p, uint32_t caller, uint32_t callee, uint64_t incl)
{
	struct zp_edge *e = profile_edge(p, 0, ZP_CALL, caller, callee);
	e->calls++;
	e->incl[0] += incl;
}

/* x's 10 ns reach it along three equal paths: 3 + 3 + 4, not 3 + 3 + 3. */
static void check_split(void)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	profile_thread(p, 1, 1, "");
	uint32_t r = add(p, "r", 0, 310), x = add(p, "x", 10, 10);
	const char *names[] = {"a", "b", "c"};
	for (int i = 0; i < 3; i++) {
		uint32_t n = add(p, names[i], 100, 100);
		call(p, r, n, 100);
		call(p, n, x, 1);
	}
	call(p, ZP_NONE, r, 310);
	check_text(p, ZP_NONE, 0,
		   "r;a 100\n"
		   "r;a;x 3\n"
		   "r;b 100\n"
		   "r;b;x 3\n"
		   "r;c 100\n"
		   "r;c;x 4\n");
	profile_free(p);
}

/* a -> b -> a and a -> a: paths stop before a node already on them. */
static void check_recursion(void)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	profile_thread(p, 1, 1, "");
	uint32_t a = add(p, "a;1 x", 50, 100), b = add(p, "b", 50, 60);
	call(p, ZP_NONE, a, 100);
	call(p, a, b, 60);
	call(p, b, a, 10);
	call(p, a, a, 30);
	check_text(p, ZP_NONE, 0,
		   "a:1_x 50\n"
		   "a:1_x;b 50\n");
	profile_free(p);
}

/* A dense graph with cycles and odd ratios: the lines still add up exactly. */
static void check_tangle(void)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	profile_thread(p, 1, 1, "");
	uint32_t seed = 12345, n[40];
	for (int i = 0; i < 40; i++) {
		char name[16];
		snprintf(name, sizeof name, "f%d", i);
		seed = seed * 1103515245 + 12345;
		n[i] = add(p, name, seed % 997 + 1, 1000 + seed % 5000);
	}
	call(p, ZP_NONE, n[0], 100000);
	for (int k = 0; k < 200; k++) {
		seed = seed * 1103515245 + 12345;
		uint32_t from = n[(seed >> 8) % 40], to = n[(seed >> 16) % 40];
		call(p, from, to, seed % 3001);
	}
	struct zp_view *v = profile_view(p, ZP_NONE);
	char *text = folded(p, ZP_NONE, 0);
	size_t nlines;
	CHECK_EQ_U64(sum_lines(text, &nlines), v->total[0]);
	CHECK(nlines >= 40);
	free(text);
	profile_view_free(v);
	profile_free(p);
}

int main(void)
{
	check_fixture();
	check_split();
	check_recursion();
	check_tangle();
	return check_done();
}
