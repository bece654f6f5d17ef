/*
 * test_report.c - the text reports of the fixture profile (fixture.h).
 *
 * Each report is compared with its golden file in tests/report/golden/,
 * byte for byte; the sort keys, limit, glob and time scaling are checked
 * on their own as well.  The call tree of a run with calling contexts
 * (fixture_context_profile) is checked against fixture.h's table, written
 * out here by hand: real nesting, no line above its parent.  To rewrite the golden files after an
 * intended change of layout, run with ZOND_UPDATE_GOLDEN=1 and review the diff.
 *
 * Usage: test_report GOLDEN_DIR
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "report/format.h"
#include "report/report.h"

enum which { HEADER, FLAT, GRAPH, TREE };

static const char *golden_dir;

static char *run_report(const struct zp_profile *p, enum which w, const struct report_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	switch (w) {
	case HEADER: report_header(p, out); break;
	case FLAT: report_flat(p, o, out); break;
	case GRAPH: report_graph(p, o, out); break;
	case TREE: report_tree(p, o, out); break;
	}
	fclose(out);
	return buf;
}

static void check_golden(const char *name, unsigned nevents, enum which w,
			 const struct report_options *o)
{
	struct zp_profile *p = fixture_profile(nevents);
	profile_add_meta(p, "lost_calls", "42");
	profile_add_meta(p, "page_size", "4096");
	char *got = run_report(p, w, o), path[512];
	snprintf(path, sizeof path, "%s/%s.txt", golden_dir, name);
	if (getenv("ZOND_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0);
	}
	char *want = fixture_read_file(path);
	if (!check_report(want && strcmp(got, want) == 0, __FILE__, __LINE__, name))
		fprintf(stderr, "--- got:\n%s--- want (%s):\n%s", got, path, want ? want : "");
	free(want);
	free(got);
	profile_free(p);
}

/* The names of the flat profile's rows, in order, space-separated. */
static char *flat_names(const struct zp_profile *p, const struct report_options *o)
{
	char *text = run_report(p, FLAT, o);
	char *names = calloc(1, strlen(text) + 1);
	char *line = strchr(text, '\n') + 1; /* the metric line */
	line = strchr(line, '\n') + 1;       /* the column titles */
	for (char *end; (end = strchr(line, '\n')); line = end + 1) {
		*end = 0;
		char *name = strstr(line, "  ");
		while (name && strstr(name + 2, "  "))
			name = strstr(name + 2, "  ");
		if (*line != '(' && name) {
			strcat(names, *names ? " " : "");
			strcat(names, name + 2);
		}
	}
	free(text);
	return names;
}

static void check_order(const struct zp_profile *p, enum report_sort sort, int limit,
			const char *match, const char *want)
{
	const char *globs[] = {match, NULL};
	struct report_options o = {.thread = ZP_NONE, .sort = sort, .limit = limit,
				   .match = match ? globs : NULL};
	char *got = flat_names(p, &o);
	CHECK_EQ_STR(got, want);
	free(got);
}

static void check_sorting(void)
{
	struct zp_profile *p = fixture_profile(1);
	check_order(p, SORT_SELF, 0, NULL, "work helper fact main parse [block] worker_main");
	check_order(p, SORT_TOTAL, 0, NULL, "main work worker_main helper fact parse [block]");
	check_order(p, SORT_CALLS, 0, NULL, "helper fact work parse [block] main worker_main");
	check_order(p, SORT_AVG, 0, NULL, "main worker_main work parse [block] fact helper");
	check_order(p, SORT_MAX, 0, NULL, "main worker_main work fact parse [block] helper");
	check_order(p, SORT_NAME, 0, NULL, "fact helper main parse [block] work worker_main");
	check_order(p, SORT_SELF, 2, NULL, "work helper");
	check_order(p, SORT_SELF, 0, "w*", "work worker_main");
	check_order(p, SORT_NAME, 1, "*a*", "fact");
	{ /* several globs: a function matching any of them */
		static const char *const two[] = {"main", "fa*", NULL};
		struct report_options o = {.thread = ZP_NONE, .sort = SORT_NAME, .match = two};
		char *got = flat_names(p, &o);
		CHECK_EQ_STR(got, "fact main");
		free(got);
	}
	profile_free(p);

	CHECK_EQ_U64(report_parse_sort("self"), SORT_SELF);
	CHECK_EQ_U64(report_parse_sort("avg"), SORT_AVG);
	CHECK_EQ_U64(report_parse_sort("name"), SORT_NAME);
	CHECK(report_parse_sort("size") == -1);
}

