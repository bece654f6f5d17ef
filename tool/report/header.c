/* header.c - the facts of a run printed above every report. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "rows.h"

/* key and value; a value's control characters as '?' (a campaign name: QA s15 W2 F3) */
static void put_field(FILE *out, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	fprintf(out, "%-11s", key);
	report_put_text(out, value, 0);
	putc('\n', out);
}

/* Dates print in UTC so that a report reads the same wherever it is made. */
static void put_date(FILE *out, int64_t start_ns)
{
	time_t t = (time_t)(start_ns / 1000000000);
	struct tm tm;
	char date[64];
	if (start_ns > 0 && gmtime_r(&t, &tm) &&
	    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm))
		put_field(out, "date:", date);
}

static void put_end(FILE *out, const struct zp_profile *p)
{
	const struct zp_run *r = &p->run;
	const char *unknown = profile_meta(p, "end_unknown"); /* recover: why no one knows */
	char end[64];
	if (r->term_signal)
		snprintf(end, sizeof end, "killed by signal %d", r->term_signal);
	else if (r->exit_status >= 0)
		snprintf(end, sizeof end, "exit status %d", r->exit_status);
	else if (unknown)
		fprintf(out, "%-11sunknown: %s\n", "end:", unknown);
	else
		return;
	if (r->term_signal || r->exit_status >= 0)
		put_field(out, "end:", end);
}

/*
 * Sampled time: how many samples the figures rest on (their uncertainty),
 * how many were zond's own or could not be placed, and what each call adds
 * beside them (doc/raw-format.md, "The hooks' own calls").
 */
static uint64_t meta_count(const struct zp_profile *p, const char *key)
{
	const char *v = profile_meta(p, key);
	return v ? strtoull(v, NULL, 10) : 0;
}

/* the header warns from this percent of the samples filled by zond's own sampling, and
   from this many */
enum { SAMPLE_COST_WARN_PCT = 10, SAMPLE_COST_WARN_MIN = 10 };

static void put_samples(FILE *out, const struct zp_profile *p)
{
	const char *n = profile_meta(p, "samples");
	if (!n)
		return;
	uint64_t all = strtoull(n, NULL, 10), zond = meta_count(p, "samples_zond"),
		 lost = meta_count(p, "samples_lost");
	uint64_t program = all >= zond + lost ? all - zond - lost : 0;
	uint64_t sampling = meta_count(p, "samples_sampling");
	if (sampling > zond)
		sampling = zond;
	fprintf(out, "%-11s%" PRIu64 " of the program's, %" PRIu64 " in zond's probes, ", "samples:",
		program, zond - sampling);
	if (sampling)
		fprintf(out, "%" PRIu64 " in zond's sampling, ", sampling);
	fprintf(out, "%" PRIu64 " lost", lost);
	const char *period = profile_meta(p, "sample_period_ns");
	const char *sampler = profile_meta(p, "sampler");
	char buf[64];
	if (period)
		fprintf(out, ", one per %s of CPU", format_ns(buf, strtoull(period, NULL, 10)));
	if (sampler)
		fprintf(out, " (%s)", sampler);
	const char *hooks = profile_meta(p, "hook_pair_ns");
	if (hooks)
		fprintf(out, "; and %s ns a call for its empty hooks", hooks);
	putc('\n', out);
	uint64_t each;
	double pct;
	if (report_sampling_costly(p, &each, &pct)) {
		char buf2[64];
		fprintf(out,
			"%-11szond's sampling took %s a sample: %.0f%% of the samples (%" PRIu64
			") were its own; take a longer --sample-period for truer shares\n",
			"warning:", format_ns(buf2, each), pct, sampling);
	}
}

int report_sampling_costly(const struct zp_profile *p, uint64_t *each_ns, double *pct)
{
	/* the samples zond's own handling filled (runtime/linux/sample.c on_sample): the
	   handler's time against the period, over the run (not a few cold first samples) */
	uint64_t all = meta_count(p, "samples"), cost = meta_count(p, "sample_cost_ns"),
		 sampling = meta_count(p, "samples_sampling");
	if (!all)
		return 0;
	*each_ns = cost / all;
	*pct = 100.0 * (double)sampling / (double)all;
	return sampling >= SAMPLE_COST_WARN_MIN && sampling * 100 >= all * SAMPLE_COST_WARN_PCT;
}

