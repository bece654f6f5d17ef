/*
 * test_dot.c - the DOT export, rendered by Graphviz.
 *
 * `dot -Tsvg` must accept every export; the SVG must hold exactly the
 * expected nodes and edges (by their n<id> titles), the labels' numbers,
 * names with quotes, <, > and backslashes as they are, and --min-share must
 * drop exactly the nodes under the share with their edges.  With calling
 * contexts, the edges and their labels are the sums over the contexts
 * (fixture.h): the calls per pair and the callee's outermost cost; an edge
 * no context went along keeps the model's numbers.
 *
 * Usage: test_export_dot WORKDIR
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export/export.h"
#include "fixture.h"

static size_t count(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *s = text; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* Exports p, renders it, and returns the SVG (NULL if dot failed). */
static char *render(const struct zp_profile *p, const struct export_options *o, const char *dir,
		    const char *name)
{
	char dot[512], svg[512], cmd[1100];
	snprintf(dot, sizeof dot, "%s/%s.dot", dir, name);
	snprintf(svg, sizeof svg, "%s/%s.svg", dir, name);
	FILE *f = fopen(dot, "w");
	struct zerr err;
	if (!f || export_dot(p, o, f, &err) != 0 || fclose(f) != 0)
		return NULL;
	snprintf(cmd, sizeof cmd, "dot -Tsvg -o %s %s", svg, dot);
	if (system(cmd) != 0)
		return NULL;
	return fixture_read_file(svg);
}

static void check_fixture(const char *dir)
{
	struct zp_profile *p = fixture_profile(1);
	struct export_options o = {.thread = ZP_NONE};
	char *svg = render(p, &o, dir, "fixture");
	CHECK(svg != NULL);
	if (svg) {
		CHECK_EQ_U64(count(svg, "class=\"node\""), 6);
		CHECK_EQ_U64(count(svg, "class=\"edge\""), 6);
		for (int n = 0; n < 6; n++) {
			char title[64];
			snprintf(title, sizeof title, "<title>n%d</title>", n);
			CHECK_EQ_U64(count(svg, title), 1);
		}
		CHECK(strstr(svg, "<title>n0&#45;&gt;n1</title>"));
		CHECK(strstr(svg, "<title>n5&#45;&gt;n5</title>"));
		CHECK(strstr(svg, ">work</text>"));
		CHECK(strstr(svg, ">self 6.00 us (44.44%)</text>"));
		CHECK(strstr(svg, ">total 8.00 us (59.26%)</text>"));
		CHECK(strstr(svg, ">4 calls</text>"));
		CHECK(strstr(svg, ">parse</text>"));
		CHECK(strstr(svg, ">8.00 us</text>"));
	}
	free(svg);

	/* Over 20%: main 74%, work 59%, worker_main 26%; only main -> work links two of them. */
	o.min_share = 0.2;
	svg = render(p, &o, dir, "fixture-min");
	CHECK(svg != NULL);
	if (svg) {
		CHECK_EQ_U64(count(svg, "class=\"node\""), 3);
		CHECK(strstr(svg, "<title>n0</title>") && strstr(svg, "<title>n1</title>") &&
		      strstr(svg, "<title>n4</title>"));
		CHECK_EQ_U64(count(svg, "class=\"edge\""), 1);
		CHECK(strstr(svg, "<title>n0&#45;&gt;n1</title>"));
	}
	free(svg);
	profile_free(p);

	/* Counts only: labels carry calls, no cost. */
	p = fixture_profile(0);
	o.min_share = 0;
	svg = render(p, &o, dir, "fixture-counts");
	CHECK(svg != NULL);
	if (svg) {
		CHECK_EQ_U64(count(svg, "class=\"node\""), 6);
		CHECK(strstr(svg, ">11 calls</text>"));
		CHECK(!strstr(svg, ">self "));
	}
	free(svg);
	profile_free(p);
}

/* The SVG group of edge "from -> to" holds text (a label line), exactly once. */
static int edge_has(const char *svg, int from, int to, const char *text)
{
	char title[64];
	snprintf(title, sizeof title, "<title>n%d&#45;&gt;n%d</title>", from, to);
	const char *at = strstr(svg, title);
	if (!at || strstr(at + 1, title))
		return 0;
	const char *end = strstr(at, "</g>"), *found = strstr(at, text);
	return end && found && found < end;
}

