/*
 * combine.c - self costs of a campaign whose runs measured different
 * functions (zond inject --per-run, --descend), from the call graph of a
 * run that measured them all (profile_combine_selves, profile.h).
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

/* How deep a path through functions no run of the campaign measured is followed. */
#define PASS_THROUGH_DEPTH 8

struct gedge {
	uint32_t caller, callee; /* graph node ids */
	uint64_t calls;
};

struct combine {
	const struct zp_profile *p, *g;
	const unsigned char *measured; /* nruns x p->nnodes */
	size_t nruns;
	uint32_t *gmap;      /* graph node -> p node, ZP_NONE where p has none */
	uint64_t *gcalls;    /* graph node's calls */
	struct gedge *edges; /* the graph's call edges, by caller */
	size_t nedges;
	size_t *first;       /* graph node -> its first edge; first[n + 1] ends them */
	unsigned char *camp; /* p node: measured by some run of the campaign */
	double *avg;         /* p node x ZP_MAX_EVENTS: inclusive cost per outermost call */
	uint32_t *scc;       /* graph node -> its strongly connected component */
	uint32_t *scc_size;  /* per component, its nodes */
};

static int by_caller(const void *a, const void *b)
{
	const struct gedge *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* 1 when every run that measured f also measured h (h's time is in none of f's selves). */
static int same_runs(const struct combine *c, uint32_t f, uint32_t h)
{
	size_t n = c->p->nnodes;
	for (size_t r = 0; r < c->nruns; r++)
		if (c->measured[r * n + f] && !c->measured[r * n + h])
			return 0;
	return 1;
}

/*
 * Adds to sub[] what graph node h costs f per call of f, w of h's calls per
 * call of f: h's average inclusive cost where a run of the campaign measured
 * h; through h to its callees where no run measured h (its time is in f's
 * self, and so are the measured callees' below it).  *other: h was not
 * measured in every run that measured f.
 */
static void visit(const struct combine *c, uint32_t f, uint32_t gf, uint32_t h, double w,
		  int depth, double *sub, int *other)
{
	uint32_t ph = c->gmap[h];
	if (ph != ZP_NONE && c->camp[ph]) {
		*other |= !same_runs(c, f, ph);
		for (size_t e = 0; e < c->p->nevents; e++)
			sub[e] += w * c->avg[(size_t)ph * ZP_MAX_EVENTS + e];
		return;
	}
	if (depth >= PASS_THROUGH_DEPTH || !c->gcalls[h])
		return;
	for (size_t i = c->first[h]; i < c->first[h + 1]; i++) {
		const struct gedge *e = &c->edges[i];
		if (e->callee != h && e->callee != gf)
			visit(c, f, gf, e->callee, w * (double)e->calls / (double)c->gcalls[h],
			      depth + 1, sub, other);
	}
}

/* Tarjan's strongly connected components of the graph (recursion across functions). */
struct tarjan {
	struct combine *c;
	uint32_t *index, *low, *stack, next, top, ncomp;
	unsigned char *on;
};

static void strong(struct tarjan *t, uint32_t v)
{
	struct combine *c = t->c;
	t->index[v] = t->low[v] = ++t->next;
	t->stack[t->top++] = v;
	t->on[v] = 1;
	for (size_t i = c->first[v]; i < c->first[v + 1]; i++) {
		uint32_t w = c->edges[i].callee;
		if (!t->index[w]) {
			strong(t, w);
			if (t->low[w] < t->low[v])
				t->low[v] = t->low[w];
		} else if (t->on[w] && t->index[w] < t->low[v]) {
			t->low[v] = t->index[w];
		}
	}
	if (t->low[v] != t->index[v])
		return;
	uint32_t w;
	do {
		w = t->stack[--t->top];
		t->on[w] = 0;
		c->scc[w] = t->ncomp;
		c->scc_size[t->ncomp]++;
	} while (w != v);
	t->ncomp++;
}

static void components(struct combine *c)
{
	size_t n = c->g->nnodes;
	struct tarjan t = {.c = c, .on = zp_xcalloc(n + 1, 1)};
	t.index = zp_xcalloc(n + 1, sizeof *t.index);
	t.low = zp_xcalloc(n + 1, sizeof *t.low);
	t.stack = zp_xcalloc(n + 1, sizeof *t.stack);
	c->scc = zp_xcalloc(n + 1, sizeof *c->scc);
	c->scc_size = zp_xcalloc(n + 1, sizeof *c->scc_size);
	for (uint32_t v = 0; v < n; v++)
		if (!t.index[v])
			strong(&t, v);
	free(t.index);
	free(t.low);
	free(t.stack);
	free(t.on);
}

/*
 * Per node of p its outermost calls (no call of the same node below them on
 * the stack): from the contexts where p has them, else its calls less those
 * from itself (direct recursion only).
 */
static uint64_t *outermost_calls(const struct zp_profile *p)
{
	uint64_t *outer = zp_xcalloc(p->nnodes + 1, sizeof *outer);
	if (p->ncontexts) {
		for (size_t i = 0; i < p->ncontexts; i++) {
			const struct zp_context *x = &p->contexts[i];
			uint32_t up = x->parent;
			while (up != ZP_NONE && up < i && p->contexts[up].node != x->node)
				up = p->contexts[up].parent;
			if (up == ZP_NONE || up >= i)
				outer[x->node] += x->calls;
		}
		return outer;
	}
	for (size_t i = 0; i < p->nstats; i++)
		outer[p->stats[i].node] += p->stats[i].calls;
	for (size_t i = 0; i < p->nedges; i++) {
		const struct zp_edge *e = &p->edges[i];
		if (e->kind == ZP_CALL && e->caller == e->callee && outer[e->callee] >= e->calls)
			outer[e->callee] -= e->calls;
	}
	return outer;
}

/* The graph's node for p's node n (same kind, module and name), or ZP_NONE. */
static uint32_t graph_node(const struct combine *c, uint32_t n)
{
	for (uint32_t i = 0; i < c->g->nnodes; i++)
		if (c->gmap[i] == n)
			return i;
	return ZP_NONE;
}

static uint32_t same_node(const struct zp_profile *p, const struct zp_node *x)
{
	for (uint32_t i = 0; i < p->nnodes; i++) {
		const struct zp_node *y = &p->nodes[i];
		if (y->kind == x->kind && !strcmp(y->name, x->name) && !strcmp(y->module, x->module))
			return i;
	}
	return ZP_NONE;
}

static int scaled(const double *factor, size_t nevents)
{
	for (size_t e = 0; e < nevents; e++)
		if (factor[e] < 1)
			return 1;
	return 0;
}

/*
 * self[] at factor[], rounded so that the records of one node (its contexts,
 * or its stats without contexts) sum to their exact sum rounded: each takes
 * the rounded running sum less what the ones before it took (*exact and
 * *taken, per event).  Each rounded on its own, a recursion's contexts at
 * 8/17 lost a unit between them (17 x 8/17 gave 7, QA s13 U F7).
 */
static void scale(uint64_t *self, const double *factor, size_t nevents, double *exact,
		  uint64_t *taken)
{
	for (size_t e = 0; e < nevents; e++)
		if (factor[e] < 1) {
			exact[e] += (double)self[e] * factor[e];
			uint64_t upto = (uint64_t)(exact[e] + 0.5);
			self[e] = upto > taken[e] ? upto - taken[e] : 0;
			taken[e] += self[e];
		}
}

long profile_combine_selves(struct zp_profile *p, const unsigned char *measured, size_t nruns,
			    const struct zp_profile *graph, size_t *missing)
{
	struct combine c = {.p = p, .g = graph, .measured = measured, .nruns = nruns};
	size_t n = p->nnodes, E = p->nevents;
	*missing = 0;
	for (size_t i = 0; i < graph->nedges; i++)
		if (graph->edges[i].kind == ZP_CALL && graph->edges[i].caller != ZP_NONE)
			c.nedges++;
	if (!c.nedges)
		return -1;

	c.gmap = zp_xcalloc(graph->nnodes + 1, sizeof *c.gmap);
	for (size_t i = 0; i < graph->nnodes; i++)
		c.gmap[i] = same_node(p, &graph->nodes[i]);
	c.gcalls = zp_xcalloc(graph->nnodes + 1, sizeof *c.gcalls);
	for (size_t i = 0; i < graph->nstats; i++)
		c.gcalls[graph->stats[i].node] += graph->stats[i].calls;
	/* the graph's edges summed over its threads, by caller */
	c.edges = zp_xcalloc(c.nedges, sizeof *c.edges);
	size_t k = 0;
	for (size_t i = 0; i < graph->nedges; i++) {
		const struct zp_edge *e = &graph->edges[i];
		if (e->kind == ZP_CALL && e->caller != ZP_NONE)
			c.edges[k++] = (struct gedge){e->caller, e->callee, e->calls};
	}
	zp_sort(c.edges, c.nedges, sizeof *c.edges, by_caller);
	k = 0;
	for (size_t i = 0; i < c.nedges; i++) {
		if (k && c.edges[k - 1].caller == c.edges[i].caller &&
		    c.edges[k - 1].callee == c.edges[i].callee)
			c.edges[k - 1].calls += c.edges[i].calls;
		else
			c.edges[k++] = c.edges[i];
	}
	c.nedges = k;
	c.first = zp_xcalloc(graph->nnodes + 2, sizeof *c.first);
	for (size_t i = 0; i < c.nedges; i++)
		c.first[c.edges[i].caller + 1]++;
	for (size_t i = 0; i < graph->nnodes + 1; i++)
		c.first[i + 1] += c.first[i];

	/* p's functions: calls, inclusive and self over threads; outermost calls */
	uint64_t *calls = zp_xcalloc(n + 1, sizeof *calls), *outer = outermost_calls(p);
	double *incl = zp_xcalloc(n * ZP_MAX_EVENTS + 1, sizeof *incl);
	double *self = zp_xcalloc(n * ZP_MAX_EVENTS + 1, sizeof *self);
	for (size_t i = 0; i < p->nstats; i++) {
		const struct zp_stat *s = &p->stats[i];
		calls[s->node] += s->calls;
		for (size_t e = 0; e < E; e++) {
			incl[(size_t)s->node * ZP_MAX_EVENTS + e] += (double)s->incl[e];
			self[(size_t)s->node * ZP_MAX_EVENTS + e] += (double)s->self[e];
		}
	}
	c.camp = zp_xcalloc(n + 1, 1);
	c.avg = zp_xcalloc(n * ZP_MAX_EVENTS + 1, sizeof *c.avg);
	for (size_t f = 0; f < n; f++) {
		for (size_t r = 0; r < nruns; r++)
			c.camp[f] |= measured[r * n + f];
		for (size_t e = 0; outer[f] && e < E; e++)
			c.avg[f * ZP_MAX_EVENTS + e] = incl[f * ZP_MAX_EVENTS + e] / (double)outer[f];
	}
	/* the graph's self and inclusive per node, in p's events: the ratio of the recursive */
	components(&c);
	double *gself = zp_xcalloc(graph->nnodes * ZP_MAX_EVENTS + 1, sizeof *gself);
	double *gincl = zp_xcalloc(graph->nnodes * ZP_MAX_EVENTS + 1, sizeof *gincl);
	for (size_t e = 0; e < E; e++) {
		int ge = profile_find_event(graph, p->events[e].name);
		for (size_t i = 0; ge >= 0 && i < graph->nstats; i++) {
			const struct zp_stat *s = &graph->stats[i];
			gself[(size_t)s->node * ZP_MAX_EVENTS + e] += (double)s->self[ge];
			gincl[(size_t)s->node * ZP_MAX_EVENTS + e] += (double)s->incl[ge];
		}
	}

	double *factor = zp_xcalloc(n * ZP_MAX_EVENTS + 1, sizeof *factor);
	long changed = 0;
	for (uint32_t f = 0; f < n; f++) {
		double *fac = &factor[(size_t)f * ZP_MAX_EVENTS];
		for (size_t e = 0; e < E; e++)
			fac[e] = 1;
		if (!c.camp[f] || !calls[f] || p->nodes[f].kind != ZP_FUNCTION)
			continue;
		uint32_t gf = graph_node(&c, f);
		if (gf == ZP_NONE || !c.gcalls[gf]) {
			(*missing)++;
			continue;
		}
		/* f's callees (the measured ones, through those no run measured), each at its
		   average: where all were measured in f's own runs, f's self is exact as it is */
		double sub[ZP_MAX_EVENTS] = {0};
		int other = 0;
		for (size_t i = c.first[gf]; i < c.first[gf + 1]; i++) {
			const struct gedge *e = &c.edges[i];
			if (e->callee != gf)
				visit(&c, f, gf, e->callee, (double)e->calls / (double)c.gcalls[gf], 0,
				      sub, &other);
		}
		/* recursion across functions (f calls g calls f): g's average holds f's inner
		   calls, so f's self is its inclusive at the graph's share of self in it */
		int cycle = c.scc_size[c.scc[gf]] > 1;
		int any = 0;
		for (size_t e = 0; other && e < E; e++) {
			size_t k = (size_t)f * ZP_MAX_EVENTS + e, gk = (size_t)gf * ZP_MAX_EVENTS + e;
			double old = self[k];
			double now = !cycle ? incl[k] - (double)calls[f] * sub[e]
				     : gincl[gk] > 0 ? incl[k] * gself[gk] / gincl[gk]
						      : old;
			if (old <= 0 || now >= old) /* never above its self in its own run */
				continue;
			fac[e] = now > 0 ? now / old : 0;
			any = 1;
		}
		changed += any;
	}
	/* the contexts scaled, and their stats by what their contexts lost (so the stats stay
	   the sums of their contexts); stats without contexts scaled alike */
	for (size_t i = 0; i < p->ncontexts; i++)
		if (scaled(&factor[(size_t)p->contexts[i].node * ZP_MAX_EVENTS], E))
			profile_stat(p, p->contexts[i].thread, p->contexts[i].node);
	unsigned char *has_ctx = zp_xcalloc(p->nstats + 1, 1);
	/* per node and event: the exact scaled self so far, and what was given out of it */
	double *exact = zp_xcalloc(n * ZP_MAX_EVENTS + 1, sizeof *exact);
	uint64_t *taken = zp_xcalloc(n * ZP_MAX_EVENTS + 1, sizeof *taken);
	for (size_t i = 0; i < p->ncontexts; i++) {
		struct zp_context *x = &p->contexts[i];
		size_t k = (size_t)x->node * ZP_MAX_EVENTS;
		if (!scaled(&factor[k], E))
			continue;
		struct zp_stat *st = profile_stat(p, x->thread, x->node);
		has_ctx[st - p->stats] = 1;
		uint64_t before[ZP_MAX_EVENTS];
		memcpy(before, x->self, sizeof before);
		scale(x->self, &factor[k], E, &exact[k], &taken[k]);
		for (size_t e = 0; e < E; e++) {
			uint64_t lost = before[e] - x->self[e];
			st->self[e] -= lost < st->self[e] ? lost : st->self[e];
		}
	}
	for (size_t i = 0; i < p->nstats; i++) {
		size_t k = (size_t)p->stats[i].node * ZP_MAX_EVENTS;
		if (!has_ctx[i])
			scale(p->stats[i].self, &factor[k], E, &exact[k], &taken[k]);
	}
	free(exact);
	free(taken);
	free(has_ctx);
	free(gself);
	free(gincl);
	free(c.scc);
	free(c.scc_size);
	free(factor);
	free(calls);
	free(outer);
	free(incl);
	free(self);
	free(c.camp);
	free(c.avg);
	free(c.gmap);
	free(c.gcalls);
	free(c.edges);
	free(c.first);
	return changed;
}
