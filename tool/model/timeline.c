/*
 * timeline.c - the profile of a window of the run's timeline (profile.h,
 * profile_window): calls, self and inclusive cost recomputed from the spans.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

const char *profile_timeline_howto(const struct zp_profile *p)
{
	if (p->run.collector && strcmp(p->run.collector, "trace") == 0)
		return "read its trace with `zond trace report --timeline`";
	return "record it with --timeline";
}

int64_t profile_timeline_origin(const struct zp_profile *p)
{
	const char *unit = profile_meta(p, "timeline_unit");
	return unit && strcmp(unit, "ns") == 0 ? p->run.start_ns : 0;
}

static void copy_run(struct zp_profile *dst, const struct zp_profile *src)
{
	const struct zp_run *r = &src->run;
	struct zp_run *d = &dst->run;
	d->id = r->id;
	profile_set_str(&d->campaign, r->campaign);
	profile_set_str(&d->collector, r->collector);
	profile_set_str(&d->command, r->command);
	profile_set_str(&d->host, r->host);
	profile_set_str(&d->arch, r->arch);
	profile_set_str(&d->clock, r->clock);
	d->start_ns = r->start_ns;
	d->duration_ns = r->duration_ns;
	d->pid = r->pid;
	d->exit_status = r->exit_status;
	d->term_signal = r->term_signal;
	d->overhead_ns = r->overhead_ns;
	for (size_t i = 0; i < r->nmeta; i++)
		profile_add_meta(dst, r->meta[i].key, r->meta[i].value);
}

/* Threads and nodes keep their ids: the window's profile names the same things. */
static void copy_names(struct zp_profile *dst, const struct zp_profile *src)
{
	for (size_t i = 0; i < src->nthreads; i++) {
		const struct zp_thread *t = &src->threads[i];
		profile_thread(dst, t->pid, t->tid, t->name);
	}
	for (size_t i = 0; i < src->nnodes; i++) {
		const struct zp_node *n = &src->nodes[i];
		profile_node(dst, n->kind, n->name, n->module, n->file, n->line, n->addr);
	}
	for (size_t i = 0; i < src->nnodes; i++)
		dst->nodes[i].parent = src->nodes[i].parent;
}

/* A span of the window on its stack's open calls. */
struct open_call {
	uint32_t depth, node, ctx; /* ctx ZP_NONE: its callers are not known */
	uint64_t incl, children; /* its cost in the window, its children's */
	int outermost;           /* no activation of node below it: counts for its incl */
	/*
	 * A call in pieces (its coroutine's stack suspended, then resumed): the
	 * cost of its pieces before this one, and whether they were all in the
	 * window from its start (whole: the last piece gives min and max the
	 * call's cost); suspended, this piece is not its last.
	 */
	uint64_t before;
	int whole, suspended;
};

/* A suspended call's cost so far, for the piece that continues it (open_call.before). */
struct carried {
	uint32_t node;
	int valid, whole;
	uint64_t incl;
};

/* One stack of a thread (ZP_SPAN_STACK): its calls open in the window. */
struct walk_stack {
	uint32_t id;
	struct open_call *open;
	size_t n, cap;
	struct carried *carried; /* per depth, ncarried of them */
	size_t ncarried;
};

struct walk {
	struct zp_profile *w;
	struct walk_stack *stacks;
	size_t nstacks, cap;
};

/* Self s and inclusive i of a span; call, the cost of the whole call it ends, if known. */
static void add_cost(uint64_t *self, uint64_t *incl, uint64_t *min, uint64_t *max, uint64_t s,
		     uint64_t i, const uint64_t *call)
{
	*self += s;
	*incl += i;
	if (!call)
		return;
	if (*call < *min)
		*min = *call;
	if (*call > *max)
		*max = *call;
}

