/*
 * callgrind_bb.c - Callgrind files with instruction positions, for runs
 * that carry per-instruction costs (zond trace).
 *
 * export_callgrind_instrs (what `--format callgrind` writes for such runs):
 * one fn= per function with a cost line per executed instruction
 * ("positions: instr line", DWARF lines), calls= lines at the call site
 * with the inclusive cost along the edge, and the jumps inside the
 * function: jcnd=followed/executed for conditional branches that were
 * taken, jump=count for other transfers that do not simply fall through.
 *
 * export_callgrind_bb (`--format callgrind-bb`): one fn= per basic block,
 * named func+0xoff, so that KCachegrind's call graph view draws the
 * control-flow graph: every transfer between blocks (branches, calls,
 * returns) is a calls= line whose cost is what the target block executes
 * for the transfers along it (count times the target's instructions per
 * execution).  Inclusive costs are therefore not meaningful there; self
 * costs are exact.
 *
 * Names are compressed: "(id) name" the first time, "(id)" after.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgraph.h"

#ifndef ZOND_VERSION
#define ZOND_VERSION "unknown"
#endif

/* One name space of the format (ob, fl, fn): strings to ids. */
struct dict {
	char **names;
	size_t n;
};

static void put_text(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static void put_name(FILE *out, struct dict *d, const char *key, const char *name)
{
	if (!*name)
		name = "???";
	for (size_t i = 0; i < d->n; i++) {
		if (strcmp(d->names[i], name) == 0) {
			fprintf(out, "%s=(%zu)\n", key, i + 1);
			return;
		}
	}
	d->names = zp_xrealloc(d->names, (d->n + 1) * sizeof *d->names);
	d->names[d->n++] = zp_xstrdup(name);
	fprintf(out, "%s=(%zu) ", key, d->n);
	put_text(out, name);
	putc('\n', out);
}

static void free_dict(struct dict *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
}

struct writer {
	const struct zp_profile *p;
	const struct export_options *o;
	FILE *out;
	struct dict ob, fl, fn;
	uint32_t *owner;     /* per node: the node it is written under (function or block) */
	size_t *first, *idx; /* instructions grouped by owner: idx[first[n] .. first[n+1]) */
	uint64_t total;
};

static int wanted(const struct writer *w, uint32_t thread)
{
	return w->o->thread == ZP_NONE || w->o->thread == thread;
}

static uint32_t function_of(const struct zp_profile *p, uint32_t node)
{
	return p->nodes[node].kind == ZP_BASIC_BLOCK && p->nodes[node].parent != ZP_NONE
		       ? p->nodes[node].parent
		       : node;
}

/* Groups the instructions by owner node, each group in address order. */
static void group(struct writer *w, int by_block)
{
	const struct zp_profile *p = w->p;
	w->owner = zp_xcalloc(p->nnodes + 1, sizeof *w->owner);
	for (uint32_t n = 0; n < p->nnodes; n++)
		w->owner[n] = by_block ? n : function_of(p, n);
	w->first = zp_xcalloc(p->nnodes + 2, sizeof *w->first);
	w->idx = zp_xcalloc(p->ninstrs + 1, sizeof *w->idx);
	for (size_t i = 0; i < p->ninstrs; i++)
		if (wanted(w, p->instrs[i].thread))
			w->first[w->owner[p->instrs[i].node] + 1]++;
	for (size_t n = 0; n < p->nnodes; n++)
		w->first[n + 1] += w->first[n];
	size_t *fill = zp_xcalloc(p->nnodes + 1, sizeof *fill);
	for (size_t i = 0; i < p->ninstrs; i++) {
		if (!wanted(w, p->instrs[i].thread))
			continue;
		uint32_t o = w->owner[p->instrs[i].node];
		w->idx[w->first[o] + fill[o]++] = i;
		w->total += p->instrs[i].cost[0];
	}
	free(fill);
	/* insertion sort by address: groups are small and mostly in order already */
	for (size_t n = 0; n < p->nnodes; n++) {
		for (size_t i = w->first[n] + 1; i < w->first[n + 1]; i++) {
			size_t v = w->idx[i], j = i;
			while (j > w->first[n] && p->instrs[w->idx[j - 1]].addr > p->instrs[v].addr) {
				w->idx[j] = w->idx[j - 1];
				j--;
			}
			w->idx[j] = v;
		}
	}
}

static void put_header(struct writer *w)
{
	const struct zp_profile *p = w->p;
	fputs("# callgrind format\nversion: 1\ncreator: zond " ZOND_VERSION "\n", w->out);
	fprintf(w->out, "pid: %" PRId64 "\ncmd: ", p->run.pid);
	put_text(w->out, p->run.command ? p->run.command : "");
	fputs("\npositions: instr line\n", w->out);
	fprintf(w->out, "event: Ir : %s (%s)\nevents: Ir\nsummary: %" PRIu64 "\n\n",
		p->nevents ? p->events[0].name : "Ir", p->nevents ? p->events[0].unit : "",
		w->total);
}

static void put_owner(struct writer *w, uint32_t n)
{
	const struct zp_node *node = &w->p->nodes[n];
	put_name(w->out, &w->ob, "ob", node->module);
	put_name(w->out, &w->fl, "fl", node->file);
	put_name(w->out, &w->fn, "fn", node->name);
}

/*
 * The callee n of a call or jump from owner `from`: its object and file
 * only when they are not the caller's, as valgrind's callgrind writes them
 * (callgrind_annotate takes the current directory off fl= names, not off
 * cfl= ones: a cfl= repeating fl= would name the callee apart).
 */
static void put_callee(struct writer *w, uint32_t n, uint32_t from)
{
	const struct zp_node *node = &w->p->nodes[n], *caller = &w->p->nodes[from];
	if (strcmp(node->module, caller->module) != 0)
		put_name(w->out, &w->ob, "cob", node->module);
	if (strcmp(node->file, caller->file) != 0)
		put_name(w->out, &w->fl, "cfl", node->file);
	put_name(w->out, &w->fn, "cfn", node->name);
}

/* Address and line of the first instruction of node (its entry). */
static void entry_of(const struct writer *w, uint32_t n, uint64_t *addr, int *line)
{
	*addr = w->p->nodes[n].addr;
	*line = w->p->nodes[n].line;
	if (w->first[n] != w->first[n + 1]) {
		const struct zp_instr *in = &w->p->instrs[w->idx[w->first[n]]];
		*addr = in->addr;
		*line = in->line;
	}
}

static void put_instrs(struct writer *w, uint32_t n)
{
	for (size_t i = w->first[n]; i < w->first[n + 1]; i++) {
		const struct zp_instr *in = &w->p->instrs[w->idx[i]];
		fprintf(w->out, "0x%" PRIx64 " %d %" PRIu64 "\n", in->addr, in->line, in->cost[0]);
	}
}

/* Executions of the instruction at addr in owner n (its Ir count). */
static uint64_t executions(const struct writer *w, uint32_t n, uint64_t addr)
{
	uint64_t c = 0;
	for (size_t i = w->first[n]; i < w->first[n + 1]; i++)
		if (w->p->instrs[w->idx[i]].addr == addr)
			c += w->p->instrs[w->idx[i]].cost[0];
	return c;
}

/* The address after addr in owner n's instructions, 0 if none. */
static uint64_t next_addr(const struct writer *w, uint32_t n, uint64_t addr)
{
	for (size_t i = w->first[n]; i < w->first[n + 1]; i++)
		if (w->p->instrs[w->idx[i]].addr > addr)
			return w->p->instrs[w->idx[i]].addr;
	return 0;
}

static void put_function(struct writer *w, uint32_t f, const struct zp_view *v)
{
	const struct zp_profile *p = w->p;
	put_owner(w, f);
	put_instrs(w, f);
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		if (e->kind != ZP_CALL || e->caller != f)
			continue;
		uint64_t addr;
		int line;
		entry_of(w, e->callee, &addr, &line);
		put_callee(w, e->callee, f);
		fprintf(w->out, "calls=%" PRIu64 " 0x%" PRIx64 " %d\n", e->calls, addr, line);
		fprintf(w->out, "0x%" PRIx64 " %d %" PRIu64 "\n", e->site, e->site_line, e->incl[0]);
	}
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		if (e->kind != ZP_JUMP || function_of(p, e->caller) != f ||
		    function_of(p, e->callee) != f)
			continue;
		uint64_t to = p->nodes[e->callee].addr;
		int to_line = p->nodes[e->callee].line;
		if (e->taken)
			fprintf(w->out, "jcnd=%" PRIu64 "/%" PRIu64 " 0x%" PRIx64 " %d\n", e->taken,
				executions(w, f, e->site), to, to_line);
		else if (to != next_addr(w, f, e->site))
			fprintf(w->out, "jump=%" PRIu64 " 0x%" PRIx64 " %d\n", e->calls, to, to_line);
		else
			continue;
		fprintf(w->out, "0x%" PRIx64 " %d\n", e->site, e->site_line);
	}
	putc('\n', w->out);
}

