/*
 * speedscope.c - speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json).
 *
 * One "sampled" profile per thread (or the one thread asked for), named
 * after it.  Its samples are the stacks of the thread's calling contexts,
 * root first, each weighted by the context's self cost in the chosen metric;
 * its unit is "nanoseconds" for a time, "none" for anything else (cycles,
 * instructions, calls), startValue 0 and endValue the sum of the weights.
 * Contexts of weight 0 are left out.  Frames are shared by all profiles:
 * one per node on a written stack, with its source file and line when known.
 * A run without contexts has no stacks: each function of a thread is then
 * one one-frame sample of its self cost.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/format.h"

#ifndef ZOND_VERSION
#define ZOND_VERSION "unknown"
#endif

struct speedscope {
	const struct zp_profile *p;
	int metric;
	FILE *out;
	uint32_t *frame_of; /* per node: frame index + 1, 0 when not written */
	uint32_t *path;     /* room for the deepest stack */
	/* the samples (contexts, or stats without contexts) of thread t:
	 * by_thread[first[t] .. first[t + 1]), in id order */
	size_t *first;
	uint32_t *by_thread;
};

static uint32_t sample_thread(const struct zp_profile *p, size_t i)
{
	return p->ncontexts ? p->contexts[i].thread : p->stats[i].thread;
}

/* Lists the samples per thread (a counting sort: one pass, not one per thread). */
static void group_by_thread(struct speedscope *w)
{
	const struct zp_profile *p = w->p;
	size_t n = p->ncontexts ? p->ncontexts : p->nstats;
	w->first = zp_xcalloc(p->nthreads + 2, sizeof *w->first);
	w->by_thread = zp_xcalloc(n ? n : 1, sizeof *w->by_thread);
	for (size_t i = 0; i < n; i++)
		w->first[sample_thread(p, i) + 2]++;
	for (size_t t = 0; t < p->nthreads; t++)
		w->first[t + 2] += w->first[t + 1];
	for (size_t i = 0; i < n; i++)
		w->by_thread[w->first[sample_thread(p, i) + 1]++] = (uint32_t)i;
}

/* Marks the nodes that will appear as frames and numbers them in node order. */
static void number_frames(struct speedscope *w, uint32_t thread)
{
	const struct zp_profile *p = w->p;
	for (size_t i = 0; i < p->ncontexts; i++)
		if (thread == ZP_NONE || p->contexts[i].thread == thread)
			w->frame_of[p->contexts[i].node] = 1;
	for (size_t i = 0; !p->ncontexts && i < p->nstats; i++)
		if (thread == ZP_NONE || p->stats[i].thread == thread)
			w->frame_of[p->stats[i].node] = 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (w->frame_of[i])
			w->frame_of[i] = ++n;
}

static void put_frames(struct speedscope *w)
{
	const struct zp_profile *p = w->p;
	const char *sep = "";
	fputs("\"shared\": {\"frames\": [", w->out);
	for (uint32_t i = 0; i < p->nnodes; i++) {
		if (!w->frame_of[i])
			continue;
		const struct zp_node *n = &p->nodes[i];
		fprintf(w->out, "%s\n  {\"name\": ", sep);
		json_put_string(w->out, n->name);
		if (n->file && *n->file) {
			fputs(", \"file\": ", w->out);
			json_put_string(w->out, n->file);
		}
		if (n->line > 0)
			fprintf(w->out, ", \"line\": %d", n->line);
		putc('}', w->out);
		sep = ",";
	}
	fputs("]},\n", w->out);
}

/* The stack of context c, root first, as frame indexes. */
static void put_context_stack(struct speedscope *w, uint32_t c)
{
	const struct zp_profile *p = w->p;
	size_t n = 0;
	for (; c != ZP_NONE; c = p->contexts[c].parent)
		w->path[n++] = w->frame_of[p->contexts[c].node] - 1;
	putc('[', w->out);
	while (n--)
		fprintf(w->out, "%" PRIu32 "%s", w->path[n], n ? "," : "");
	putc(']', w->out);
}