/* Keeps suspended call c's cost for the piece that will continue it. */
static void carry(struct walk_stack *s, const struct open_call *c)
{
	if (c->depth >= s->ncarried) {
		size_t n = (size_t)c->depth + 16;
		s->carried = zp_xrealloc(s->carried, n * sizeof *s->carried);
		memset(s->carried + s->ncarried, 0, (n - s->ncarried) * sizeof *s->carried);
		s->ncarried = n;
	}
	s->carried[c->depth] = (struct carried){c->node, 1, c->whole, c->before + c->incl};
}

/* Closes the top call of stack s: its self cost is what its children did not take. */
static void close_top(struct walk *k, struct walk_stack *s, uint32_t thread)
{
	struct open_call *c = &s->open[--s->n];
	uint64_t self = c->incl - c->children, call = c->before + c->incl;
	const uint64_t *whole = c->whole && !c->suspended ? &call : NULL;
	if (c->suspended)
		carry(s, c);
	if (c->ctx != ZP_NONE) {
		struct zp_context *ctx = &k->w->contexts[c->ctx];
		add_cost(&ctx->self[0], &ctx->incl[0], &ctx->min[0], &ctx->max[0], self, c->incl,
			 whole);
	}
	struct zp_stat *st = profile_stat(k->w, thread, c->node);
	uint64_t none = 0;
	add_cost(&st->self[0], c->outermost ? &st->incl[0] : &none, &st->min[0], &st->max[0], self,
		 c->incl, whole);
	if (s->n)
		s->open[s->n - 1].children += c->incl;
}

static struct walk_stack *walk_stack(struct walk *k, uint32_t id)
{
	for (size_t i = 0; i < k->nstacks; i++)
		if (k->stacks[i].id == id)
			return &k->stacks[i];
	if (k->nstacks == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->stacks = zp_xrealloc(k->stacks, k->cap * sizeof *k->stacks);
	}
	k->stacks[k->nstacks] = (struct walk_stack){.id = id};
	return &k->stacks[k->nstacks++];
}

/* Closes every call of the thread's stacks. */
static void close_all(struct walk *k, uint32_t thread)
{
	for (size_t i = 0; i < k->nstacks; i++) {
		while (k->stacks[i].n)
			close_top(k, &k->stacks[i], thread);
		free(k->stacks[i].open);
		free(k->stacks[i].carried);
	}
	k->nstacks = 0;
}

static void open_call(struct walk *k, const struct zp_span *sp, int64_t from, int64_t to)
{
	struct walk_stack *s = walk_stack(k, ZP_SPAN_STACK(sp->flags));
	while (s->n && s->open[s->n - 1].depth >= sp->depth)
		close_top(k, s, sp->thread);
	int64_t a = sp->start > from ? sp->start : from, b = sp->end < to ? sp->end : to;
	const struct open_call *parent = s->n ? &s->open[s->n - 1] : NULL;
	/* a call whose callers are not known has no context, nor have its callees */
	int known = !(sp->flags & ZP_SPAN_NO_CALLERS) && (!parent || parent->ctx != ZP_NONE);
	/* a call continued from the parent process is not one of this one's */
	uint64_t calls = (sp->flags & ZP_SPAN_CONTINUED) ? 0 : 1;
	struct open_call c = {
		.depth = sp->depth,
		.node = sp->node,
		.ctx = known ? profile_context(k->w, sp->thread, parent ? parent->ctx : ZP_NONE,
					       sp->node)
			     : ZP_NONE,
		.incl = b > a ? (uint64_t)(b - a) : 0,
		.outermost = 1,
		.whole = sp->start >= from && sp->end <= to,
		.suspended = (sp->flags & ZP_SPAN_SUSPENDED) != 0,
	};
	if (sp->flags & ZP_SPAN_CONTINUED) {
		/* the rest of a suspended call, or of one made before the process (none kept) */
		struct carried *before = sp->depth < s->ncarried ? &s->carried[sp->depth] : NULL;
		if (before && before->valid && before->node == sp->node) {
			c.before = before->incl;
			c.whole &= before->whole;
			before->valid = 0;
		} else {
			c.whole = 0;
		}
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->open[i].node == sp->node)
			c.outermost = 0;
	if (c.ctx != ZP_NONE)
		k->w->contexts[c.ctx].calls += calls;
	profile_stat(k->w, sp->thread, sp->node)->calls += calls;
	if (parent || !(sp->flags & ZP_SPAN_NO_CALLERS)) {
		struct zp_edge *e = profile_edge(k->w, sp->thread, ZP_CALL,
						 parent ? parent->node : ZP_NONE, sp->node);
		e->calls += calls;
		e->incl[0] += c.incl;
	}
	uint32_t flags = sp->flags;
	flags |= sp->start < from ? ZP_SPAN_NO_START : 0;
	flags |= sp->end > to ? ZP_SPAN_NO_END : 0;
	profile_add_span(k->w, sp->thread, sp->node, sp->depth, flags, a, b);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->open = zp_xrealloc(s->open, s->cap * sizeof *s->open);
	}
	s->open[s->n++] = c;
}

