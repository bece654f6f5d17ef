/*
 * chrome.c - the run's timeline as Chrome's trace event JSON (the JSON
 * object format of the "Trace Event Format" document), which Perfetto UI,
 * chrome://tracing and speedscope open.
 *
 * One complete event ("ph": "X") per span of the timeline (profile.h struct
 * zp_span), in the spans' order: name the node's, "ts" and "dur" in
 * microseconds since the run's start (instructions, for a timeline counted
 * in instructions), "pid" and "tid" the thread's.  Metadata events name each
 * process (the run's command for its first process, else the process's main
 * thread's name, the program it ran last) and thread.  A span that was cut (entered
 * before the timeline's first kept event, or never seen ending) says so in
 * its args.  A run without a timeline is an error, before anything is
 * written.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put_time(FILE *out, int64_t t, int ns)
{
	if (!ns) {
		fprintf(out, "%" PRId64, t);
		return;
	}
	/* ns as us with three decimals: exact, and no float rounding */
	uint64_t a = t < 0 ? 0 - (uint64_t)t : (uint64_t)t;
	fprintf(out, "%s%" PRIu64 ".%03" PRIu64, t < 0 ? "-" : "", a / 1000, a % 1000);
}

/* Starts the next element of traceEvents. */
static void next(FILE *out, int *n)
{
	fputs((*n)++ ? ",\n{" : "{", out);
}

/*
 * A process's name: the run's command for the run's first process, else the
 * name of its main thread (tid = pid), the program it ran last (an exec'ed
 * image names the thread), else of its first thread.
 */
static const char *process_name(const struct zp_profile *p, int64_t pid)
{
	if (pid == p->run.pid && p->run.command)
		return p->run.command;
	const char *first = NULL;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct zp_thread *t = &p->threads[i];
		if (t->pid != pid || !t->name || !*t->name)
			continue;
		if (t->tid == pid)
			return t->name;
		if (!first && t->tid)
			first = t->name;
	}
	return first ? first : p->run.command ? p->run.command : "";
}

/* Metadata events: the name of each process (process_name) and thread, each once. */
static void put_names(FILE *out, const struct zp_profile *p, uint32_t thread, int *n)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct zp_thread *t = &p->threads[i];
		if (thread != ZP_NONE && i != thread)
			continue;
		size_t before = 0; /* a process's threads need not be contiguous: named once */
		while (thread == ZP_NONE && before < i && p->threads[before].pid != t->pid)
			before++;
		if (thread != ZP_NONE || before == i) {
			next(out, n);
			fprintf(out,
				"\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRId64
				",\"tid\":%" PRId64 ",\"args\":{\"name\":",
				t->pid, t->tid);
			json_put_string(out, process_name(p, t->pid));
			fputs("}}", out);
		}
		next(out, n);
		fprintf(out,
			"\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
			",\"args\":{\"name\":",
			t->pid, t->tid);
		json_put_string(out, t->name ? t->name : "");
		fputs("}}", out);
	}
}

static void put_span(FILE *out, const struct zp_profile *p, const struct zp_span *sp,
		     int64_t origin, int ns)
{
	const struct zp_thread *t = &p->threads[sp->thread];
	fputs("\"name\":", out);
	json_put_string(out, p->nodes[sp->node].name);
	fputs(",\"cat\":\"function\",\"ph\":\"X\",\"ts\":", out);
	put_time(out, sp->start - origin, ns);
	fputs(",\"dur\":", out);
	put_time(out, sp->end - sp->start, ns);
	fprintf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64, t->pid, t->tid);
	if (sp->flags & (ZP_SPAN_NO_START | ZP_SPAN_NO_END))
		fprintf(out, ",\"args\":{\"entered_before_timeline\":%s,\"end_unknown\":%s}",
			sp->flags & ZP_SPAN_NO_START ? "true" : "false",
			sp->flags & ZP_SPAN_NO_END ? "true" : "false");
	else if (sp->flags & (ZP_SPAN_CONTINUED | ZP_SPAN_SUSPENDED))
		fprintf(out, ",\"args\":{\"continued\":%s,\"suspended\":%s}",
			sp->flags & ZP_SPAN_CONTINUED ? "true" : "false",
			sp->flags & ZP_SPAN_SUSPENDED ? "true" : "false");
	fputc('}', out);
}

int export_chrome(const struct zp_profile *p, const struct export_options *o, FILE *out,
		  struct zerr *err)
{
	const char *unit = profile_meta(p, "timeline_unit");
	if (!unit)
		return zerr_set(err, "run %" PRId64 " has no timeline: %s", p->run.id,
				profile_timeline_howto(p));
	int ns = strcmp(unit, "ns") == 0, n = 0;
	int64_t origin = profile_timeline_origin(p);
	fprintf(out,
		"{\"displayTimeUnit\":\"ns\",\"otherData\":{\"zond_run\":%" PRId64
		",\"timeline_unit\":",
		p->run.id);
	json_put_string(out, unit);
	fputs("},\n\"traceEvents\":[\n", out);
	put_names(out, p, o->thread, &n);
	for (size_t i = 0; i < p->nspans; i++) {
		const struct zp_span *sp = &p->spans[i];
		if (o->thread != ZP_NONE && sp->thread != o->thread)
			continue;
		next(out, &n);
		put_span(out, p, sp, origin, ns);
	}
	fputs("\n]}\n", out);
	if (ferror(out))
		return zerr_set(err, "write error");
	return 0;
}
