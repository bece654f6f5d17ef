/* report.c - `zond report`: the flat profile of a run. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: zond report [options]\n"
	"Print the flat profile of a run: per function its calls, total (inclusive)\n"
	"and self time, average, min and max of one call, and share of the run.\n\n"
	"  -s, --sort KEY        self (default), total, calls, avg, max or name\n"
	"  -n, --limit N         show the first N functions only (0: all)\n"
	"      --per-thread      one table per thread\n"
	"      --raw             numbers in the event's own unit, not scaled\n";

enum { OPT_PER_THREAD = 256, OPT_RAW };

static const struct option options[] = {
	{"sort", required_argument, NULL, 's'},
	{"limit", required_argument, NULL, 'n'},
	{"per-thread", no_argument, NULL, OPT_PER_THREAD},
	{"raw", no_argument, NULL, OPT_RAW},
	{NULL, 0, NULL, 0},
};

static int own_option(void *arg, int c, const char *value)
{
	struct report_options *o = arg;
	switch (c) {
	case 's':
		if ((int)(o->sort = report_parse_sort(value)) < 0)
			return cmd_usage_error("report", "unknown sort key '%s'", value);
		return 0;
	case 'n':
		if ((o->limit = (int)parse_count(value)) < 0)
			return cmd_usage_error("report", "--limit wants a number, not '%s'", value);
		return 0;
	case OPT_PER_THREAD: o->per_thread = 1; return 0;
	case OPT_RAW: o->raw_numbers = 1; return 0;
	}
	return cmd_usage_error("report", "bad option");
}

int cmd_report(int argc, char **argv)
{
	struct report_options o = {.thread = ZP_NONE, .sort = SORT_SELF};
	const struct read_cmd cmd = {"report", usage_text, NULL, READ_RUN_CHOICE | READ_MATCH | READ_EVENT | READ_OUTPUT,
				     "s:n:", options, own_option, &o, NULL};
	struct read_options ro;
	int status = read_parse(&cmd, argc, argv, &ro);
	if (status >= 0)
		return status;
	if (optind < argc)
		return cmd_usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (ro.nmatch)
		o.match = ro.match;

	struct zerr err;
	struct zp_profile *p = run_choice_load(&ro.rc, &o.thread, &err);
	if (!p)
		return cmd_error("report", "%s", err.msg);
	FILE *out = NULL;
	if (read_event("report", &ro, p, &o.event))
		status = 1;
	else if (!(out = read_output_open("report", &ro)))
		status = 1;
	if (out) {
		report_header(p, out);
		report_flat(p, &o, out);
		status = read_output_close("report", &ro, out);
	}
	profile_free(p);
	return status;
}