/* A span runs in [from, to) when they overlap; an instant one when it lies inside. */
static int in_window(const struct zp_span *sp, int64_t from, int64_t to)
{
	if (sp->start == sp->end)
		return sp->start >= from && sp->start < to;
	return sp->start < to && sp->end > from;
}

/* The name of p's event counted in unit (a trace's Ir for "instructions"), else the unit's. */
static const char *event_counting(const struct zp_profile *p, const char *unit)
{
	for (size_t i = 0; i < p->nevents; i++)
		if (p->events[i].unit && strcmp(p->events[i].unit, unit) == 0)
			return p->events[i].name;
	return unit;
}

struct zp_profile *profile_window(const struct zp_profile *p, int64_t from, int64_t to)
{
	struct zp_profile *w = profile_new();
	copy_run(w, p);
	copy_names(w, p);
	const char *unit = profile_meta(p, "timeline_unit");
	if (!unit || strcmp(unit, "ns") == 0)
		profile_event(w, "time", "ns");
	else
		profile_event(w, event_counting(p, unit), unit);
	int64_t origin = profile_timeline_origin(p);
	from = from > INT64_MIN + origin ? from + origin : INT64_MIN;
	to = to < INT64_MAX - origin ? to + origin : INT64_MAX;
	struct walk k = {.w = w};
	uint32_t thread = ZP_NONE;
	for (size_t i = 0; i < p->nspans; i++) {
		const struct zp_span *sp = &p->spans[i];
		if (sp->thread != thread) {
			close_all(&k, thread);
			thread = sp->thread;
		}
		if (in_window(sp, from, to))
			open_call(&k, sp, from, to);
	}
	close_all(&k, thread);
	free(k.stacks);
	return w;
}

