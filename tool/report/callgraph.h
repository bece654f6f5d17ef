/*
 * callgraph.h - the call edges of a view, listed per caller and per callee.
 *
 * Reports and exports walk the call graph both ways: a function's callees
 * (tree, callgrind, folded) and its callers (graph).  callgraph_build()
 * lists, for every node n, the indexes into v->edges of the call edges
 * leaving n (out[out_first[n] .. out_first[n + 1])) and entering n
 * (in[in_first[n] .. in_first[n + 1])), in view order.  A thread's root
 * calls (caller ZP_NONE) enter their callee but leave no node.  Jump edges
 * are not listed.
 */
#ifndef ZOND_CALLGRAPH_H
#define ZOND_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "../model/profile.h"

struct callgraph {
	const struct zp_view *v;
	size_t *out_first, *in_first; /* nnodes + 1 entries each */
	uint32_t *out, *in;           /* indexes into v->edges */
};

void callgraph_build(struct callgraph *g, const struct zp_view *v);
void callgraph_free(struct callgraph *g);

/* True when a thread root call enters node n. */
int callgraph_is_root_call(const struct callgraph *g, uint32_t n);

#endif
