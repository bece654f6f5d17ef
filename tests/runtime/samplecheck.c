/*
 * samplecheck - invariants of sampled time (progs/sampled.c), read from the
 * raw files of DIR.  The number of samples is not deterministic; what is:
 * every sample lands in exactly one place (a context, zond's own, lost),
 * each function's inclusive samples derive from its contexts, and a
 * function that spins ten times the CPU time of another gets far more.
 * With "prologue" (progs/prologue.c): samples taken in a callee's prologue,
 * before its entry hook ran, are the callee's, and the work of an inlined
 * function between its hooks is its own, not its caller's.
 *
 *   samplecheck DIR [stopped|prologue]   stopped: the program took zond's signal
 */
#include <dirent.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ingest/raw_reader.h"

static uint64_t meta_count(const struct zp_profile *p, const char *key)
{
	const char *v = profile_meta(p, key);
	return v ? strtoull(v, NULL, 10) : 0;
}

static uint32_t node_named(const struct zp_profile *p, const char *name)
{
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (strcmp(p->nodes[i].name, name) == 0)
			return i;
	fprintf(stderr, "no function %s\n", name);
	return ZP_NONE;
}

/* Inclusive samples of node: every context of it not inside another activation of it. */
static uint64_t incl_from_contexts(const struct zp_profile *p, uint32_t node, int ev)
{
	uint64_t *incl = calloc(p->ncontexts + 1, sizeof *incl);
	for (size_t i = p->ncontexts; i-- > 0;) {
		incl[i] += p->contexts[i].self[ev];
		if (p->contexts[i].parent != ZP_NONE)
			incl[p->contexts[i].parent] += incl[i];
	}
	uint64_t sum = 0;
	for (size_t i = 0; i < p->ncontexts; i++) {
		if (p->contexts[i].node != node)
			continue;
		int inner = 0;
		for (uint32_t c = p->contexts[i].parent; c != ZP_NONE; c = p->contexts[c].parent)
			inner |= p->contexts[c].node == node;
		if (!inner)
			sum += incl[i];
	}
	free(incl);
	return sum;
}

/*
 * progs/prologue.c: probed() spends nearly all of its time probing its
 * 1 MiB frame before its entry hook, mixed() (inlined into mix_loop) in
 * mix_loop's code between its own hooks; both loops run 0.4 s.  Of each
 * loop's inclusive samples its callee gets at least three quarters: its
 * loop's own work is a counter and a clock read once in 256 calls.
 */
static void check_prologue(const struct zp_profile *p, const struct zp_view *v, int ev)
{
	const char *pairs[][2] = {{"probe_loop", "probed"}, {"mix_loop", "mixed"}};
	for (size_t i = 0; i < 2; i++) {
		uint32_t loop = node_named(p, pairs[i][0]), callee = node_named(p, pairs[i][1]);
		if (!CHECK(loop != ZP_NONE && callee != ZP_NONE))
			continue;
		uint64_t in_loop = v->nodes[loop].incl[ev], own = v->nodes[callee].self[ev];
		CHECK(in_loop >= 100); /* 400 at 1 ms; the kernel may lose a few */
		if (!CHECK(own * 4 >= in_loop * 3))
			fprintf(stderr, "%s: %llu of %s's %llu samples\n", pairs[i][1],
				(unsigned long long)own, pairs[i][0], (unsigned long long)in_loop);
	}
	CHECK(profile_meta(p, "samples_unplaced") == NULL);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int stopped = argc > 2 && strcmp(argv[2], "stopped") == 0;
	int prologue = argc > 2 && strcmp(argv[2], "prologue") == 0;
	struct zp_profile *p = profile_new();
	struct symbols *syms = symbols_new();
	DIR *d = opendir(argv[1]);
	struct dirent *e;
	char path[4096];
	while (d && (e = readdir(d))) {
		if (fnmatch("*.zraw", e->d_name, 0))
			continue;
		snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
		struct zerr err;
		if (!CHECK(raw_read_into(p, path, syms, &err) == 0))
			fprintf(stderr, "%s\n", err.msg);
	}
	if (d)
		closedir(d);
	int ev = profile_find_event(p, "samples"), cpu = profile_find_event(p, "cpu-time");
	CHECK(ev >= 0 && cpu >= 0);
	CHECK(profile_find_event(p, "time") < 0); /* sampled mode reads no clock */
	if (ev < 0 || cpu < 0)
		return check_done();

	/* every sample is the program's (a context), zond's own, or lost */
	uint64_t in_contexts = 0;
	for (size_t i = 0; i < p->ncontexts; i++)
		in_contexts += p->contexts[i].self[ev];
	uint64_t total = meta_count(p, "samples");
	CHECK(total > 0);
	CHECK_EQ_U64(in_contexts + meta_count(p, "samples_zond") + meta_count(p, "samples_lost"),
		     total);
	uint64_t period = meta_count(p, "sample_period_ns");
	CHECK_EQ_U64(period, 1000000);

	/*
	 * cpu-time is samples x period plus calls x what a call's empty hooks
	 * cost (run meta hook_pair_ns, measured at start-up, 3 decimals), per
	 * context; a sane few ns.
	 */
	const char *hook_meta = profile_meta(p, "hook_pair_ns");
	double hook = hook_meta ? strtod(hook_meta, NULL) : 0;
	if (!CHECK(hook > 0.1 && hook < 100))
		fprintf(stderr, "hook_pair_ns %s\n", hook_meta ? hook_meta : "missing");
	for (size_t i = 0; i < p->ncontexts; i++) {
		const struct zp_context *c = &p->contexts[i];
		uint64_t sampled = c->self[ev] * period;
		if (!CHECK(c->self[cpu] >= sampled))
			continue;
		double model = (double)(c->self[cpu] - sampled), want = (double)c->calls * hook;
		if (!CHECK(fabs(model - want) <= 1 + want * 0.001))
			fprintf(stderr, "context %zu: %.0f ns for %" PRIu64 " calls, not %.0f\n", i,
				model, c->calls, want);
	}

	struct zp_view *v = profile_view(p, ZP_NONE);
	if (prologue) {
		check_prologue(p, v, ev);
		profile_view_free(v);
		profile_free(p);
		symbols_free(syms);
		return check_done();
	}
	const char *names[] = {"main", "hot", "cold", "spin", "worker"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		uint32_t n = node_named(p, names[i]);
		if (!CHECK(n != ZP_NONE))
			continue;
		CHECK_EQ_U64(v->nodes[n].incl[ev], incl_from_contexts(p, n, ev));
		CHECK_EQ_U64(v->nodes[n].incl[cpu], incl_from_contexts(p, n, cpu));
	}
	/*
	 * Not the workers': the kernel checks CPU-time timers at its tick, and
	 * on a loaded machine a 20 ms thread has been seen to get anything from
	 * 1 to 19 of its samples, with or without zond.
	 */
	uint32_t hot = node_named(p, "hot"), cold = node_named(p, "cold");
	if (hot != ZP_NONE && cold != ZP_NONE) {
		/* 200 ms of the run's 260 (or 280) ms of CPU time */
		CHECK(v->nodes[hot].incl[ev] * 10 >= total * 6);
		CHECK(v->nodes[hot].incl[ev] > 4 * v->nodes[cold].incl[ev]);
	}
	CHECK(stopped == (profile_meta(p, "sampling_stopped") != NULL));
	profile_view_free(v);
	profile_free(p);
	symbols_free(syms);
	return check_done();
}
