/*
 * export.h - writers of the formats other tools read.
 *
 * Every exporter reads only the profile model and writes to a stdio stream;
 * it returns 0, or -1 with a message in err when writing failed.
 *
 *   callgrind  Callgrind format 1 (KCachegrind, callgrind_annotate): one
 *              fn= per function with self cost, calls= lines with inclusive
 *              cost, name compression, one event column per model event.
 *   dot        Graphviz digraph of functions and call edges.
 *   folded     "a;b;c value" lines (flamegraph.pl, speedscope), value = self
 *              cost of the path's last frame in the event (calls: its calls
 *              along that path); the real stacks when the run has calling
 *              contexts, else rebuilt from call edges.
 *   json       zond's JSON document, schema in doc/json-schema.md.
 *   speedscope speedscope's JSON file format: one "sampled" profile per
 *              thread, its samples the stacks of the calling contexts
 *              weighted by their self cost in the event (nanoseconds, or
 *              "none" for counts), frames shared; without contexts one-frame
 *              samples per function.
 *   chrome     Chrome's trace event JSON (Perfetto UI, chrome://tracing,
 *              speedscope): the run's timeline, one complete event per call;
 *              a run without a timeline is an error.
 *   pprof      pprof's profile.proto, gzipped (go tool pprof, Pyroscope,
 *              Parca): one sample per calling context (its stack, its calls
 *              and self cost per event), one sample type per event; without
 *              contexts one one-frame sample per (thread, function).
 *
 * doc/reports.md tells how each format maps the model (event column names,
 * counts-only runs, how folded stacks are made from call edges).
 *
 * Options (o must not be NULL): thread is a thread index or ZP_NONE; event
 * is an event index, or METRIC_CALLS (report/format.h) for calls, ignored by
 * a run with no event (counts-only: dot and folded then show calls); an export of a thread or event
 * the run lacks fails with a message before anything is written.
 */
#ifndef ZOND_EXPORT_H
#define ZOND_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../model/profile.h"
#include "../util/error.h"

struct export_options {
	uint32_t thread;  /* ZP_NONE: all threads summed */
	int event;        /* event index for single-valued formats (dot, folded), or METRIC_CALLS */
	double min_share; /* dot: leave out nodes below this share of the total (0..1) */
};

/* 0 if the run has o's thread and event; else -1 with a message in err. */
int export_check_options(const struct zp_profile *p, const struct export_options *o,
			 struct zerr *err);

int export_callgrind(const struct zp_profile *p, const struct export_options *o, FILE *out,
		     struct zerr *err);
/*
 * Runs with per-instruction costs (zond trace): export_callgrind writes them
 * through export_callgrind_instrs ("positions: instr line", jumps);
 * export_callgrind_bb writes one fn= per basic block (callgrind_bb.c).
 */
int export_callgrind_instrs(const struct zp_profile *p, const struct export_options *o, FILE *out,
			    struct zerr *err);
int export_callgrind_bb(const struct zp_profile *p, const struct export_options *o, FILE *out,
			struct zerr *err);
int export_dot(const struct zp_profile *p, const struct export_options *o, FILE *out,
	       struct zerr *err);
int export_folded(const struct zp_profile *p, const struct export_options *o, FILE *out,
		  struct zerr *err);
int export_json(const struct zp_profile *p, const struct export_options *o, FILE *out,
		struct zerr *err);
int export_speedscope(const struct zp_profile *p, const struct export_options *o, FILE *out,
		      struct zerr *err);
int export_chrome(const struct zp_profile *p, const struct export_options *o, FILE *out,
		  struct zerr *err);
int export_pprof(const struct zp_profile *p, const struct export_options *o, FILE *out,
		 struct zerr *err);

/*
 * Writes context c's path, its functions' names root first joined by ';',
 * each name written by put_name (NULL: as in folded stacks, ';' and white
 * space in a name written as ':' and '_').  path: room for cv->ncontexts
 * indexes.
 */
void export_context_path(FILE *out, const struct zp_context_view *cv, uint32_t c, uint32_t *path,
			 void (*put_name)(FILE *out, const char *name));

/*
 * Writes str as a JSON string: UTF-8, quotes, backslashes and control
 * characters escaped, bytes that are not valid UTF-8 as U+FFFD; NULL as null.
 */
void json_put_string(FILE *out, const char *str);

/* Length of the valid UTF-8 sequence at s (1 to 4), 0 when the bytes there are not one. */
size_t export_utf8_len(const unsigned char *s);

/*
 * s with every byte that is not part of valid UTF-8 as U+FFFD (symbol names
 * are bytes, not text; DOT and protobuf strings must be UTF-8): a new string
 * to free.
 */
char *export_utf8(const char *s);

#endif
