/* fixture.c - the hand-built profile described in fixture.h. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>

static const uint64_t factor[2] = {1, 3}; /* time, cycles */

static void set_stat(struct zp_profile *p, uint32_t thread, uint32_t node, uint64_t calls,
		     uint64_t self, uint64_t incl, uint64_t min, uint64_t max)
{
	struct zp_stat *s = profile_stat(p, thread, node);
	s->calls = calls;
	for (size_t e = 0; e < p->nevents; e++) {
		s->self[e] = self * factor[e];
		s->incl[e] = incl * factor[e];
		s->min[e] = min * factor[e];
		s->max[e] = max * factor[e];
	}
}

static void set_edge(struct zp_profile *p, uint32_t thread, uint32_t caller, uint32_t callee,
		     uint64_t calls, uint64_t incl, int site_line)
{
	struct zp_edge *e = profile_edge(p, thread, ZP_CALL, caller, callee);
	e->calls = calls;
	e->site_line = site_line;
	for (size_t i = 0; i < p->nevents; i++)
		e->incl[i] = incl * factor[i];
}

struct zp_profile *fixture_profile(unsigned nevents)
{
	struct zp_profile *p = profile_new();
	struct zp_run *r = &p->run;
	r->id = 7;
	profile_set_str(&r->collector, "record");
	profile_set_str(&r->command, "./app --fast");
	profile_set_str(&r->host, "box");
	profile_set_str(&r->arch, "x86_64");
	profile_set_str(&r->clock, "tsc");
	r->start_ns = 1700000000000000000; /* 2023-11-14 22:13:20 UTC */
	r->duration_ns = 15000000;
	r->pid = 100;
	r->exit_status = 0;
	r->overhead_ns = 12;
	if (nevents >= 1)
		profile_event(p, "time", "ns");
	if (nevents >= 2)
		profile_event(p, "cycles", "cycles");

	uint32_t t0 = profile_thread(p, 100, 100, "app");
	uint32_t t1 = profile_thread(p, 100, 101, "worker");
	const char *app = "/usr/bin/app";
	profile_node(p, ZP_FUNCTION, "main", app, "main.c", 10, 0x1000);
	profile_node(p, ZP_FUNCTION, "work", app, "work.c", 20, 0x1100);
	profile_node(p, ZP_FUNCTION, "helper", app, "work.c", 40, 0x1200);
	profile_node(p, ZP_BLOCK, "parse", app, "main.c", 15, 0);
	profile_node(p, ZP_FUNCTION, "worker_main", app, "main.c", 50, 0x1300);
	profile_node(p, ZP_FUNCTION, "fact", app, "work.c", 60, 0x1400);

	set_stat(p, t0, FX_MAIN, 1, 1000, 10000, 10000, 10000);
	set_stat(p, t0, FX_WORK, 4, 6000, 8000, 1500, 2500);
	set_stat(p, t0, FX_HELPER, 8, 2000, 2000, 200, 300);
	set_stat(p, t0, FX_PARSE, 2, 1000, 1000, 400, 600);
	set_edge(p, t0, ZP_NONE, FX_MAIN, 1, 10000, 0);
	set_edge(p, t0, FX_MAIN, FX_WORK, 4, 8000, 12);
	set_edge(p, t0, FX_MAIN, FX_PARSE, 2, 1000, 13);
	set_edge(p, t0, FX_WORK, FX_HELPER, 8, 2000, 25);

	set_stat(p, t1, FX_WORKER_MAIN, 1, 500, 3500, 3500, 3500);
	set_stat(p, t1, FX_HELPER, 3, 600, 600, 150, 250);
	set_stat(p, t1, FX_FACT, 5, 2400, 2400, 480, 2400);
	set_edge(p, t1, ZP_NONE, FX_WORKER_MAIN, 1, 3500, 0);
	set_edge(p, t1, FX_WORKER_MAIN, FX_HELPER, 3, 600, 52);
	set_edge(p, t1, FX_WORKER_MAIN, FX_FACT, 1, 2400, 53);
	set_edge(p, t1, FX_FACT, FX_FACT, 4, 4800, 62);
	return p;
}

char *fixture_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t len = 0, cap = 4096;
	char *buf = zp_xmalloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			buf = zp_xrealloc(buf, cap *= 2);
	}
	fclose(f);
	buf[len] = 0;
	return buf;
}
