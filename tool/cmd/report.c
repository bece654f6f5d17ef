/* report.c - `zond report`: the flat profile of a run. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: zond report [options]\n"
	"Print the flat profile of a run: per function its calls, total (inclusive)\n"
	"and self time, average, min and max of one call, and share of the run.\n\n"
	"  -i, --input FILE    profile store (default ./zond.db)\n"
	"  -r, --run RUN       run id, -N for the Nth newest, or 'last' (default)\n"
	"  -C, --campaign NAME all runs of campaign NAME combined\n"
	"  -s, --sort KEY      self (default), total, calls, avg, max or name\n"
	"  -n, --limit N       show the first N functions only\n"
	"  -e, --event NAME    event to sort and share by (default: the first)\n"
	"  -m, --match GLOB    only functions whose name matches GLOB\n"
	"      --tid TID       one thread only\n"
	"      --per-thread    one table per thread\n"
	"      --raw           numbers in the event's own unit, not scaled\n"
	"  -h, --help          this help\n";

enum { OPT_TID = 256, OPT_PER_THREAD, OPT_RAW };

static const struct option options[] = {
	{"input", required_argument, NULL, 'i'},
	{"run", required_argument, NULL, 'r'},
	{"campaign", required_argument, NULL, 'C'},
	{"sort", required_argument, NULL, 's'},
	{"limit", required_argument, NULL, 'n'},
	{"event", required_argument, NULL, 'e'},
	{"match", required_argument, NULL, 'm'},
	{"tid", required_argument, NULL, OPT_TID},
	{"per-thread", no_argument, NULL, OPT_PER_THREAD},
	{"raw", no_argument, NULL, OPT_RAW},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int cmd_report(int argc, char **argv)
{
	struct run_choice rc = {0};
	struct report_options o = {.thread = ZP_NONE, .sort = SORT_SELF};
	const char *event = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:r:C:s:n:e:m:h", options, NULL)) != -1) {
		switch (c) {
		case 'i': rc.store = optarg; break;
		case 'r': rc.run = optarg; break;
		case 'C': rc.campaign = optarg; break;
		case 's':
			if ((int)(o.sort = report_parse_sort(optarg)) < 0)
				return cmd_usage_error("report", "unknown sort key '%s'", optarg);
			break;
		case 'n':
			if ((o.limit = (int)parse_count(optarg)) < 0)
				return cmd_usage_error("report", "--limit wants a number, not '%s'",
						       optarg);
			break;
		case 'e': event = optarg; break;
		case 'm': o.match = optarg; break;
		case OPT_TID: rc.tid = optarg; break;
		case OPT_PER_THREAD: o.per_thread = 1; break;
		case OPT_RAW: o.raw_numbers = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("report", "bad option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("report", "unexpected argument '%s'", argv[optind]);

	struct zerr err;
	struct zp_profile *p = run_choice_load(&rc, &o.thread, &err);
	if (!p)
		return cmd_error("report", "%s", err.msg);
	if (event && (o.event = profile_find_event(p, event)) < 0) {
		cmd_error("report", "run %lld has no event '%s'", (long long)p->run.id, event);
		profile_free(p);
		return 1;
	}
	report_header(p, stdout);
	report_flat(p, &o, stdout);
	profile_free(p);
	return 0;
}