/* The weight of sample i (context or stat). */
static uint64_t sample_weight(const struct speedscope *w, size_t i)
{
	const struct zp_profile *p = w->p;
	if (p->ncontexts)
		return metric_context_self(&p->contexts[i], w->metric);
	return metric_self(&p->stats[i], w->metric);
}

/* "samples" (stacks) or, with weights set, "weights" of one thread. */
static uint64_t put_samples(struct speedscope *w, uint32_t thread, int weights)
{
	const struct zp_profile *p = w->p;
	uint64_t total = 0;
	const char *sep = "";
	fprintf(w->out, "\"%s\": [", weights ? "weights" : "samples");
	for (size_t k = w->first[thread]; k < w->first[thread + 1]; k++) {
		uint32_t i = w->by_thread[k];
		uint64_t weight = sample_weight(w, i);
		if (!weight)
			continue;
		fputs(sep, w->out);
		if (weights)
			fprintf(w->out, "%" PRIu64, weight);
		else if (p->ncontexts)
			put_context_stack(w, i);
		else
			fprintf(w->out, "[%" PRIu32 "]", w->frame_of[p->stats[i].node] - 1);
		sep = ",";
		total += weight;
	}
	fputs("]", w->out);
	return total;
}

static void put_profile(struct speedscope *w, uint32_t thread)
{
	const struct zp_thread *t = &w->p->threads[thread];
	const struct zp_event *ev = metric_event(w->p, w->metric);
	char name[128];
	snprintf(name, sizeof name, "%s (pid %" PRId64 ", tid %" PRId64 ")",
		 t->name && *t->name ? t->name : "thread", t->pid, t->tid);
	fputs("  {\"type\": \"sampled\", \"name\": ", w->out);
	json_put_string(w->out, name);
	fprintf(w->out, ", \"unit\": \"%s\",\n   ",
		ev && format_is_time(ev) ? "nanoseconds" : "none");
	uint64_t total = put_samples(w, thread, 0);
	fputs(",\n   ", w->out);
	put_samples(w, thread, 1);
	fprintf(w->out, ",\n   \"startValue\": 0, \"endValue\": %" PRIu64 "}", total);
}

int export_speedscope(const struct zp_profile *p, const struct export_options *o, FILE *out,
		      struct zerr *err)
{
	if (export_check_options(p, o, err) < 0)
		return -1;
	struct speedscope w = {.p = p, .metric = metric_pick(p, o->event), .out = out};
	w.frame_of = zp_xcalloc(p->nnodes ? p->nnodes : 1, sizeof *w.frame_of);
	w.path = zp_xcalloc(p->ncontexts ? p->ncontexts : 1, sizeof *w.path);
	number_frames(&w, o->thread);
	group_by_thread(&w);

	char title[64];
	snprintf(title, sizeof title, "zond run %" PRId64 ": ", p->run.id);
	size_t len = strlen(title) + (p->run.command ? strlen(p->run.command) : 0) + 1;
	char *name = zp_xmalloc(len);
	snprintf(name, len, "%s%s", title, p->run.command ? p->run.command : "");
	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\": \"zond " ZOND_VERSION "\", \"name\": ",
	      out);
	json_put_string(out, name);
	fputs(", \"activeProfileIndex\": 0,\n", out);
	free(name);
	put_frames(&w);
	fputs("\"profiles\": [\n", out);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		if (o->thread != ZP_NONE && t != o->thread)
			continue;
		if (t > 0 && o->thread == ZP_NONE)
			fputs(",\n", out);
		put_profile(&w, t);
	}
	fputs("\n]}\n", out);
	free(w.frame_of);
	free(w.path);
	free(w.first);
	free(w.by_thread);
	if (ferror(out))
		return zerr_set(err, "cannot write the speedscope profile");
	return 0;
}