static void check_contexts(const char *dir)
{
	static const struct {
		int from, to;
		const char *calls, *cost;
	} edges[] = {
		{CX_MAIN, CX_A, ">2 calls<", ">350 ns<"}, {CX_MAIN, CX_B, ">1 call<", ">450 ns<"},
		{CX_MAIN, CX_F, ">1 call<", ">100 ns<"},  {CX_A, CX_C, ">2 calls<", ">300 ns<"},
		{CX_B, CX_C, ">3 calls<", ">400 ns<"},    {CX_C, CX_X, ">6 calls<", ">300 ns<"},
		{CX_C, CX_Y, ">3 calls<", ">300 ns<"},    {CX_F, CX_G, ">2 calls<", ">90 ns<"},
		{CX_G, CX_F, ">1 call<", ">0 ns<"},       {CX_WORKER, CX_C, ">1 call<", ">140 ns<"},
	};
	struct zp_profile *p = fixture_context_profile(1);
	struct export_options o = {.thread = ZP_NONE};
	char *svg = render(p, &o, dir, "contexts");
	CHECK(svg != NULL);
	if (svg) {
		CHECK_EQ_U64(count(svg, "class=\"node\""), 9);
		CHECK_EQ_U64(count(svg, "class=\"edge\""), 10);
		for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
			if (!check_report(
				    edge_has(svg, edges[i].from, edges[i].to, edges[i].calls) &&
					    edge_has(svg, edges[i].from, edges[i].to,
						     edges[i].cost),
				    __FILE__, __LINE__, "edge label"))
				fprintf(stderr, "    n%d -> n%d %s %s\n", edges[i].from,
					edges[i].to, edges[i].calls, edges[i].cost);
	}
	free(svg);
	/* A call edge along which no context went (contexts lost) keeps its own numbers. */
	struct zp_edge *lost = profile_edge(p, 0, ZP_CALL, CX_A, CX_Y);
	lost->calls = 5;
	lost->incl[0] = 7;
	svg = render(p, &o, dir, "contexts-lost");
	CHECK(svg != NULL);
	if (svg) {
		CHECK_EQ_U64(count(svg, "class=\"edge\""), 11);
		CHECK(edge_has(svg, CX_A, CX_Y, ">5 calls<") &&
		      edge_has(svg, CX_A, CX_Y, ">7 ns<"));
		CHECK(edge_has(svg, CX_F, CX_G, ">2 calls<") &&
		      edge_has(svg, CX_F, CX_G, ">90 ns<"));
	}
	free(svg);
	/* One thread: only its pairs. */
	o.thread = 1;
	svg = render(p, &o, dir, "contexts-1");
	CHECK(svg != NULL);
	if (svg) {
		CHECK_EQ_U64(count(svg, "class=\"edge\""), 2);
		CHECK(edge_has(svg, CX_C, CX_X, ">2 calls<") &&
		      edge_has(svg, CX_C, CX_X, ">100 ns<"));
	}
	free(svg);
	profile_free(p);
}

static void check_escaping(const char *dir)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	uint32_t t = profile_thread(p, 1, 1, "");
	uint32_t a = profile_node(p, ZP_FUNCTION, "std::map<int, \"q\">::at\\x", "", "", 0, 1);
	uint32_t b = profile_node(p, ZP_FUNCTION, "a\"b\\ bad\xff\x01", "", "", 0, 2);
	struct zp_stat *s = profile_stat(p, t, a);
	s->calls = 1, s->self[0] = 30, s->incl[0] = 100;
	s = profile_stat(p, t, b);
	s->calls = 2, s->self[0] = 70, s->incl[0] = 70;
	struct zp_edge *e = profile_edge(p, t, ZP_CALL, a, b);
	e->calls = 2, e->incl[0] = 70;
	struct export_options o = {.thread = ZP_NONE};
	char *svg = render(p, &o, dir, "escaping");
	CHECK(svg != NULL);
	if (svg) {
		CHECK(strstr(svg, ">std::map&lt;int, &quot;q&quot;&gt;::at\\x</text>"));
		/* a byte that is no UTF-8 becomes U+FFFD (Graphviz reads labels as UTF-8), a
		 * control character ? (the SVG is XML) */
		CHECK(strstr(svg, ">a&quot;b\\ bad\xef\xbf\xbd?</text>"));
		CHECK_EQ_U64(count(svg, "class=\"edge\""), 1);
	}
	free(svg);
	profile_free(p);
}

/*
 * A name over Graphviz's 16384-byte string (a C++ template's, QA s14 V1 F1;
 * dot refused the whole file): drawn with its first and last parts.  The
 * name is made of 'é' (two bytes) so that a cut inside a character shows.
 */
static void check_long_name(const char *dir)
{
	size_t chars = 20000;
	char *name = zp_xmalloc(2 * chars + 8);
	for (size_t i = 0; i < chars; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	memcpy(name + 2 * chars, "::f", 4);
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	uint32_t t = profile_thread(p, 1, 1, "");
	uint32_t a = profile_node(p, ZP_FUNCTION, name, "", "", 0, 1);
	struct zp_stat *s = profile_stat(p, t, a);
	s->calls = 1, s->self[0] = s->incl[0] = 10;
	struct export_options o = {.thread = ZP_NONE};
	char *svg = render(p, &o, dir, "longname");
	CHECK(svg != NULL);
	if (svg) {
		CHECK_EQ_U64(count(svg, "class=\"node\""), 1);
		CHECK(strstr(svg, "\xc3\xa9\xc3\xa9\xe2\x80\xa6\xc3\xa9\xc3\xa9"));
		CHECK(strstr(svg, "\xc3\xa9::f</text>"));
		CHECK(!strstr(svg, "\xef\xbf\xbd")); /* no character cut in two */
	}
	free(svg);
	free(name);
	profile_free(p);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	check_fixture(dir);
	check_escaping(dir);
	check_long_name(dir);
	check_contexts(dir);

	struct zp_profile *p = fixture_profile(1);
	struct export_options o = {.thread = ZP_NONE, .event = 3};
	struct zerr err;
	CHECK(export_dot(p, &o, stdout, &err) == -1);
	CHECK(strstr(err.msg, "no event number 3") != NULL);
	profile_free(p);
	return check_done();
}
