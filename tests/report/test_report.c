/*
 * test_report.c - the text reports of the fixture profile (fixture.h).
 *
 * Each report is compared with its golden file in tests/report/golden/,
 * byte for byte; the sort keys, limit, glob and time scaling are checked
 * on their own as well.  To rewrite the golden files after an intended
 * change of layout, run with ZOND_UPDATE_GOLDEN=1 and review the diff.
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
	struct report_options o = {.thread = ZP_NONE, .sort = sort, .limit = limit, .match = match};
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
		     "\n        40        0 ns        0 ns        0 ns           -        0 ns"
		     "    0.00%  work+0x10 [bb]\n"));
	CHECK(!strstr(tree, "work+0x10"));
	free(flat);
	free(tree);
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
	o = all, o.match = "helper";
	check_golden("graph-helper", 1, GRAPH, &o);
	check_golden("tree", 1, TREE, &all);
	check_golden("tree-counts", 0, TREE, &all);
	o = all, o.match = "work";
	check_golden("tree-work", 1, TREE, &o);

	check_sorting();
	check_scaling();
	check_basic_block();
	return check_done();
}
