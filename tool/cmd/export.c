/* export.c - `zond export`: a run in the formats other tools read. */
#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "export/export.h"
#include "report/format.h"
#include "report/report.h"
#include "output.h"
#include "store/store.h"

static const char usage_head[] =
	"usage: zond export --format FORMAT [options]\n"
	"Write a run for other tools:\n";

static const char usage_options[] =
	"\n"
	"  -f, --format FORMAT   one of the formats above (required)\n"
	"      --min-share PCT   dot: leave out functions under PCT percent inclusive\n";

static const char after_text[] =
	"-e: the event for dot, folded and speedscope; 'calls': calls (folded: of each\n"
	"stack's last function, exactly); pprof: the default sample type (every event\n"
	"is written).\n";

enum { OPT_MIN_SHARE = 256 };

static const struct option options[] = {
	{"format", required_argument, NULL, 'f'},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{NULL, 0, NULL, 0},
};

struct export_args {
	struct export_options o;
	const char *format;
	int min_share_set;
};

static int own_option(void *arg, int c, const char *value)
{
	struct export_args *a = arg;
	switch (c) {
	case 'f': a->format = value; return 0;
	case OPT_MIN_SHARE:
		a->min_share_set = 1;
		if (cmd_decimal(value, &a->o.min_share) < 0 || a->o.min_share > 100)
			return cmd_usage_error("export", "--min-share wants 0..100, not '%s'",
					       value);
		a->o.min_share /= 100.0;
		return 0;
	}
	return cmd_usage_error("export", "bad option");
}

typedef int (*export_fn)(const struct zp_profile *, const struct export_options *, FILE *,
			 struct zerr *);

/* The formats: what --format accepts, --help lists and 'zond --help' names. */
static const struct {
	const char *name;
	export_fn fn;
	const char *help;
} formats[] = {
	{"callgrind", export_callgrind, "KCachegrind, callgrind_annotate\n"},
	{"callgrind-bb", export_callgrind_bb,
	 "one node per basic block (zond trace runs): the control-flow graph\n"},
	{"chrome", export_chrome,
	 "Chrome trace event JSON for Perfetto UI, chrome://tracing and\n"
	 "speedscope: the run's timeline (record --timeline), one event per call\n"},
	{"dot", export_dot, "Graphviz call graph (dot -Tsvg)\n"},
	{"folded", export_folded,
	 "folded stacks for flamegraph.pl and speedscope: the real stacks\n"
	 "when the run has calling contexts, else rebuilt from call edges\n"},
	{"json", export_json, "zond's JSON document (doc/json-schema.md)\n"},
	{"pprof", export_pprof,
	 "gzipped profile.proto for go tool pprof, Pyroscope, Parca: one\n"
	 "sample per calling context, one sample type per event (and calls)\n"},
	{"speedscope", export_speedscope,
	 "speedscope's JSON: one sampled profile per thread, its stacks\n"
	 "the calling contexts weighted in the event's unit\n"},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

static export_fn find_format(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, name) == 0)
			return formats[i].fn;
	return NULL;
}

const char *export_format_names(void)
{
	static char names[256];
	if (*names)
		return names;
	size_t at = 0;
	for (size_t i = 0; i < NFORMATS; i++)
		at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", formats[i].name,
				       i + 2 < NFORMATS ? ", " : i + 1 < NFORMATS ? " or " : "");
	return names;
}

/* The help: the head, every format with its lines indented, the options. */
static char *usage_text(void)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	fputs(usage_head, f);
	for (size_t i = 0; i < NFORMATS; i++) {
		fprintf(f, "  %-13s", formats[i].name);
		for (const char *l = formats[i].help; *l;) {
			const char *nl = strchr(l, '\n');
			fprintf(f, "%s%.*s\n", l == formats[i].help ? "" : "               ",
				(int)(nl - l), l);
			l = nl + 1;
		}
	}
	fputs(usage_options, f);
	fclose(f);
	return text;
}

