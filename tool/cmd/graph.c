/* graph.c - `zond graph`: callers and callees of functions, or the call tree. */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: zond graph [options] [FUNC]\n"
	"Print, for each function matching FUNC (a name or glob; all when omitted),\n"
	"its callers and callees with calls and inclusive time along each call edge.\n\n"
	"  -i, --input FILE    profile store (default ./zond.db)\n"
	"  -r, --run RUN       run id, -N for the Nth newest, or 'last' (default)\n"
	"  -C, --campaign NAME all runs of campaign NAME combined\n"
	"  -t, --tree          print the top-down call tree instead (from FUNC if given):\n"
	"                      the real call paths when the run has calling contexts,\n"
	"                      else rebuilt from call edges (and it says so)\n"
	"  -e, --event NAME    event to show (default: the first)\n"
	"      --tid TID       one thread only\n"
	"      --raw           numbers in the event's own unit, not scaled\n"
	"  -h, --help          this help\n";

enum { OPT_TID = 256, OPT_RAW };

static const struct option options[] = {
	{"input", required_argument, NULL, 'i'},
	{"run", required_argument, NULL, 'r'},
	{"campaign", required_argument, NULL, 'C'},
	{"tree", no_argument, NULL, 't'},
	{"event", required_argument, NULL, 'e'},
	{"tid", required_argument, NULL, OPT_TID},
	{"raw", no_argument, NULL, OPT_RAW},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The reports match names the same way: a glob, as fnmatch(3) reads it. */
static int matches_any(const struct zp_profile *p, const char *glob)
{
	for (size_t i = 0; i < p->nnodes; i++)
		if (fnmatch(glob, p->nodes[i].name, 0) == 0)
			return 1;
	return 0;
}

int cmd_graph(int argc, char **argv)
{
	struct run_choice rc = {0};
	struct report_options o = {.thread = ZP_NONE, .sort = SORT_TOTAL};
	const char *event = NULL;
	int tree = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:r:C:te:h", options, NULL)) != -1) {
		switch (c) {
		case 'i': rc.store = optarg; break;
		case 'r': rc.run = optarg; break;
		case 'C': rc.campaign = optarg; break;
		case 't': tree = 1; break;
		case 'e': event = optarg; break;
		case OPT_TID: rc.tid = optarg; break;
		case OPT_RAW: o.raw_numbers = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("graph", "bad option");
		}
	}
	if (optind < argc)
		o.match = argv[optind++];
	if (optind < argc)
		return cmd_usage_error("graph", "unexpected argument '%s'", argv[optind]);

	struct zerr err;
	struct zp_profile *p = run_choice_load(&rc, &o.thread, &err);
	if (!p)
		return cmd_error("graph", "%s", err.msg);
	int status = 0;
	if (event && (o.event = profile_find_event(p, event)) < 0) {
		status = cmd_error("graph", "run %lld has no event '%s'", (long long)p->run.id,
				   event);
	} else if (o.match && !matches_any(p, o.match)) {
		status = cmd_error("graph", "no function '%s' in run %lld", o.match,
				   (long long)p->run.id);
	} else {
		report_header(p, stdout);
		if (tree)
			report_tree(p, &o, stdout);
		else
			report_graph(p, &o, stdout);
	}
	profile_free(p);
	return status;
}
