/*
 * format.h - the numbers reports and exports share.
 *
 * A single-valued output (a report column, a DOT label, a folded line) shows
 * one "metric": the cost in one event of the run, or the number of calls
 * when the run measured no event (a counts-only run).  metric_pick() turns
 * the user's event index into that choice; the metric_* readers then give
 * self, inclusive and edge values without the caller caring which it is.
 *
 * format_cost() writes a value for reading: times (events whose unit is ns)
 * scale to ns/us/ms/s with two decimals unless raw is set; everything else
 * prints as a plain integer in its own unit.
 */
#ifndef ZOND_FORMAT_H
#define ZOND_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "../model/profile.h"

#define METRIC_CALLS (-1) /* the metric of a run with no event */

/* Long enough for any formatted cost or share. */
#define FORMAT_LEN 32

/*
 * The metric for event index event: event itself when the run has it,
 * METRIC_CALLS when the run has no event or event is METRIC_CALLS (calls
 * asked for by name); -2 when the run has events but not that one.
 */
int metric_pick(const struct zp_profile *p, int event);

uint64_t metric_self(const struct zp_stat *s, int metric);
uint64_t metric_incl(const struct zp_stat *s, int metric);
uint64_t metric_edge(const struct zp_edge *e, int metric);
/* A calling context's self and inclusive value (its calls for METRIC_CALLS). */
uint64_t metric_context_self(const struct zp_context *c, int metric);
uint64_t metric_context_incl(const struct zp_context *c, int metric);
/* The sum of metric_self over every node of the view. */
uint64_t metric_total(const struct zp_view *v, int metric);
/* The event the metric measures, NULL for calls. */
const struct zp_event *metric_event(const struct zp_profile *p, int metric);

/* True when the event counts nanoseconds. */
int format_is_time(const struct zp_event *ev);

/* Writes a time in ns scaled for reading ("950 ns", "1.50 us", "2.00 s"). */
const char *format_ns(char *buf, uint64_t ns);

/* Writes v (a count when ev is NULL) into buf and returns buf. */
const char *format_cost(char *buf, uint64_t v, const struct zp_event *ev, int raw);

/* Writes part as a percentage of whole, "12.34%", into buf and returns buf. */
const char *format_share(char *buf, uint64_t part, uint64_t whole);

#endif
