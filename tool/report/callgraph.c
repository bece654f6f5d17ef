/* callgraph.c - call edges of a view indexed by caller and by callee. */
#include "callgraph.h"

#include <stdlib.h>

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