/* Sampling that stopped for a reason other than seccomp (put_seccomp says that one). */
static void put_sampling_stopped(FILE *out, const struct zp_profile *p)
{
	const char *stopped = profile_meta(p, "sampling_stopped");
	if (stopped && !profile_meta(p, "seccomp"))
		fprintf(out, "%-11ssampling stopped: %s\n", "warning:", stopped);
}

/*
 * The timeline's dropped events and why: a full ring (--timeline-size), or
 * threads that ended and whose slots new threads took, their rings not kept
 * (QA s15 W1 F2: 2% of a thread pool's calls kept, the line named the ring
 * alone, and a larger ring changed nothing).
 */
static void put_timeline_dropped(FILE *out, const struct zp_profile *p)
{
	const char *dropped = profile_meta(p, "timeline_dropped");
	const char *ended = profile_meta(p, "timeline_ended_threads");
	const char *keep = profile_meta(p, "timeline_keep");
	if (!dropped)
		return;
	fprintf(out, "%-11stimeline_dropped = %s events (", "warning:", dropped);
	if (ended)
		fprintf(out, "%s%s of threads that ended with their slots taken by new threads, "
			     "their timelines not kept: --threads as many as the run starts keeps "
			     "them",
			strcmp(ended, dropped) ? "" : "all ", ended);
	if (!ended || strcmp(ended, dropped))
		fprintf(out, "%sthe timeline keeps the %s", ended ? "; the others a full ring's: " : "",
			keep ? keep : "oldest");
	fputs(")\n", out);
}

/*
 * What each run meta fact that weakens the figures means: the header's
 * "warning:" lines and a collector's end of run (launch.c) read this one
 * table.  A lost_* fact not in it counts what a full table dropped.
 * bare_means: how a bare-metal run says it, when not the same.
 */
static const struct {
	const char *key, *means, *bare_means;
} run_warnings[] = {
	{"lost_room", "processes whose raw data had no room for all it was to hold "
		      "(ulimit -f, ulimit -v or a full disk)", NULL},
	{"lost_threads_room", "threads not recorded: no room for their data (ulimit -f, "
			      "ulimit -v or a full disk), not a full table", NULL},
	{"lost_processes", "processes not recorded: they could not write zond's raw directory "
			   "(did the program change its user or root: setuid, chroot?)", NULL},
	{"lost_processes_room", "processes not recorded: no room for their raw data (ulimit -f, "
				"ulimit -v or a full disk)", NULL},
	{"lost_threads_access", "threads not recorded: their process could no longer reach its "
				"raw file (did the program change its user or root: setuid, "
				"chroot?), not a full table", NULL},
	{"lost_access", "processes that could no longer reach their raw file for all their data "
			"(did the program change its user or root: setuid, chroot?)", NULL},
	{"lost_thread_calls", "calls made by the threads not recorded (the lost_threads "
			      "lines say why), counted on no function", NULL},
	{"lost_modules", "loaded modules not recorded: the module table was full (their calls: "
			 "lost_module_calls)", NULL},
	{"lost_module_calls", "calls of functions of modules not recorded (lost_modules), "
			      "counted on no function", NULL},
	{"lost_stacks", "suspended coroutine stacks (swapcontext, setcontext) whose open calls "
			"zond had no memory left to keep: the calls they made once resumed have "
			"no callers (lost_stack_calls); no option changes it, --depth included", NULL},
	{"lost_shared_tls_calls", "calls of tasks sharing their parent's TLS (clone without "
				  "CLONE_SETTLS) were not recorded: more such tasks at once than "
				  "zond keeps apart (64 per thread, 8 threads), whose calls and their "
				  "creator's one shadow stack cannot tell apart; no option changes it", NULL},
	{"lost_stack_calls", "calls made on resumed coroutine stacks whose callers zond could not "
			     "keep (lost_stacks, or stacks switched away in the parent of a forked "
			     "child): counted on their functions, on no calling context", NULL},
	{"lost_raw_files", "processes whose raw files could not be read: not in the run, their "
			   "files kept in zond's raw directory", NULL},
	{"lost_depth_calls", "calls deeper than a thread's shadow stack holds, counted in no "
			     "figure", NULL},
	{"lost_seccomp_calls", "calls of threads that started measured code after the program "
			       "put itself under seccomp, counted in no figure", NULL},
	{"lost_process_calls", "calls made in forked children that found no free block of the "
			       "run's, counted in no figure", NULL},
	{"unstacked_calls", "calls signal handlers made while a probe ran: counted on their "
			    "functions, on no edge or calling context",
	 "calls interrupt handlers made while a probe ran: counted on their functions, on no "
	 "edge or calling context"},
	{"inexact_sites", "call sites whose prologue or epilogue outside the hooks the runtime "
			  "could not count from the code: their functions' cycles are short by "
			  "those instructions", NULL},
	{"host_clock", "QEMU ran without -icount: mcycle followed the host's clock, the cycles are "
		       "not instructions and the figures estimates", NULL},
	{"clamped_times", "bare metal: times that would have gone below 0, held at 0 (a clock "
			  "that is not instructions, QEMU without -icount): estimates", NULL},
	{"calls_cut_short", "calls still running where the data end, a partial run: timed up "
			    "to there, not in min and max", NULL},
	{"inject_calls_untimed", "calls counted without their time: left by longjmp, a context "
				 "switch or an exception", NULL},
	{"inject_calls_untimed_no_clock", "calls counted without their time: the counter could "
					  "not be read (seccomp, a counter closed by the program)", NULL},
	{"inject_counters_lost", "threads whose counter the program closed behind zond's back: "
				 "their later calls untimed", NULL},
};