static int write_export(export_fn fn, const struct zp_profile *p, const struct export_options *o,
			const char *path)
{
	struct output out;
	struct zerr err;
	if (output_open(&out, path, &err) < 0)
		return cmd_error("export", "%s", err.msg);
	int ok = fn(p, o, out.f, &err) == 0;
	if (output_close(&out, ok, &err) < 0 || !ok)
		return cmd_error("export", "%s", err.msg);
	return 0;
}

/*
 * Folded stacks, pprof and speedscope write every context's whole path: a
 * deep recursion makes that quadratic (100,000 levels, 5 * 10^9 frames: a
 * 10 GB folded file).  Said before it is written, with what stays linear.
 */
static void warn_deep_stacks(const struct zp_profile *p, uint32_t thread, const char *format)
{
	uint32_t deepest;
	uint64_t frames = profile_stack_frames(p, thread, &deepest);
	if (frames < 100000000)
		return;
	fprintf(stderr,
		"zond export: warning: the stacks of run %lld hold %" PRIu64 " frames (%" PRIu32
		" deep at most): %s writes each one whole, gigabytes to write and to read; "
		"`zond graph --tree` and --format json or callgrind stay linear\n",
		(long long)p->run.id, frames, deepest, format);
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = {.o = {.thread = ZP_NONE}};
	char *usage = usage_text();
	const struct read_cmd cmd = {"export", usage, after_text,
				     READ_RUN_CHOICE | READ_EVENT | READ_OUTPUT, "f:", options,
				     own_option, &a, NULL};
	struct read_options ro;
	int status = read_parse(&cmd, argc, argv, &ro);
	free(usage);
	if (status >= 0)
		return status;
	struct export_options o = a.o;
	const char *format = a.format, *output = ro.output, *event = ro.event;
	if (optind < argc)
		return cmd_usage_error("export", "unexpected argument '%s'", argv[optind]);
	if (!format)
		return cmd_usage_error("export", "--format is required");
	export_fn fn = find_format(format);
	if (!fn)
		return cmd_usage_error("export", "unknown format '%s'", format);
	if (a.min_share_set && fn != export_dot)
		return cmd_usage_error("export", "--min-share is for dot only, not %s", format);
	if (fn == export_pprof && !output && isatty(STDOUT_FILENO))
		return cmd_usage_error("export",
				       "pprof is gzipped binary: give -o FILE or redirect "
				       "standard output");

	struct zerr err;
	const char *inputs[] = {ro.rc.store ? ro.rc.store : STORE_DEFAULT_PATH, NULL};
	if (output && output_check(output, OUTPUT_FILE, inputs, &err) < 0)
		return cmd_error("export", "%s", err.msg);
	struct zp_profile *p = run_choice_load(&ro.rc, &o.thread, &err);
	if (!p)
		return cmd_error("export", "%s", err.msg);
	status = 0;
	if (event && strcmp(event, "calls") == 0 && profile_find_event(p, event) < 0)
		o.event = METRIC_CALLS;
	else
		status = read_event("export", &ro, p, &o.event);
	if (status == 0 && (fn == export_folded || fn == export_pprof || fn == export_speedscope))
		warn_deep_stacks(p, o.thread, format);
	if (status == 0)
		status = write_export(fn, p, &o, output);
	char note[512];
	if (status == 0 && fn != export_chrome && report_contexts_note(p, note, sizeof note))
		fprintf(stderr, "zond export: %s\n", note); /* instead of the lines below */
	else if (status == 0 && fn == export_folded && !p->ncontexts)
		fprintf(stderr,
			"zond export: run %lld has no calling contexts: stacks rebuilt from call "
			"edges, they may not all have happened\n",
			(long long)p->run.id);
	else if (status == 0 && (fn == export_pprof || fn == export_speedscope) && !p->ncontexts)
		fprintf(stderr,
			"zond export: run %lld has no calling contexts: one one-frame sample per "
			"function (its self cost), no stacks\n",
			(long long)p->run.id);
	profile_free(p);
	return status;
}
