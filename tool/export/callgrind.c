/*
 * callgrind.c - the Callgrind profile format, version 1.
 *
 * Every node (function, block, basic block) becomes an fn= entry under its
 * ob= (module) and fl= (source file), with its self cost on its own line;
 * every call edge of the view becomes cfn=/calls= lines under its caller,
 * with the inclusive cost along the edge on the call site's line.  Names
 * are compressed: "(id) name" the first time, "(id)" after.  doc/reports.md
 * explains the choices (event names, counts-only runs, what is left out).
 */
#define _GNU_SOURCE /* qsort_r */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgraph.h"
#include "report/format.h"
#include "report/report.h"

#ifndef ZOND_VERSION
#define ZOND_VERSION "unknown"
#endif

/* The three name spaces of the format: objects, files, functions. */
enum { NAME_OB, NAME_FL, NAME_FN, NAME_KINDS };

struct names {
	uint32_t *id[NAME_KINDS];        /* per node: the compression id of its name */
	unsigned char *used[NAME_KINDS]; /* per id: already written out in full */
};

static const char *node_string(const struct zp_node *n, int kind)
{
	const char *s = kind == NAME_OB ? n->module : kind == NAME_FL ? n->file : n->name;
	return *s ? s : "???";
}

struct name_order {
	const struct zp_profile *p;
	int kind;
};

static int compare_names(const void *a, const void *b, void *arg)
{
	const struct name_order *o = arg;
	const struct zp_node *na = &o->p->nodes[*(const uint32_t *)a];
	const struct zp_node *nb = &o->p->nodes[*(const uint32_t *)b];
	return strcmp(node_string(na, o->kind), node_string(nb, o->kind));
}

/* Gives equal strings equal ids (from 1) by sorting the nodes on the string. */
static void number_names(struct names *nm, const struct zp_profile *p, int kind)
{
	struct name_order o = {p, kind};
	uint32_t *order = zp_xcalloc(p->nnodes, sizeof *order);
	for (size_t i = 0; i < p->nnodes; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, p->nnodes, sizeof *order, compare_names, &o);
	nm->id[kind] = zp_xcalloc(p->nnodes, sizeof *nm->id[kind]);
	nm->used[kind] = zp_xcalloc(p->nnodes + 1, 1);
	uint32_t id = 0;
	for (size_t i = 0; i < p->nnodes; i++) {
		if (i == 0 || compare_names(&order[i - 1], &order[i], &o) != 0)
			id++;
		nm->id[kind][order[i]] = id;
	}
	free(order);
}