/* The run's clock says a bare-metal target: no signals there, but interrupt handlers. */
static int bare_run(const struct zp_profile *p)
{
	return p->run.clock && strcmp(p->run.clock, "mcycle") == 0;
}

const char *report_warning_means(const struct zp_profile *p, const char *key)
{
	for (size_t i = 0; i < sizeof run_warnings / sizeof run_warnings[0]; i++)
		if (strcmp(key, run_warnings[i].key) == 0)
			return bare_run(p) && run_warnings[i].bare_means ? run_warnings[i].bare_means
									  : run_warnings[i].means;
	return strncmp(key, "lost_", 5) == 0 ? "a table was full" : NULL;
}

/*
 * A process under seccomp: zond's runtime made no system call from then on
 * (doc/raw-format.md), and in strict mode read no clock.
 */
static void put_seccomp(FILE *out, const struct zp_profile *p)
{
	const char *mode = profile_meta(p, "seccomp");
	if (!mode)
		return;
	const char *at = profile_meta(p, "seccomp_at_ns");
	char buf[64];
	if (profile_meta(p, "inject_records")) /* zond inject: no time of the call */
		fprintf(out,
			"%-11sseccomp (%s): zond's payload made no system call from then on "
			"(threads started later not measured)",
			"warning:", mode);
	else
		fprintf(out,
			"%-11sseccomp (%s) from %s in: zond made no system call from then on "
			"(%sthreads and child processes started later not recorded)",
			"warning:", mode, format_ns(buf, at ? strtoull(at, NULL, 10) : 0),
			profile_meta(p, "sample_period_ns") ? "sampling stopped; " : "");
	if (!strcmp(mode, "strict") && (!profile_meta(p, "inject_records") ||
					  profile_meta(p, "inject_calls_untimed_no_clock")))
		fputs("; the clock stopped there: later calls counted, not timed", out);
	putc('\n', out);
}

const char *report_contexts_note(const struct zp_profile *p, char *buf, size_t len)
{
	const char *runs = profile_meta(p, "runs_without_contexts");
	const char *combined = profile_meta(p, "runs_combined");
	if (!runs)
		return NULL;
	int one = !strchr(runs, ',');
	snprintf(buf, len,
		 "run%s %s of the %s combined ha%s no calling contexts: the "
		 "campaign's trees, call edges and stacks are rebuilt from every run's call "
		 "edges (they may not all have happened), the other runs' real stacks left out",
		 one ? "" : "s", runs, combined ? combined : "?", one ? "s" : "ve");
	return buf;
}

