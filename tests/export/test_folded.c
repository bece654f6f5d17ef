/*
 * test_folded.c - folded stacks: the real ones from calling contexts, and
 * those rebuilt from call edges for runs without contexts.
 *
 * With contexts (fixture_context_profile): exactly the stacks of fixture.h's
 * table, parsed line by line, with their self time, cycles or exact calls,
 * for all threads and for one; none of the stacks the edges alone allow.
 * Without: exact lines for the fixture (all threads, one thread, counts
 * only, a second event), exact integer splitting of a self cost over
 * several paths, termination on recursion, a frame list that grows while a
 * lone node is appended (the sanitizer build checks the memory use), and on
 * a larger tangled graph the one property every flame graph relies on: the
 * lines add up to the run's self cost.
 */
#define _GNU_SOURCE /* memrchr */
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

/* The stacks of fixture.h's table: path, calls, self time. */
static const struct {
	uint32_t thread;
	const char *path;
	uint64_t calls, self;
} real_stacks[] = {
	{0, "main", 1, 100},       {0, "main;A", 2, 50},       {0, "main;A;C", 2, 100},
	{0, "main;A;C;X", 4, 200}, {0, "main;B", 1, 50},       {0, "main;B;C", 3, 100},
	{0, "main;B;C;Y", 3, 300}, {0, "main;f", 1, 10},       {0, "main;f;g", 1, 20},
	{0, "main;f;g;f", 1, 30},  {0, "main;f;g;f;g", 1, 40}, {1, "worker", 1, 60},
	{1, "worker;C", 1, 40},    {1, "worker;C;X", 2, 100},
};

/*
 * Parses the folded text line by line: each line must be one stack of the
 * table (for thread, or any when ZP_NONE) with value want(row), every such
 * stack must appear exactly once.
 */
static void check_stacks(const char *text, uint32_t thread, int what)
{
	enum { N = sizeof real_stacks / sizeof real_stacks[0] };
	int seen[N] = {0};
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		const char *space = end ? memrchr(line, ' ', (size_t)(end - line)) : NULL;
		CHECK(space != NULL);
		if (!space)
			return;
		size_t i = 0;
		while (i < N && (strlen(real_stacks[i].path) != (size_t)(space - line) ||
				 strncmp(real_stacks[i].path, line, (size_t)(space - line)) != 0))
			i++;
		if (!check_report(i < N, __FILE__, __LINE__, "a real stack"))
			fprintf(stderr, "    %.*s\n", (int)(end - line), line);
		if (i < N) {
			uint64_t want = what == 0   ? real_stacks[i].self
					: what == 1 ? real_stacks[i].self * 3
						    : real_stacks[i].calls;
			CHECK(thread == ZP_NONE || real_stacks[i].thread == thread);
			CHECK_EQ_U64(strtoull(space + 1, NULL, 10), want);
			seen[i]++;
		}
		line = end + 1;
	}
	for (size_t i = 0; i < N; i++)
		CHECK_EQ_U64(seen[i], thread == ZP_NONE || real_stacks[i].thread == thread);
}

static void check_contexts(void)
{
	struct zp_profile *p = fixture_context_profile(2);
	for (int what = 0; what < 3; what++) {
		int event = what == 2 ? -1 /* METRIC_CALLS */ : what;
		for (uint32_t t = 0; t < 2; t++) {
			char *text = folded(p, t, event);
			check_stacks(text, t, what);
			free(text);
		}
		char *text = folded(p, ZP_NONE, event);
		check_stacks(text, ZP_NONE, what);
		CHECK(strstr(text, "A;C;Y") == NULL && strstr(text, "B;C;X") == NULL);
		free(text);
	}
	/* The exact text: paths before their extensions, thread 0's before thread 1's. */
	check_text(p, ZP_NONE, 0,
		   "main 100\nmain;A 50\nmain;A;C 100\nmain;A;C;X 200\nmain;B 50\n"
		   "main;B;C 100\nmain;B;C;Y 300\nmain;f 10\nmain;f;g 20\nmain;f;g;f 30\n"
		   "main;f;g;f;g 40\nworker 60\nworker;C 40\nworker;C;X 100\n");
	profile_free(p);

	/* Threads with the same path fold into one line. */
	p = fixture_context_profile(1);
	uint32_t t2 = profile_thread(p, 200, 202, "worker");
	uint32_t w = profile_context(p, t2, ZP_NONE, CX_WORKER);
	p->contexts[w].calls = 1;
	p->contexts[w].self[0] = 7;
	char *text = folded(p, ZP_NONE, 0);
	CHECK(strstr(text, "\nworker 67\n") != NULL);
	free(text);
	profile_free(p);
}

/*
 * A chain of exactly as many frames as the first allocation holds, then a
 * node on no path: appending its frame moves the frames.
 */
static void check_growth(void)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	profile_thread(p, 1, 1, "");
	uint32_t prev = ZP_NONE;
	for (int i = 0; i < 256; i++) {
		char name[16];
		snprintf(name, sizeof name, "c%d", i);
		uint32_t n = add(p, name, 1, (uint64_t)(256 - i));
		call(p, prev, n, (uint64_t)(256 - i));
		prev = n;
	}
	uint32_t lone = profile_node(p, ZP_FUNCTION, "lone", "m", "", 0, 0);
	profile_stat(p, 0, lone)->self[0] = 5;
	char *text = folded(p, ZP_NONE, 0);
	size_t nlines;
	CHECK_EQ_U64(sum_lines(text, &nlines), 256 + 5);
	CHECK_EQ_U64(nlines, 257);
	size_t len = strlen(text);
	CHECK(len > 7 && strcmp(text + len - 7, "lone 5\n") == 0);
	free(text);
	profile_free(p);
}

int main(void)
{
	check_contexts();
	check_growth();
	check_fixture();
	check_split();
	check_recursion();
	check_tangle();
	return check_done();
}
