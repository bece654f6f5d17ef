/*
 * rows.h - what the text reports share: the metric they show, the order of
 * their rows, the name filter, and how a node's name prints.
 *
 * A node is "active" in a view when it was called or cost something there;
 * only active nodes become rows.  Rows sort by the report's sort key, ties
 * broken by name and then node id, so that output is the same every time.
 */
#ifndef ZOND_REPORT_ROWS_H
#define ZOND_REPORT_ROWS_H

#include <stdio.h>

#include "format.h"
#include "report.h"

/* The metric of o->event; an event the run lacks falls back to the first. */
int report_metric(const struct zp_profile *p, const struct report_options *o);

int report_is_active(const struct zp_view *v, uint32_t n);

/* The active nodes of v in o->sort order (malloc'ed, *n entries). */
uint32_t *report_rows(const struct zp_view *v, const struct report_options *o, int metric,
		      size_t *n);

/* Sorts indexes into v->edges dearest first in the metric, ties in view order. */
void report_sort_edges(const struct zp_view *v, int metric, uint32_t *edges, size_t n);

/* True when o has no glob or name matches it. */
int report_matches(const struct report_options *o, const char *name);

/*
 * text with control characters as ? (a tab, a newline would break the
 * columns and lines); in_path: ';' as ':' too (a name in a path joined by ';').
 */
void report_put_text(FILE *out, const char *text, int in_path);

/*
 * The name of p's node (control characters as ?: a tab would break the
 * columns), with " [block]" or " [bb]" after blocks and basic blocks, and
 * " (libplug.so)" after a function whose name a function of another object
 * has too (its path when the objects' base names are alike).
 */
void report_put_name(FILE *out, const struct zp_profile *p, uint32_t node);

/* One line naming what the numbers are: "time (ns), total 13.50 us" or "calls". */
void report_put_metric(FILE *out, const struct zp_view *v, int metric, int raw);

/*
 * Column widths for the numbers of a report of v: the defaults (calls 10,
 * costs 11) widened to the largest calls and cost of v's nodes, so that a
 * wide number never breaks the columns.  Every cost a report prints (of a
 * node, edge, context, per call) is at most the largest node's, and a
 * smaller cost never prints wider.
 */
struct report_widths {
	int calls, cost;
};
struct report_widths report_widths(const struct zp_view *v, int metric, int raw);

#endif