static int compare_spans(const void *a, const void *b)
{
	const struct zp_span *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* A call open on the timeline: its enter, its span's flags. */
struct tl_open {
	struct zp_tl_event e;
	uint32_t flags;
};

/* A stack switched away from: its open calls, kept under the id of its switch. */
struct tl_parked {
	uint32_t id, stack;
	int lost;
	struct tl_open *open;
	size_t n;
};

static void end_span(struct zp_profile *p, uint32_t thread, const struct tl_open *o,
		     uint32_t flags, int64_t end)
{
	/* a damaged file's times may not grow: a call never ends before it starts */
	if (o->e.node != ZP_NONE)
		profile_add_span(p, thread, o->e.node, o->e.depth, o->flags | flags, o->e.time,
				 end > o->e.time ? end : o->e.time);
}

void profile_add_timeline(struct zp_profile *p, uint32_t thread, const struct zp_tl_event *ev,
			  size_t n, int lost_start, int64_t end)
{
	struct tl_open *open = NULL;
	size_t nopen = 0, cap = 0, first = p->nspans;
	struct tl_parked *parked = NULL;
	size_t nparked = 0, pcap = 0;
	/* the stack the thread runs on (ZP_NONE: a new one, numbered at its first call) */
	uint32_t stack = 0, stacks = 1;
	int lost = 0;
	uint32_t shallowest = UINT32_MAX;
	int64_t latest = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		/*
		 * A thread's clock never goes back: a counter read on another CPU
		 * (a VM's TSCs differ by a few ns) may, and a call would then
		 * start before its sibling ended, which viewers draw as nested.
		 */
		struct zp_tl_event now = ev[i];
		if (now.time < latest)
			now.time = latest;
		latest = now.time;
		const struct zp_tl_event *e = &now;
		if (e->kind == ZP_TL_PARK || e->kind == ZP_TL_RESUME) {
			int keep = e->kind == ZP_TL_PARK && e->stack != 0;
			if (keep) {
				/* its calls' spans end here: the time suspended is not theirs */
				for (size_t j = nopen; j-- > 0;)
					end_span(p, thread, &open[j], ZP_SPAN_SUSPENDED, e->time);
				if (nparked == pcap) {
					pcap = pcap ? 2 * pcap : 16;
					parked = zp_xrealloc(parked, pcap * sizeof *parked);
				}
				struct tl_parked *k = &parked[nparked++];
				*k = (struct tl_parked){e->stack, stack, lost, NULL, nopen};
				if (nopen) {
					k->open = zp_xmalloc(nopen * sizeof *open);
					memcpy(k->open, open, nopen * sizeof *open);
				}
			} else {
				/* a stack left for good: its calls end here, not seen ending */
				while (nopen)
					end_span(p, thread, &open[--nopen], ZP_SPAN_NO_END, e->time);
			}
			nopen = 0;
			stack = ZP_NONE;
			lost = 0;
			shallowest = UINT32_MAX;
			if (e->kind == ZP_TL_RESUME) {
				lost = e->lost;
				size_t k = 0;
				while (k < nparked && (e->stack == 0 || parked[k].id != e->stack))
					k++;
				if (k < nparked) {
					struct tl_parked *b = &parked[k];
					if (b->n > cap) {
						cap = b->n;
						open = zp_xrealloc(open, cap * sizeof *open);
					}
					/* and go on in spans of their own from here */
					for (size_t j = 0; j < b->n; j++) {
						open[j] = b->open[j];
						open[j].e.time = e->time;
						open[j].flags |= ZP_SPAN_CONTINUED;
					}
					nopen = b->n;
					stack = b->stack;
					lost = b->lost;
					free(b->open);
					parked[k] = parked[--nparked];
				}
			}
			continue;
		}
		while (nopen && open[nopen - 1].e.depth >= e->depth)
			end_span(p, thread, &open[--nopen], 0, e->time);
		if (stack == ZP_NONE)
			stack = stacks++;
		uint32_t flags = stack << ZP_SPAN_STACK_SHIFT | (lost ? ZP_SPAN_NO_CALLERS : 0);
		if (e->kind == ZP_TL_CONTINUED)
			flags |= ZP_SPAN_CONTINUED | ZP_SPAN_NO_START;
		if (!e->exit) {
			if (nopen == cap) {
				cap = cap ? 2 * cap : 64;
				open = zp_xrealloc(open, cap * sizeof *open);
			}
			open[nopen++] = (struct tl_open){*e, flags};
		} else if (lost_start && e->depth < shallowest) {
			struct tl_open o = {*e, flags};
			o.e.time = ev[0].time;
			end_span(p, thread, &o, ZP_SPAN_NO_START, e->time);
		}
		if (e->depth < shallowest)
			shallowest = e->depth;
	}
	if (end < latest)
		end = latest;
	while (nopen)
		end_span(p, thread, &open[--nopen], ZP_SPAN_NO_END, end);
	/* stacks still switched away at the end (suspended coroutines): their calls' last
	   spans ended where they were suspended */
	for (size_t k = 0; k < nparked; k++)
		free(parked[k].open);
	free(parked);
	free(open);
	/* closed innermost first: in the order the calls were entered */
	zp_sort(p->spans + first, p->nspans - first, sizeof *p->spans, compare_spans);
}