/* The format is line based: a line break inside a name would end it. */
static void put_text(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static void put_name(FILE *out, const char *key, struct names *nm, int kind,
		     const struct zp_node *n, uint32_t node)
{
	uint32_t id = nm->id[kind][node];
	fprintf(out, "%s=(%" PRIu32 ")", key, id);
	if (!nm->used[kind][id]) {
		nm->used[kind][id] = 1;
		putc(' ', out);
		put_text(out, node_string(n, kind));
	}
	putc('\n', out);
}

static void put_costs(FILE *out, int line, const uint64_t *cost, size_t ncols)
{
	fprintf(out, "%d", line);
	for (size_t i = 0; i < ncols; i++)
		fprintf(out, " %" PRIu64, cost[i]);
	putc('\n', out);
}

/* Event names become column names: letters, digits and '_' only, distinct. */
static void column_name(const struct zp_profile *p, size_t ev, char *buf, size_t size)
{
	size_t n = 0;
	for (const char *s = p->events[ev].name; *s && n + 1 < size; s++)
		buf[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
					   (*s >= '0' && *s <= '9')
				   ? *s
				   : '_';
	buf[n] = 0;
	for (size_t i = 0; i < ev; i++) {
		char other[64];
		column_name(p, i, other, sizeof other);
		if (strcmp(other, buf) == 0) {
			snprintf(buf + n, size - n, "_%zu", ev);
			return;
		}
	}
}

static void put_header(FILE *out, const struct zp_profile *p, const struct export_options *o,
		       const uint64_t *total, size_t ncols)
{
	fputs("# callgrind format\nversion: 1\ncreator: zond " ZOND_VERSION "\n", out);
	fprintf(out, "pid: %" PRId64 "\ncmd: ", p->run.pid);
	put_text(out, p->run.command ? p->run.command : "");
	putc('\n', out);
	/* tables that overflowed in the collector: the numbers below are incomplete */
	for (size_t i = 0; i < p->run.nmeta; i++)
		if (strncmp(p->run.meta[i].key, "lost_", 5) == 0)
			fprintf(out, "desc: Warning: %s = %s (%s; the profile is incomplete)\n",
				p->run.meta[i].key, p->run.meta[i].value,
				report_warning_means(p, p->run.meta[i].key));
	if (o->thread != ZP_NONE)
		fprintf(out, "thread: %" PRId64 "\n", p->threads[o->thread].tid);
	fputs("positions: line\n", out);
	char name[64];
	for (size_t i = 0; i < p->nevents; i++) {
		column_name(p, i, name, sizeof name);
		fprintf(out, "event: %s : ", name);
		put_text(out, p->events[i].name);
		fputs(" (", out);
		put_text(out, p->events[i].unit);
		fputs(")\n", out);
	}
	if (p->nevents == 0)
		fputs("event: calls : Calls (counts-only run)\n", out);
	fputs("events:", out);
	for (size_t i = 0; i < p->nevents; i++) {
		column_name(p, i, name, sizeof name);
		fprintf(out, " %s", name);
	}
	fputs(p->nevents ? "\n" : " calls\n", out);
	fputs("summary:", out);
	for (size_t i = 0; i < ncols; i++)
		fprintf(out, " %" PRIu64, total[i]);
	fputs("\n\n", out);
}

static int is_active(const struct zp_view *v, const struct callgraph *g, uint32_t n)
{
	const struct zp_stat *s = &v->nodes[n];
	if (s->calls || g->out_first[n] != g->out_first[n + 1])
		return 1;
	for (size_t e = 0; e < v->p->nevents; e++)
		if (s->self[e])
			return 1;
	return 0;
}

static void put_node(FILE *out, const struct zp_view *v, const struct callgraph *g,
		     struct names *nm, uint32_t n)
{
	const struct zp_profile *p = v->p;
	const struct zp_node *node = &p->nodes[n];
	size_t ncols = p->nevents ? p->nevents : 1;
	/* A counts-only run has one column, calls: a node's own calls are its self cost. */
	put_name(out, "ob", nm, NAME_OB, node, n);
	put_name(out, "fl", nm, NAME_FL, node, n);
	put_name(out, "fn", nm, NAME_FN, node, n);
	put_costs(out, node->line, p->nevents ? v->nodes[n].self : &v->nodes[n].calls, ncols);
	for (size_t i = g->out_first[n]; i < g->out_first[n + 1]; i++) {
		const struct zp_edge *e = &v->edges[g->out[i]];
		const struct zp_node *callee = &p->nodes[e->callee];
		/*
		 * As valgrind's callgrind: a callee's object and file only when
		 * they are not the caller's.  callgrind_annotate takes the current
		 * directory off fl= names but not off cfl= ones, so a cfl= repeating
		 * fl= would name the callee apart from its own entry.
		 */
		if (nm->id[NAME_OB][e->callee] != nm->id[NAME_OB][n])
			put_name(out, "cob", nm, NAME_OB, callee, e->callee);
		if (nm->id[NAME_FL][e->callee] != nm->id[NAME_FL][n])
			put_name(out, "cfl", nm, NAME_FL, callee, e->callee);
		put_name(out, "cfn", nm, NAME_FN, callee, e->callee);
		fprintf(out, "calls=%" PRIu64 " %d\n", e->calls, callee->line);
		put_costs(out, e->site_line ? e->site_line : node->line,
			  p->nevents ? e->incl : &e->calls, ncols);
	}
	putc('\n', out);
}

int export_callgrind(const struct zp_profile *p, const struct export_options *o, FILE *out,
		     struct zerr *err)
{
	if (export_check_options(p, o, err) < 0)
		return -1;
	if (p->ninstrs)
		return export_callgrind_instrs(p, o, out, err);
	struct zp_view *v = callgraph_view(p, o->thread);
	struct callgraph g;
	callgraph_build(&g, v);
	struct names nm;
	for (int k = 0; k < NAME_KINDS; k++)
		number_names(&nm, p, k);

	uint64_t calls = metric_total(v, METRIC_CALLS);
	const uint64_t *total = p->nevents ? v->total : &calls;
	size_t ncols = p->nevents ? p->nevents : 1;
	put_header(out, p, o, total, ncols);
	for (uint32_t n = 0; n < p->nnodes; n++)
		if (is_active(v, &g, n))
			put_node(out, v, &g, &nm, n);
	fputs("totals:", out);
	for (size_t i = 0; i < ncols; i++)
		fprintf(out, " %" PRIu64, total[i]);
	putc('\n', out);

	for (int k = 0; k < NAME_KINDS; k++) {
		free(nm.id[k]);
		free(nm.used[k]);
	}
	callgraph_free(&g);
	profile_view_free(v);
	if (ferror(out))
		return zerr_set(err, "cannot write the callgrind profile");
	return 0;
}