void report_header(const struct zp_profile *p, FILE *out)
{
	const struct zp_run *r = &p->run;
	char buf[128];
	if (r->id)
		fprintf(out, "%-11s%" PRId64 "\n", "run:", r->id);
	put_field(out, "campaign:", r->campaign);
	/* a campaign's runs combined: the facts above and below are its newest run's */
	const char *combined = profile_meta(p, "runs_combined");
	if (combined) {
		snprintf(buf, sizeof buf, "%s combined (the facts shown are the newest run's)",
			 combined);
		put_field(out, "runs:", buf);
	}
	/* runs that measured different events: each cost is some runs', calls are all runs' */
	const char *partial = profile_meta(p, "events_in_some_runs");
	if (partial)
		fprintf(out, "%-11s%s: their costs and averages are those runs' only, calls "
			     "count every run\n",
			"warning:", partial);
	/* runs that measured different functions: a caller's self less the callees measured in
	   other runs, by the call graph of a pass that measured them all (doc/inject.md) */
	const char *graph = profile_meta(p, "self_from_graph");
	if (graph) {
		fprintf(out, "%-11scallees measured in other runs taken out, at their average per "
			     "call, by the calls of the call graph (campaign ",
			"self:");
		report_put_text(out, graph, 0);
		fputs(")\n", out);
		const char *missing = profile_meta(p, "self_not_in_graph");
		if (missing)
			fprintf(out, "%-11s%s functions not in the call graph: their self may hold "
				     "callees measured in other runs (doc/inject.md)\n",
				"warning:", missing);
	}
	if (profile_meta(p, "functions_in_some_runs"))
		fprintf(out, "%-11sthe runs measured different functions and no call graph of them "
			     "is stored: a function's self holds the callees its own run did not "
			     "measure, counted again as their own (read calls and totals; "
			     "doc/inject.md)\n",
			"warning:");
	/* a campaign of runs with and without contexts: all read from call edges */
	char note[512];
	if (report_contexts_note(p, note, sizeof note))
		fprintf(out, "%-11s%s\n", "warning:", note);
	const char *window = profile_meta(p, "time_window");
	if (window) {
		snprintf(buf, sizeof buf, "%s of the timeline (calls and times recomputed from it)",
			 window);
		put_field(out, "window:", buf);
	}
	put_field(out, "command:", r->command);
	put_field(out, "collector:", r->collector);
	put_field(out, "host:", r->host);
	put_field(out, "arch:", r->arch);
	put_date(out, r->start_ns);
	if (r->duration_ns > 0)
		put_field(out, "duration:", format_ns(buf, (uint64_t)r->duration_ns));
	put_end(out, p);
	fprintf(out, "%-11s%zu\n", "threads:", p->nthreads);
	put_field(out, "clock:", r->clock);
	/* the runtime's expert knobs, passed on from zond's environment: the run is not plain */
	put_field(out, "knobs:", profile_meta(p, "zond_env"));
	put_samples(out, p);
	put_sampling_stopped(out, p);
	put_seccomp(out, p);
	if (r->overhead_ns > 0) {
		/* two decimals as every time has (a clock's whole cycles: none) */
		double ns = r->overhead_ns;
		snprintf(buf, sizeof buf, "probe overhead of %.*f ns per call subtracted",
			 ns == (double)(uint64_t)ns ? 0 : 2, ns);
		put_field(out, "overhead:", buf);
	}
	/* lost_* facts mean the collector dropped data: the numbers are incomplete. */
	for (size_t i = 0; i < r->nmeta; i++)
		if (strncmp(r->meta[i].key, "lost_", 5) == 0)
			fprintf(out, "%-11s%s = %s (%s; the profile is incomplete)\n", "warning:",
				r->meta[i].key, r->meta[i].value,
				report_warning_means(p, r->meta[i].key));
	for (size_t i = 0; i < sizeof run_warnings / sizeof run_warnings[0]; i++) {
		const char *key = run_warnings[i].key, *value = profile_meta(p, key);
		if (value && strncmp(key, "lost_", 5) != 0 && strcmp(value, "0") != 0)
			fprintf(out, "%-11s%s = %s (%s)\n", "warning:", key, value,
				report_warning_means(p, key));
	}
	put_timeline_dropped(out, p);
	putc('\n', out);
}
