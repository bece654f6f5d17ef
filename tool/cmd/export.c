/* export.c - `zond export`: a run in the formats other tools read. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "export/export.h"
#include "report/format.h"

static const char usage_text[] =
	"usage: zond export --format FORMAT [options]\n"
	"Write a run for other tools:\n"
	"  callgrind  KCachegrind, callgrind_annotate\n"
	"  callgrind-bb  one node per basic block (zond trace runs): the control-flow graph\n"
	"  dot        Graphviz call graph (dot -Tsvg)\n"
	"  folded     folded stacks for flamegraph.pl and speedscope: the real stacks\n"
	"             when the run has calling contexts, else rebuilt from call edges\n"
	"  json       zond's JSON document (doc/json-schema.md)\n"
	"  pprof      gzipped profile.proto for go tool pprof, Pyroscope, Parca: one\n"
	"             sample per calling context, one sample type per event (and calls)\n"
	"  speedscope speedscope's JSON: one sampled profile per thread, its stacks\n"
	"             the calling contexts weighted in the event's unit\n\n"
	"  -f, --format FORMAT one of the formats above (required)\n"
	"  -o, --output FILE   write to FILE (default: standard output)\n"
	"  -i, --input FILE    profile store (default ./zond.db)\n"
	"  -r, --run RUN       run id, -N for the Nth newest, or 'last' (default)\n"
	"  -C, --campaign NAME all runs of campaign NAME combined\n"
	"  -e, --event NAME    event for dot, folded and speedscope (default: the\n"
	"                      first); 'calls': calls (folded: of each stack's last\n"
	"                      function, exactly); pprof: the default sample type\n"
	"                      (every event is written)\n"
	"      --tid TID       one thread only\n"
	"      --min-share PCT dot: leave out functions under PCT percent inclusive\n"
	"  -h, --help          this help\n";

enum { OPT_TID = 256, OPT_MIN_SHARE };

static const struct option options[] = {
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"input", required_argument, NULL, 'i'},
	{"run", required_argument, NULL, 'r'},
	{"campaign", required_argument, NULL, 'C'},
	{"event", required_argument, NULL, 'e'},
	{"tid", required_argument, NULL, OPT_TID},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

typedef int (*export_fn)(const struct zp_profile *, const struct export_options *, FILE *,
			 struct zerr *);

static export_fn find_format(const char *name)
{
	static const struct {
		const char *name;
		export_fn fn;
	} formats[] = {
		{"callgrind", export_callgrind},
		{"callgrind-bb", export_callgrind_bb},
		{"dot", export_dot},
		{"folded", export_folded},
		{"json", export_json},
		{"pprof", export_pprof},
		{"speedscope", export_speedscope},
	};
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(formats[i].name, name) == 0)
			return formats[i].fn;
	return NULL;
}

static int write_export(export_fn fn, const struct zp_profile *p, const struct export_options *o,
			const char *path)
{
	FILE *out = path ? fopen(path, "w") : stdout;
	struct zerr err;
	if (!out)
		return cmd_error("export", "%s: cannot create: %s", path, strerror(errno));
	int rc = fn(p, o, out, &err);
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = zerr_set(&err, "%s: write failed: %s", path ? path : "standard output",
			      strerror(errno));
	if (path && fclose(out) != 0 && rc == 0)
		rc = zerr_set(&err, "%s: write failed: %s", path, strerror(errno));
	return rc < 0 ? cmd_error("export", "%s", err.msg) : 0;
}

int cmd_export(int argc, char **argv)
{
	struct run_choice rc = {0};
	struct export_options o = {.thread = ZP_NONE};
	const char *format = NULL, *output = NULL, *event = NULL;
	char *end;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:i:r:C:e:h", options, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'o': output = optarg; break;
		case 'i': rc.store = optarg; break;
		case 'r': rc.run = optarg; break;
		case 'C': rc.campaign = optarg; break;
		case 'e': event = optarg; break;
		case OPT_TID: rc.tid = optarg; break;
		case OPT_MIN_SHARE:
			o.min_share = strtod(optarg, &end) / 100.0;
			if (end == optarg || *end || o.min_share < 0 || o.min_share > 1)
				return cmd_usage_error(
					"export", "--min-share wants 0..100, not '%s'", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("export", "bad option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("export", "unexpected argument '%s'", argv[optind]);
	if (!format)
		return cmd_usage_error("export", "--format is required");
	export_fn fn = find_format(format);
	if (!fn)
		return cmd_usage_error("export", "unknown format '%s'", format);
	if (fn == export_pprof && !output && isatty(STDOUT_FILENO))
		return cmd_usage_error("export",
				       "pprof is gzipped binary: give -o FILE or redirect "
				       "standard output");

	struct zerr err;
	struct zp_profile *p = run_choice_load(&rc, &o.thread, &err);
	if (!p)
		return cmd_error("export", "%s", err.msg);
	int status = 0;
	if (event && strcmp(event, "calls") == 0 && profile_find_event(p, event) < 0)
		o.event = METRIC_CALLS;
	else if (event && (o.event = profile_find_event(p, event)) < 0)
		status = cmd_error("export", "run %lld has no event '%s'", (long long)p->run.id,
				   event);
	if (status == 0)
		status = write_export(fn, p, &o, output);
	if (status == 0 && fn == export_folded && !p->ncontexts)
		fprintf(stderr,
			"zond export: run %lld has no calling contexts: stacks rebuilt from call "
			"edges, they may not all have happened\n",
			(long long)p->run.id);
	if (status == 0 && (fn == export_pprof || fn == export_speedscope) && !p->ncontexts)
		fprintf(stderr,
			"zond export: run %lld has no calling contexts: one one-frame sample per "
			"function (its self cost), no stacks\n",
			(long long)p->run.id);
	profile_free(p);
	return status;
}
