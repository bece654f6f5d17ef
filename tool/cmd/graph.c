/* graph.c - `zond graph`: callers and callees of functions, or the call tree. */
#include <stdio.h>

#include "cmd.h"
#include "report/report.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond graph [options] [FUNC]\n"
	"Print, for each function matching FUNC (a name or glob) or a -m pattern\n"
	"(all when none is given), its callers and callees with calls and inclusive\n"
	"time along each call edge; a FUNC or pattern that matches none is an error.\n\n"
	"  -t, --tree            print the top-down call tree instead (from FUNC if\n"
	"                        given): the real call paths when the run has calling\n"
	"                        contexts, else rebuilt from call edges (and it says so)\n"
	"      --raw             numbers in the event's own unit, not scaled\n";

enum { OPT_RAW = 256 };

static const struct option options[] = {
	{"tree", no_argument, NULL, 't'},
	{"raw", no_argument, NULL, OPT_RAW},
	{NULL, 0, NULL, 0},
};

struct graph_args {
	struct report_options o;
	int tree;
};

static int own_option(void *arg, int c, const char *value)
{
	struct graph_args *g = arg;
	(void)value;
	if (c == 't')
		g->tree = 1;
	else if (c == OPT_RAW)
		g->o.raw_numbers = 1;
	else
		return cmd_usage_error("graph", "bad option");
	return 0;
}

/* The reports match names the same way (symbols_name_matches). */
static int matches_some(const struct zp_profile *p, const char *glob)
{
	for (size_t i = 0; i < p->nnodes; i++)
		if (symbols_name_matches(glob, p->nodes[i].name))
			return 1;
	return 0;
}

/* 0, or 1 after naming the first pattern that names no function of p. */
static int unmatched(const struct zp_profile *p, const struct read_options *ro)
{
	for (size_t i = 0; i < ro->nmatch; i++)
		if (!matches_some(p, ro->match[i]))
			return cmd_error("graph", "no function '%s' in run %lld", ro->match[i],
					 (long long)p->run.id);
	return 0;
}

static void print_graph(const struct zp_profile *p, const struct graph_args *g, FILE *out)
{
	report_header(p, out);
	if (g->tree)
		report_tree(p, &g->o, out);
	else
		report_graph(p, &g->o, out);
}

int cmd_graph(int argc, char **argv)
{
	struct graph_args g = {.o = {.thread = ZP_NONE, .sort = SORT_TOTAL}};
	const struct read_cmd cmd = {"graph", usage_text, NULL,
				     READ_RUN_CHOICE | READ_MATCH | READ_EVENT | READ_OUTPUT, "t", options,
				     own_option, &g, NULL};
	struct read_options ro;
	int status = read_parse(&cmd, argc, argv, &ro);
	if (status >= 0)
		return status;
	if (optind < argc && ro.nmatch == READ_MATCH_MAX)
		return cmd_usage_error("graph", "at most %d patterns (FUNC and -m)", READ_MATCH_MAX);
	if (optind < argc)
		ro.match[ro.nmatch++] = argv[optind++];
	if (optind < argc)
		return cmd_usage_error("graph", "unexpected argument '%s'", argv[optind]);
	if (ro.nmatch)
		g.o.match = ro.match;

	struct zerr err;
	struct zp_profile *p = run_choice_load(&ro.rc, &g.o.thread, &err);
	if (!p)
		return cmd_error("graph", "%s", err.msg);
	FILE *out;
	status = 0;
	if (read_event("graph", &ro, p, &g.o.event)) {
		status = 1;
	} else if ((status = unmatched(p, &ro)) != 0) {
		/* said */
	} else if (!(out = read_output_open("graph", &ro))) {
		status = 1;
	} else {
		print_graph(p, &g, out);
		status = read_output_close("graph", &ro, out);
	}
	profile_free(p);
	return status;
}