static void check_scaling(void)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{0, "0 ns"},           {999, "999 ns"},        {1000, "1.00 us"},
		{999994, "999.99 us"}, {999995, "1.00 ms"},    {15000000, "15.00 ms"},
		{999995000, "1.00 s"}, {1500000000, "1.50 s"}, {7200000000000, "7200.00 s"},
	};
	char buf[FORMAT_LEN];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		CHECK_EQ_STR(format_ns(buf, cases[i].ns), cases[i].text);
	struct zp_event cycles = {"cycles", "cycles"}, time = {"time", "ns"};
	CHECK_EQ_STR(format_cost(buf, 1234567, &cycles, 0), "1234567");
	CHECK_EQ_STR(format_cost(buf, 1234567, &time, 1), "1234567");
	CHECK_EQ_STR(format_cost(buf, 1234567, &time, 0), "1.23 ms");
	CHECK_EQ_STR(format_share(buf, 1, 3), "33.33%");
	CHECK_EQ_STR(format_share(buf, 5, 0), "0.00%");
}

/* Basic blocks are rows too, marked, and never roots of the call tree. */
static void check_basic_block(void)
{
	struct zp_profile *p = fixture_profile(1);
	uint32_t bb =
		profile_node(p, ZP_BASIC_BLOCK, "work+0x10", "/usr/bin/app", "work.c", 22, 0x1110);
	p->nodes[bb].parent = FX_WORK;
	profile_stat(p, 0, bb)->calls = 40;
	struct report_options o = {.thread = ZP_NONE, .sort = SORT_CALLS};
	char *flat = run_report(p, FLAT, &o), *tree = run_report(p, TREE, &o);
	CHECK(strstr(flat,
		     "\n        40        0 ns        0 ns        0 ns           -           -"
		     "    0.00%  work+0x10 [bb]\n"));
	CHECK(!strstr(tree, "work+0x10"));
	free(flat);
	free(tree);
	profile_free(p);
}

/* A name with a tab and a line break stays on its row, in its column. */
static void check_control_characters(void)
{
	struct zp_profile *p = fixture_profile(1);
	uint32_t odd = profile_node(p, ZP_FUNCTION, "tab\there\nnext", "/usr/bin/app", "", 0, 0x1200);
	profile_stat(p, 0, odd)->calls = 40;
	struct report_options o = {.thread = ZP_NONE, .sort = SORT_CALLS};
	char *flat = run_report(p, FLAT, &o);
	CHECK(strstr(flat, "  tab?here?next\n") != NULL);
	CHECK(!strchr(flat, '\t'));
	free(flat);
	profile_free(p);
}

/* One line of the call tree: calls, cost, share, depth, name (cost NULL: counts only). */
static void tree_line(FILE *out, const char *calls, const char *cost, const char *share, int depth,
		      const char *name)
{
	if (cost)
		fprintf(out, "%10s %11s %8s  %*s%s\n", calls, cost, share, depth * 2, "", name);
	else
		fprintf(out, "%10s  %*s%s\n", calls, depth * 2, "", name);
}