static void put_block(struct writer *w, uint32_t b, const struct zp_view *v)
{
	const struct zp_profile *p = w->p;
	put_owner(w, b);
	put_instrs(w, b);
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		if ((e->kind != ZP_JUMP && e->kind != ZP_TRANSFER) || e->caller != b)
			continue;
		uint64_t addr, runs = 0, ir = 0;
		int line;
		entry_of(w, e->callee, &addr, &line);
		for (size_t k = w->first[e->callee]; k < w->first[e->callee + 1]; k++) {
			const struct zp_instr *in = &p->instrs[w->idx[k]];
			ir += in->cost[0];
			if (in->addr == addr)
				runs += in->cost[0];
		}
		uint64_t cost = runs ? (uint64_t)((double)ir * (double)e->calls / (double)runs) : 0;
		put_callee(w, e->callee, b);
		fprintf(w->out, "calls=%" PRIu64 " 0x%" PRIx64 " %d\n", e->calls, addr, line);
		fprintf(w->out, "0x%" PRIx64 " %d %" PRIu64 "\n", e->site, e->site_line, cost);
	}
	putc('\n', w->out);
}

static int write_instrs(const struct zp_profile *p, const struct export_options *o, FILE *out,
			struct zerr *err, int by_block)
{
	if (export_check_options(p, o, err) < 0)
		return -1;
	struct writer w = {.p = p, .o = o, .out = out};
	struct zp_view *v = callgraph_view(p, o->thread);
	group(&w, by_block);
	put_header(&w);
	for (uint32_t n = 0; n < p->nnodes; n++) {
		if (w.first[n] == w.first[n + 1])
			continue;
		if (by_block)
			put_block(&w, n, v);
		else
			put_function(&w, n, v);
	}
	fprintf(out, "totals: %" PRIu64 "\n", w.total);
	free_dict(&w.ob);
	free_dict(&w.fl);
	free_dict(&w.fn);
	free(w.owner);
	free(w.first);
	free(w.idx);
	profile_view_free(v);
	if (ferror(out))
		return zerr_set(err, "cannot write the callgrind profile");
	return 0;
}

int export_callgrind_instrs(const struct zp_profile *p, const struct export_options *o, FILE *out,
			    struct zerr *err)
{
	return write_instrs(p, o, out, err, 0);
}

int export_callgrind_bb(const struct zp_profile *p, const struct export_options *o, FILE *out,
			struct zerr *err)
{
	if (!p->ninstrs)
		return zerr_set(err, "callgrind-bb needs a run with basic blocks (zond trace)");
	return write_instrs(p, o, out, err, 1);
}
