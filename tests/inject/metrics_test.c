/*
 * metrics_test.c - the metrics' dependency graph: a metric is computed
 * exactly when all its inputs are in the result set, with the value its
 * definition gives; a missing input or a zero divisor leaves it out; only
 * the share is monotone.  Inputs are taken from a profile the test builds
 * (two threads of one function), as the store gives them back.
 */
#include <string.h>

#include "check.h"
#include "inject/metrics.h"

static ptrdiff_t find(const char *name)
{
	size_t n;
	const struct metric *ms = metrics_all(&n);
	for (size_t m = 0; m < n; m++)
		if (strcmp(ms[m].name, name) == 0)
			return (ptrdiff_t)m;
	return -1;
}

int main(void)
{
	size_t n;
	const struct metric *ms = metrics_all(&n);
	double v[16];
	unsigned char done[16];
	ptrdiff_t share = find("share"), per = find("per-call"), ipc = find("ipc"),
		  mpki = find("mpki"), self = find("self-share");
	CHECK(share >= 0 && per >= 0 && ipc >= 0 && mpki >= 0 && self >= 0 && n <= 16);
	for (size_t m = 0; m < n; m++)
		CHECK(ms[m].monotone == ((ptrdiff_t)m == share));

	/* a profile: f on two threads, time only (rdtsc, no PMU) */
	struct zp_profile *p = profile_new();
	p->run.duration_ns = 2000;
	unsigned t = profile_event(p, "time", "ns");
	uint32_t f = profile_node(p, ZP_FUNCTION, "f", "/x", "", 0, 0x10);
	for (int th = 0; th < 2; th++) {
		struct zp_stat *st = profile_stat(p, profile_thread(p, 1, 1 + th, NULL), f);
		st->calls = 5;
		st->incl[t] = 250;
		st->self[t] = 100;
	}
	struct metric_inputs in;
	metrics_inputs(p, f, &in);
	CHECK_EQ_U64(metrics_compute(&in, v, done), 3);
	CHECK(done[share] && v[share] == 25.0); /* 500 of 2000 ns */
	CHECK(done[self] && v[self] == 10.0);
	CHECK(done[per] && v[per] == 50.0); /* 500 ns over 10 calls */
	CHECK(!done[ipc] && !done[mpki]);

	/* cycles and instructions in the same set: IPC; misses too: MPKI */
	unsigned cy = profile_event(p, "cycles", "cycles");
	unsigned ins = profile_event(p, "instructions", "instructions");
	for (size_t s = 0; s < p->nstats; s++) {
		p->stats[s].incl[cy] = 400;
		p->stats[s].incl[ins] = 1000;
	}
	metrics_inputs(p, f, &in);
	CHECK_EQ_U64(metrics_compute(&in, v, done), 4);
	CHECK(done[ipc] && v[ipc] == 2.5 && !done[mpki]);
	unsigned cm = profile_event(p, "cache-misses", "misses");
	p->stats[0].incl[cm] = 3;
	metrics_inputs(p, f, &in);
	CHECK_EQ_U64(metrics_compute(&in, v, done), 5);
	CHECK(done[mpki] && v[mpki] == 1.5); /* 3 per 2000 instructions */

	/* no run time: no shares; no calls recorded: per-call left out (0 divisor) */
	p->run.duration_ns = 0;
	for (size_t s = 0; s < p->nstats; s++)
		p->stats[s].calls = 0;
	metrics_inputs(p, f, &in);
	CHECK_EQ_U64(metrics_compute(&in, v, done), 2);
	CHECK(!done[share] && !done[self] && !done[per] && done[ipc] && done[mpki]);

	/* --event task-clock (ns of CPU time): the time metrics as on the TSC (QA s13 U F9) */
	struct zp_profile *q = profile_new();
	q->run.duration_ns = 1000;
	unsigned tc = profile_event(q, "task-clock", "ns");
	uint32_t h = profile_node(q, ZP_FUNCTION, "h", "/x", "", 0, 0x10);
	struct zp_stat *hs = profile_stat(q, profile_thread(q, 1, 1, NULL), h);
	hs->calls = 4;
	hs->incl[tc] = 400;
	hs->self[tc] = 100;
	metrics_inputs(q, h, &in);
	CHECK_EQ_U64(metrics_compute(&in, v, done), 3);
	CHECK(done[share] && v[share] == 40.0 && done[self] && v[self] == 10.0);
	CHECK(done[per] && v[per] == 100.0);
	profile_free(q);

	/* a node with no statistics in this run has no inputs but the run's */
	uint32_t g = profile_node(p, ZP_FUNCTION, "g", "/x", "", 0, 0x20);
	metrics_inputs(p, g, &in);
	CHECK_EQ_U64(metrics_compute(&in, v, done), 0);
	profile_free(p);
	return check_done();
}