static void check_tree_text(const struct zp_profile *p, const struct report_options *o,
			    const char *head, const char *const (*rows)[5], size_t n)
{
	char *want = NULL;
	size_t len;
	FILE *out = open_memstream(&want, &len);
	fputs(head, out);
	for (size_t i = 0; i < n; i++)
		tree_line(out, rows[i][0], rows[i][1], rows[i][2], atoi(rows[i][3]), rows[i][4]);
	fclose(out);
	char *got = run_report(p, TREE, o);
	CHECK_EQ_STR(got, want);
	free(got);
	free(want);
}

/* With raw numbers, every line's total is at most its parent line's. */
static void check_nesting(const struct zp_profile *p, uint32_t thread)
{
	struct report_options o = {.thread = thread, .raw_numbers = 1};
	char *text = run_report(p, TREE, &o);
	unsigned long long at_depth[64];
	int lines = 0;
	int skip = 2; /* the metric line and the column titles */
	for (char *line = text, *end; (end = strchr(line, '\n')); line = end + 1) {
		if (skip && skip--)
			continue;
		unsigned long long calls, total;
		double share;
		int name_at = 0;
		CHECK(sscanf(line, "%llu %llu %lf%%  %n", &calls, &total, &share, &name_at) == 3);
		int depth = 0;
		while (line[name_at + 2 * depth] == ' ')
			depth++;
		CHECK(depth < 64);
		if (depth >= 64)
			break;
		at_depth[depth] = total;
		if (depth > 0)
			CHECK(total <= at_depth[depth - 1]);
		CHECK(share <= 100.0);
		lines++;
	}
	CHECK_EQ_U64(lines, thread == ZP_NONE ? 14 : thread == 0 ? 11 : 3);
	free(text);
}

static void check_context_tree(void)
{
	static const char *const all[][5] = {
		{"1", "1.00 us", "83.33%", "0", "main"}, {"1", "450 ns", "37.50%", "1", "B"},
		{"3", "400 ns", "33.33%", "2", "C"},     {"3", "300 ns", "25.00%", "3", "Y"},
		{"2", "350 ns", "29.17%", "1", "A"},     {"2", "300 ns", "25.00%", "2", "C"},
		{"4", "200 ns", "16.67%", "3", "X"},     {"1", "100 ns", "8.33%", "1", "f"},
		{"1", "90 ns", "7.50%", "2", "g"},       {"1", "70 ns", "5.83%", "3", "f"},
		{"1", "40 ns", "3.33%", "4", "g"},       {"1", "200 ns", "16.67%", "0", "worker"},
		{"1", "140 ns", "11.67%", "1", "C"},     {"2", "100 ns", "8.33%", "2", "X"},
	};
	static const char *const worker[][5] = {
		{"1", "200 ns", "100.00%", "0", "worker"},
		{"1", "140 ns", "70.00%", "1", "C"},
		{"2", "100 ns", "50.00%", "2", "X"},
	};
	static const char *const match_c[][5] = {
		{"6", "840 ns", "70.00%", "0", "C"},
		{"6", "300 ns", "25.00%", "1", "X"},
		{"3", "300 ns", "25.00%", "1", "Y"},
	};
	static const char *const counts[][5] = {
		{"1", NULL, NULL, "0", "main"}, {"2", NULL, NULL, "1", "A"},
		{"2", NULL, NULL, "2", "C"},    {"4", NULL, NULL, "3", "X"},
		{"1", NULL, NULL, "1", "B"},    {"3", NULL, NULL, "2", "C"},
		{"3", NULL, NULL, "3", "Y"},    {"1", NULL, NULL, "1", "f"},
		{"1", NULL, NULL, "2", "g"},    {"1", NULL, NULL, "3", "f"},
		{"1", NULL, NULL, "4", "g"},    {"1", NULL, NULL, "0", "worker"},
		{"1", NULL, NULL, "1", "C"},    {"2", NULL, NULL, "2", "X"},
	};
	const char *head = "call tree: time (each value with its unit), total 1.20 us\n"
			   "     calls       total  total %  name\n";
	struct zp_profile *p = fixture_context_profile(1);
	struct report_options o = {.thread = ZP_NONE};
	check_tree_text(p, &o, head, all, sizeof all / sizeof all[0]);
	o.thread = 1;
	check_tree_text(p, &o,
			"call tree: time (each value with its unit), total 200 ns\n"
			"     calls       total  total %  name\n",
			worker, sizeof worker / sizeof worker[0]);
	o.thread = ZP_NONE;
	static const char *const only_c[] = {"C", NULL};
	o.match = only_c;
	check_tree_text(p, &o, head, match_c, sizeof match_c / sizeof match_c[0]);
	for (uint32_t t = 0; t < 2; t++)
		check_nesting(p, t);
	check_nesting(p, ZP_NONE);
	profile_free(p);

	p = fixture_context_profile(0);
	o.match = NULL;
	check_tree_text(p, &o,
			"call tree: calls only (no event measured), 24 calls\n"
			"     calls  name\n",
			counts, sizeof counts / sizeof counts[0]);
	profile_free(p);
}

