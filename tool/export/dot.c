/*
 * dot.c - the call graph as a Graphviz digraph.
 *
 * One node per function, block or basic block with activity, labelled with
 * its name, self and inclusive cost with their share of the run, and its
 * calls; one edge per call edge, labelled with its calls and inclusive cost,
 * drawn thicker as its share grows.  Node ids are n<node id>, so names only
 * ever appear inside quoted labels.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgraph.h"
#include "report/format.h"

/*
 * Graphviz refuses a whole file with a quoted string over 16384 bytes (its
 * scanner's token buffer), which a C++ template's demangled name can pass:
 * a longer label keeps its first and last parts around an ellipsis.
 */
enum { LABEL_HEAD = 2400, LABEL_TAIL = 1200 };

/* A UTF-8 character's continuation byte. */
static int is_continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

static void put_label_char(FILE *out, char c)
{
	if (c == '"' || c == '\\')
		fprintf(out, "\\%c", c);
	else if (c == '\n')
		fputs("\\n", out);
	else if ((unsigned char)c < 0x20 || c == 0x7f)
		putc('?', out); /* XML, which dot writes, forbids them */
	else
		putc(c, out);
}

/*
 * A DOT quoted string as a label reads it: \" and \\ escaped, breaks as \n,
 * other control characters as ?, valid UTF-8 (Graphviz reads labels as UTF-8),
 * at most LABEL_HEAD + LABEL_TAIL bytes of it (cut between characters).
 */
static void put_label_text(FILE *out, const char *text)
{
	char *utf8 = export_utf8(text);
	size_t len = strlen(utf8), head = len, tail = len;
	if (len > LABEL_HEAD + LABEL_TAIL) {
		for (head = LABEL_HEAD; is_continuation(utf8[head]); head--)
			;
		for (tail = len - LABEL_TAIL; is_continuation(utf8[tail]); tail++)
			;
	}
	for (size_t i = 0; i < head; i++)
		put_label_char(out, utf8[i]);
	if (tail < len) {
		fputs("\xe2\x80\xa6", out); /* ... */
		for (size_t i = tail; i < len; i++)
			put_label_char(out, utf8[i]);
	}
	free(utf8);
}

static const char *kind_style(enum zp_node_kind kind)
{
	switch (kind) {
	case ZP_BLOCK: return ", style=dashed";
	case ZP_BASIC_BLOCK: return ", shape=ellipse";
	default: return "";
	}
}

static void put_node(FILE *out, const struct zp_view *v, int metric, uint64_t total, uint32_t n)
{
	const struct zp_stat *s = &v->nodes[n];
	const struct zp_event *ev = metric_event(v->p, metric);
	char cost[FORMAT_LEN], share[FORMAT_LEN];
	fprintf(out, "\tn%" PRIu32 " [label=\"", n);
	put_label_text(out, v->p->nodes[n].name);
	if (metric != METRIC_CALLS) {
		fprintf(out, "\\nself %s (%s)", format_cost(cost, s->self[metric], ev, 0),
			format_share(share, s->self[metric], total));
		fprintf(out, "\\ntotal %s (%s)", format_cost(cost, s->incl[metric], ev, 0),
			format_share(share, s->incl[metric], total));
	}
	fprintf(out, "\\n%" PRIu64 " call%s\"%s];\n", s->calls, s->calls == 1 ? "" : "s",
		kind_style(v->p->nodes[n].kind));
}

static void put_edge(FILE *out, const struct zp_view *v, int metric, uint64_t total,
		     const struct zp_edge *e)
{
	const struct zp_event *ev = metric_event(v->p, metric);
	uint64_t w = metric_edge(e, metric);
	double share = total ? (double)w / (double)total : 0;
	char cost[FORMAT_LEN];
	fprintf(out, "\tn%" PRIu32 " -> n%" PRIu32 " [label=\"%" PRIu64 " call%s", e->caller,
		e->callee, e->calls, e->calls == 1 ? "" : "s");
	if (metric != METRIC_CALLS)
		fprintf(out, "\\n%s", format_cost(cost, w, ev, 0));
	fprintf(out, "\", penwidth=%.2f];\n", 1 + 4 * (share > 1 ? 1 : share));
}

/* A node is drawn when it did something and its inclusive share is big enough. */
static int is_shown(const struct zp_view *v, int metric, uint64_t total, double min_share,
		    uint32_t n)
{
	const struct zp_stat *s = &v->nodes[n];
	int active = s->calls != 0 || (metric != METRIC_CALLS && s->incl[metric] != 0);
	if (!active)
		return 0;
	return min_share <= 0 ||
	       (total && (double)metric_incl(s, metric) >= min_share * (double)total);
}

int export_dot(const struct zp_profile *p, const struct export_options *o, FILE *out,
	       struct zerr *err)
{
	if (export_check_options(p, o, err) < 0)
		return -1;
	int metric = metric_pick(p, o->event);
	struct zp_view *v = callgraph_view(p, o->thread);
	uint64_t total = metric_total(v, metric);
	unsigned char *shown = zp_xcalloc(p->nnodes, 1);

	fputs("digraph zond {\n\tgraph [labelloc=t, label=\"", out);
	if (p->run.command && *p->run.command) {
		put_label_text(out, p->run.command);
		fputs("\\n", out);
	}
	put_label_text(out, metric == METRIC_CALLS ? "calls" : p->events[metric].name);
	fputs("\"];\n\tnode [shape=box, fontname=\"Helvetica\"];\n", out);
	for (uint32_t n = 0; n < p->nnodes; n++) {
		shown[n] = (unsigned char)is_shown(v, metric, total, o->min_share, n);
		if (shown[n])
			put_node(out, v, metric, total, n);
	}
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		if (e->kind == ZP_CALL && e->caller != ZP_NONE && shown[e->caller] &&
		    shown[e->callee])
			put_edge(out, v, metric, total, e);
	}
	fputs("}\n", out);

	free(shown);
	profile_view_free(v);
	if (ferror(out))
		return zerr_set(err, "cannot write the dot graph");
	return 0;
}
