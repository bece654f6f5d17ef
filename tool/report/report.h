/*
 * report.h - the text reports: flat profile, call graph, call tree.
 *
 * Reports read only the profile model and print to a stdio stream.  Times
 * print in a unit chosen for readability (ns, us, ms, s) unless raw output is
 * asked for; other events print as plain numbers.  doc/reports.md shows and
 * explains every report.
 *
 * Options (o must not be NULL):
 *  - thread picks one thread's numbers (ZP_NONE: all threads summed);
 *    per_thread (flat only) prints one table per thread instead.
 *  - event is the event shown, sorted and shared by; a run with no event
 *    shows calls only, and an index the run lacks falls back to event 0.
 *  - sort and limit order and cut the rows of the flat profile and the
 *    entries of the call graph; the call tree ignores both.
 *  - match (a glob, fnmatch(3)) keeps the flat rows and graph entries of
 *    matching names, and roots the call tree at matching functions.
 *  - Functions, blocks and basic blocks are all rows; blocks carry
 *    " [block]" after their name, basic blocks " [bb]".
 * Rows with equal keys print by name, then node id: output is reproducible.
 */
#ifndef ZOND_REPORT_H
#define ZOND_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../model/profile.h"

enum report_sort { SORT_SELF, SORT_TOTAL, SORT_CALLS, SORT_AVG, SORT_MAX, SORT_NAME };

struct report_options {
	uint32_t thread; /* ZP_NONE: all threads summed */
	int per_thread;  /* flat: one table per thread */
	int event;       /* the event to sort and show percentages by */
	enum report_sort sort;
	int limit;         /* rows, 0 = all */
	int raw_numbers;   /* print numbers in the event's unit, unscaled */
	/* only functions whose name matches one of these globs (NULL-terminated); NULL: all */
	const char *const *match;
};

/* Parses "self", "total", "calls", "avg", "max", "name"; -1 if unknown. */
int report_parse_sort(const char *s);

void report_header(const struct zp_profile *p, FILE *out);
/*
 * Sampled time: 1 when zond's own sampling filled many of the periods (10%
 * of the samples or more, run meta samples_sampling), with its time per
 * sample in ns and that percent; the header and zond record warn.
 */
int report_sampling_costly(const struct zp_profile *p, uint64_t *each_ns, double *pct);

/*
 * What run meta fact key means when it weakens the figures (one table for
 * the header's "warning:" lines and a collector's end of run): a clause
 * without a final stop, NULL when key is no such fact; a lost_* fact of no
 * cause of its own is "a table was full".  p's run says whether its
 * handlers are signal or interrupt handlers (bare metal).
 */
const char *report_warning_means(const struct zp_profile *p, const char *key);
/*
 * A campaign mixing runs with and without calling contexts (meta
 * "runs_without_contexts", its contexts dropped): the one line saying which
 * runs and what that means, "runs 1, 3 of the 4 combined have no calling
 * contexts ...", into buf; NULL for any other profile.
 */
const char *report_contexts_note(const struct zp_profile *p, char *buf, size_t len);
void report_flat(const struct zp_profile *p, const struct report_options *o, FILE *out);
/* gprof-like callers/callees of each function matching o->match (all if NULL). */
void report_graph(const struct zp_profile *p, const struct report_options *o, FILE *out);
/*
 * Top-down call tree from the roots (or from functions matching o->match):
 * the real call paths of p's calling contexts, or, for a run without
 * contexts, paths rebuilt from call edges under a line saying so.
 */
void report_tree(const struct zp_profile *p, const struct report_options *o, FILE *out);

#endif