/* The probe overhead prints as times do: two decimals (whole cycles: none). */
static void check_overhead_decimals(void)
{
	struct zp_profile *p = fixture_profile(1);
	p->run.overhead_ns = 82.0467;
	char *text = run_report(p, HEADER, NULL);
	CHECK(strstr(text, "overhead:  probe overhead of 82.05 ns per call subtracted\n") != NULL);
	free(text);
	p->run.overhead_ns = 2053;
	text = run_report(p, HEADER, NULL);
	CHECK(strstr(text, "overhead:  probe overhead of 2053 ns per call subtracted\n") != NULL);
	free(text);
	profile_free(p);
}

/*
 * A total a little below self (each level of a deep recursion rounded from
 * ticks to ns apart) prints as self, not as "-" (which says an event has no
 * inclusive figure: incl 0).
 */
static void check_total_below_self(void)
{
	struct zp_profile *p = fixture_profile(1);
	profile_stat(p, 0, FX_HELPER)->incl[0] = 1999; /* self 2000 */
	static const char *const helper[] = {"helper", NULL};
	struct report_options o = {.thread = ZP_NONE, .raw_numbers = 1, .match = helper};
	char *text = run_report(p, FLAT, &o);
	CHECK(strstr(text, "\n        11        2600        2600         236 ") != NULL);
	free(text);
	profile_free(p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: test_report GOLDEN_DIR\n", stderr);
		return 2;
	}
	golden_dir = argv[1];
	struct report_options all = {.thread = ZP_NONE};
	struct report_options o;
	static const char *const helper[] = {"helper", NULL}, *const work[] = {"work", NULL};

	check_golden("header", 1, HEADER, &all);
	check_golden("flat", 1, FLAT, &all);
	check_golden("flat-counts", 0, FLAT, &all);
	o = all, o.per_thread = 1;
	check_golden("flat-per-thread", 1, FLAT, &o);
	o = all, o.thread = 1;
	check_golden("flat-thread1", 1, FLAT, &o);
	o = all, o.event = 1, o.sort = SORT_TOTAL, o.limit = 3;
	check_golden("flat-cycles-total-limit3", 2, FLAT, &o);
	o = all, o.raw_numbers = 1;
	check_golden("flat-raw", 1, FLAT, &o);
	check_golden("graph", 1, GRAPH, &all);
	check_golden("graph-counts", 0, GRAPH, &all);
	o = all, o.match = helper;
	check_golden("graph-helper", 1, GRAPH, &o);
	check_golden("tree", 1, TREE, &all);
	check_golden("tree-counts", 0, TREE, &all);
	o = all, o.match = work;
	check_golden("tree-work", 1, TREE, &o);

	check_sorting();
	check_scaling();
	check_basic_block();
	check_control_characters();
	check_context_tree();
	check_overhead_decimals();
	check_total_below_self();
	return check_done();
}
