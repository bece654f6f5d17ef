/* fixture.c - the hand-built profile described in fixture.h. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* One context row of fixture.h's table: "a;b;c" is found or added along its path. */
struct context_row {
	uint32_t thread;
	const char *path;
	uint64_t calls, self, incl;
};

static const struct context_row context_rows[] = {
	{0, "main", 1, 100, 1000},      {0, "main;A", 2, 50, 350},
	{0, "main;A;C", 2, 100, 300},   {0, "main;A;C;X", 4, 200, 200},
	{0, "main;B", 1, 50, 450},      {0, "main;B;C", 3, 100, 400},
	{0, "main;B;C;Y", 3, 300, 300}, {0, "main;f", 1, 10, 100},
	{0, "main;f;g", 1, 20, 90},     {0, "main;f;g;f", 1, 30, 70},
	{0, "main;f;g;f;g", 1, 40, 40}, {1, "worker", 1, 60, 200},
	{1, "worker;C", 1, 40, 140},    {1, "worker;C;X", 2, 100, 100},
};

static uint32_t node_named(const struct zp_profile *p, const char *name, size_t len)
{
	for (uint32_t n = 0; n < p->nnodes; n++)
		if (strlen(p->nodes[n].name) == len && strncmp(p->nodes[n].name, name, len) == 0)
			return n;
	abort();
}

/* Adds the row's context and, as a collector would, its share of the flat stats and edges. */
static void add_context_row(struct zp_profile *p, const struct context_row *r)
{
	uint32_t c = ZP_NONE, caller = ZP_NONE, node = ZP_NONE;
	int outermost = 1;
	for (const char *s = r->path; *s;) {
		size_t len = strcspn(s, ";");
		caller = node;
		node = node_named(p, s, len);
		c = profile_context(p, r->thread, c, node);
		s += len + (s[len] == ';');
	}
	for (uint32_t up = p->contexts[c].parent; up != ZP_NONE; up = p->contexts[up].parent)
		outermost &= p->contexts[up].node != node;
	struct zp_context *x = &p->contexts[c];
	struct zp_stat *st = profile_stat(p, r->thread, node);
	struct zp_edge *e = profile_edge(p, r->thread, ZP_CALL, caller, node);
	x->calls = r->calls;
	x->site_line = caller == ZP_NONE ? 0 : p->nodes[caller].line + 1;
	st->calls += r->calls;
	e->calls += r->calls;
	e->site_line = x->site_line;
	for (size_t i = 0; i < p->nevents; i++) {
		x->self[i] = r->self * factor[i];
		x->incl[i] = r->incl * factor[i];
		x->min[i] = x->max[i] = x->incl[i] / r->calls;
		st->self[i] += x->self[i];
		st->incl[i] += outermost ? x->incl[i] : 0;
		st->min[i] = st->min[i] < x->min[i] ? st->min[i] : x->min[i];
		st->max[i] = st->max[i] > x->max[i] ? st->max[i] : x->max[i];
		e->incl[i] += x->incl[i];
	}
}

struct zp_profile *fixture_context_profile(unsigned nevents)
{
	static const char *const names[] = {"main", "A", "B", "C", "X", "Y", "f", "g", "worker"};
	struct zp_profile *p = profile_new();
	p->run.id = 8;
	profile_set_str(&p->run.collector, "record");
	profile_set_str(&p->run.command, "./paths");
	p->run.pid = 200;
	if (nevents >= 1)
		profile_event(p, "time", "ns");
	if (nevents >= 2)
		profile_event(p, "cycles", "cycles");
	profile_thread(p, 200, 200, "main");
	profile_thread(p, 200, 201, "worker");
	for (int i = 0; i < 9; i++)
		profile_node(p, ZP_FUNCTION, names[i], "/usr/bin/paths", "paths.c", 10 * (i + 1),
			     0x1000 + 0x100 * (uint64_t)i);
	for (size_t i = 0; i < sizeof context_rows / sizeof context_rows[0]; i++)
		add_context_row(p, &context_rows[i]);
	return p;
}

struct zp_profile *fixture_timeline_profile(void)
{
	static const struct {
		uint32_t thread, node, depth;
		int64_t start, end; /* ns after the start */
	} spans[] = {
		{0, TL_MAIN, 0, 0, 10000}, {0, TL_F, 1, 1000, 4000},      {0, TL_G, 2, 1500, 2500},
		{0, TL_F, 1, 5000, 9000},  {0, TL_G, 2, 6000, 8000},      {0, TL_F, 3, 6500, 7500},
		{0, TL_G, 2, 8000, 8500},  {1, TL_WORKER, 0, 2000, 6000}, {1, TL_F, 1, 3000, 5000},
	};
	static const char *const names[] = {"main", "f", "g", "worker"};
	struct zp_profile *p = profile_new();
	p->run.id = 9;
	profile_set_str(&p->run.collector, "record");
	profile_set_str(&p->run.command, "./timeline");
	p->run.pid = 300;
	p->run.start_ns = TL_START;
	profile_add_meta(p, "timeline_unit", "ns");
	profile_thread(p, 300, 300, "main");
	profile_thread(p, 300, 301, "worker");
	for (int i = 0; i < 4; i++)
		profile_node(p, ZP_FUNCTION, names[i], "/usr/bin/timeline", "timeline.c", i + 1,
			     0x1000 + 0x10 * (uint64_t)i);
	for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++)
		profile_add_span(p, spans[i].thread, spans[i].node, spans[i].depth, 0,
				 TL_START + spans[i].start, TL_START + spans[i].end);
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
