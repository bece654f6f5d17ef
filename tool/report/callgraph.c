/*
 * callgraph.c - call edges of a view indexed by caller and by callee, and
 * the call edges summed from calling contexts (callgraph.h says the rule).
 */
#include "callgraph.h"

#include <stdlib.h>
#include <string.h>

/* Counting sort of the call edges on one end (caller or callee). */
static void list_by(const struct zp_view *v, int by_callee, size_t **first, uint32_t **list)
{
	size_t n = v->p->nnodes;
	size_t *at = zp_xcalloc(n + 1, sizeof *at);
	*first = zp_xcalloc(n + 1, sizeof **first);
	*list = zp_xcalloc(v->nedges, sizeof **list);
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		uint32_t end = by_callee ? e->callee : e->caller;
		if (e->kind == ZP_CALL && end != ZP_NONE)
			(*first)[end + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		(*first)[i + 1] += (*first)[i];
	for (size_t i = 0; i < n; i++)
		at[i] = (*first)[i];
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		uint32_t end = by_callee ? e->callee : e->caller;
		if (e->kind == ZP_CALL && end != ZP_NONE)
			(*list)[at[end]++] = (uint32_t)i;
	}
	free(at);
}

void callgraph_build(struct callgraph *g, const struct zp_view *v)
{
	g->v = v;
	list_by(v, 0, &g->out_first, &g->out);
	list_by(v, 1, &g->in_first, &g->in);
}

void callgraph_free(struct callgraph *g)
{
	free(g->out_first);
	free(g->in_first);
	free(g->out);
	free(g->in);
}

int callgraph_is_root_call(const struct callgraph *g, uint32_t n)
{
	for (size_t i = g->in_first[n]; i < g->in_first[n + 1]; i++)
		if (g->v->edges[g->in[i]].caller == ZP_NONE)
			return 1;
	return 0;
}

void context_children_build(struct context_children *k, const struct zp_context_view *cv)
{
	size_t n = cv->ncontexts;
	size_t *at = zp_xcalloc(n + 1, sizeof *at);
	k->first = zp_xcalloc(n + 2, sizeof *k->first);
	k->child = zp_xcalloc(n ? n : 1, sizeof *k->child);
	for (size_t c = 0; c < n; c++) {
		uint32_t parent = cv->contexts[c].parent;
		k->first[(parent == ZP_NONE ? n : parent) + 1]++;
	}
	for (size_t c = 0; c <= n; c++) {
		k->first[c + 1] += k->first[c];
		at[c] = k->first[c];
	}
	for (size_t c = 0; c < n; c++) {
		uint32_t parent = cv->contexts[c].parent;
		k->child[at[parent == ZP_NONE ? n : parent]++] = (uint32_t)c;
	}
	free(at);
}

void context_children_free(struct context_children *k)
{
	free(k->first);
	free(k->child);
}

/*
 * Sets nested[c] for every context c whose node is already active above it
 * (a context of the same node among its ancestors).  A walk down the
 * contexts keeps per node whether it is on the path; iterative, since
 * recursion in the profiled program makes deep paths.
 */
static void mark_nested(const struct zp_context_view *cv, unsigned char *nested)
{
	size_t n = cv->ncontexts;
	struct context_children k;
	context_children_build(&k, cv);
	uint32_t *path = zp_xcalloc(n + 1, sizeof *path);
	uint32_t *active = zp_xcalloc(cv->p->nnodes, sizeof *active); /* per node: on the path */
	size_t *next = zp_xcalloc(n + 1, sizeof *next);
	size_t d = 0;
	path[0] = (uint32_t)n;
	next[0] = k.first[n];
	for (;;) {
		uint32_t at = path[d];
		if (next[d] == k.first[at + 1]) {
			if (d-- == 0)
				break;
			active[cv->contexts[at].node]--;
			continue;
		}
		uint32_t c = k.child[next[d]++];
		path[++d] = c;
		next[d] = k.first[c];
		nested[c] = active[cv->contexts[c].node]++ > 0;
	}
	free(path);
	free(active);
	free(next);
	context_children_free(&k);
}

/* Replaces the view's call edges by the sums over the contexts of cv. */
static void sum_context_edges(struct zp_view *v, const struct zp_context_view *cv, uint32_t thread)
{
	size_t nevents = v->p->nevents;
	unsigned char *nested = zp_xcalloc(cv->ncontexts + 1, 1);
	mark_nested(cv, nested);

	/*
	 * The model's edges first, in their order: jumps stay as they are, and
	 * a call edge keeps its site.  A call edge along which no context went
	 * (a collector that lost contexts, e.g. to a full pool) keeps its own
	 * numbers: they are the best there are.
	 */
	struct zp_profile *tmp = profile_new();
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		*profile_edge(tmp, thread, e->kind, e->caller, e->callee) = *e;
	}
	unsigned char *summed = zp_xcalloc(tmp->nedges + cv->ncontexts + 1, 1);
	for (size_t c = 0; c < cv->ncontexts; c++) {
		const struct zp_context *x = &cv->contexts[c];
		uint32_t caller = x->parent == ZP_NONE ? ZP_NONE : cv->contexts[x->parent].node;
		struct zp_edge *d = profile_edge(tmp, thread, ZP_CALL, caller, x->node);
		if (!summed[d - tmp->edges]) {
			summed[d - tmp->edges] = 1;
			d->calls = 0;
			memset(d->incl, 0, sizeof d->incl);
		}
		d->calls += x->calls;
		if (!d->site) {
			d->site = x->site;
			d->site_line = x->site_line;
		}
		for (size_t ev = 0; ev < nevents && !nested[c]; ev++)
			d->incl[ev] += x->incl[ev];
	}
	free(v->edges);
	v->edges = tmp->edges;
	v->nedges = tmp->nedges;
	tmp->edges = NULL;
	tmp->nedges = 0;
	profile_free(tmp);
	free(summed);
	free(nested);
}

struct zp_view *callgraph_view(const struct zp_profile *p, uint32_t thread)
{
	struct zp_view *v = profile_view(p, thread);
	if (p->ncontexts) {
		struct zp_context_view *cv = profile_context_view(p, thread);
		sum_context_edges(v, cv, thread);
		profile_context_view_free(cv);
	}
	return v;
}
