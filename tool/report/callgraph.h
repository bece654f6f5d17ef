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
 *
 * callgraph_view() is the view every call-graph output reads (callgrind,
 * dot, the graph report): profile_view(), except that when the profile has
 * calling contexts its call edges are summed from them, so that edges,
 * trees and stacks come from the same data.  For a pair (caller function F,
 * callee function G), over every context d of G whose parent is a context
 * of F (thread roots: caller ZP_NONE):
 *  - calls = the sum of d's calls;
 *  - incl = the sum of d's inclusive cost over those d where G is not
 *    already active (no context of G above d): outermost activations.
 * So the costs of the calls into a function add up to exactly its inclusive
 * cost (as callgrind_annotate --inclusive=yes and gprof's caller lines
 * read them), even through direct or mutual recursion, and never exceed
 * the run's total; a call into a function already active (f -> f, or
 * f -> g -> f) counts its calls but costs 0.  A call edge of the model
 * along which no context went (a collector that lost contexts) keeps its
 * own numbers.  Without
 * contexts, the view's edges are the model's edges.
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

struct zp_view *callgraph_view(const struct zp_profile *p, uint32_t thread);

void callgraph_build(struct callgraph *g, const struct zp_view *v);
void callgraph_free(struct callgraph *g);

/* True when a thread root call enters node n. */
int callgraph_is_root_call(const struct callgraph *g, uint32_t n);

/*
 * The children of each context of a context view, in id order: those of
 * context c are child[first[c] .. first[c + 1]), the roots (parent ZP_NONE)
 * are those of c = ncontexts.
 */
struct context_children {
	size_t *first; /* ncontexts + 2 entries */
	uint32_t *child;
};

void context_children_build(struct context_children *k, const struct zp_context_view *cv);
void context_children_free(struct context_children *k);

#endif
