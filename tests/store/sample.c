#define _GNU_SOURCE /* asprintf */

#include "sample.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct zp_profile *sample_profile(const char *campaign)
{
	struct zp_profile *p = profile_new();
	struct zp_run *r = &p->run;
	profile_set_str(&r->campaign, campaign);
	profile_set_str(&r->collector, "record");
	profile_set_str(&r->command, "./shop --orders 3 'a b'");
	profile_set_str(&r->host, NULL); /* unknown host stays NULL */
	profile_set_str(&r->arch, "x86_64");
	profile_set_str(&r->clock, "tsc");
	r->start_ns = 1700000000123456789;
	r->duration_ns = 987654321;
	r->pid = 4242;
	r->exit_status = -1;
	r->term_signal = 11;
	r->overhead_ns = 12.625;
	profile_add_meta(p, "lost_funcs", "3");
	profile_add_meta(p, "note", "");
	profile_add_meta(p, "aaa", "sorted after the others on purpose");

	unsigned time = profile_event(p, "time", "ns");
	unsigned ir = profile_event(p, "Ir", "instructions");
	uint32_t t0 = profile_thread(p, 4242, 4242, "main");
	uint32_t t1 = profile_thread(p, 4243, 4243, ""); /* a forked child */

	uint32_t main_ =
		profile_node(p, ZP_FUNCTION, "main", "/usr/bin/shop", "/src/shop.c", 10, 0x1139);
	uint32_t f = profile_node(p, ZP_FUNCTION, "ns::f(int)", "/lib/libx.so", "", 0,
				  0xffffffff00001000ull);
	uint32_t blk = profile_node(p, ZP_BLOCK, "checkout", "", "/src/shop.c", 42, 0);
	uint32_t bb1 = profile_node(p, ZP_BASIC_BLOCK, "main+0x10", "/usr/bin/shop", "", 0, 0x1149);
	uint32_t bb2 = profile_node(p, ZP_BASIC_BLOCK, "main+0x20", "/usr/bin/shop", "", 0, 0x1159);
	p->nodes[bb1].parent = main_;
	p->nodes[bb2].parent = main_;

	struct zp_stat *s = profile_stat(p, t0, main_);
	s->calls = 1;
	s->self[time] = 1000;
	s->incl[time] = UINT64_MAX - 1;
	s->min[time] = 1ull << 63;
	s->max[time] = UINT64_MAX - 1;
	s->self[ir] = 5; /* min of Ir stays UINT64_MAX: nothing measured */
	s = profile_stat(p, t0, f);
	s->calls = UINT64_MAX;
	s->self[time] = s->incl[time] = s->min[time] = s->max[time] = 7;
	s = profile_stat(p, t1, blk);
	s->calls = 2;
	profile_stat(p, t1, main_); /* all zero, min UINT64_MAX */

	struct zp_edge *e = profile_edge(p, t0, ZP_CALL, ZP_NONE, main_);
	e->calls = 1;
	e->incl[time] = UINT64_MAX - 1;
	e = profile_edge(p, t0, ZP_CALL, main_, f);
	e->calls = 3;
	e->site = 0xffffffffffff0000ull;
	e->site_line = 12;
	e->incl[time] = 21;
	e->incl[ir] = 1ull << 40;
	e = profile_edge(p, t0, ZP_JUMP, bb1, bb2);
	e->calls = 9;
	e->taken = 4;
	e = profile_edge(p, t1, ZP_CALL, ZP_NONE, blk);
	e->calls = 2;

	/* Contexts: main -> f -> f (recursion keeps the path) on t0, blk on t1. */
	uint32_t c_main = profile_context(p, t0, ZP_NONE, main_);
	uint32_t c_blk = profile_context(p, t1, ZP_NONE, blk);
	uint32_t c_f = profile_context(p, t0, c_main, f);
	uint32_t c_ff = profile_context(p, t0, c_f, f);
	struct zp_context *c = &p->contexts[c_main];
	c->calls = 1;
	c->self[time] = 1000;
	c->incl[time] = UINT64_MAX - 1;
	c->min[time] = 1ull << 63;
	c->max[time] = UINT64_MAX - 1;
	c = &p->contexts[c_f];
	c->calls = 2;
	c->site = 0xffffffffffff0000ull;
	c->site_line = -3;
	c->self[time] = 5;
	c->incl[time] = c->max[time] = 7;
	c->min[time] = 0;
	c->incl[ir] = 1ull << 40;
	c = &p->contexts[c_ff];
	c->calls = UINT64_MAX;
	c->self[time] = c->incl[time] = c->min[time] = c->max[time] = 2;
	p->contexts[c_blk].calls = 2;

	/* The timeline: main for 1 ms, f inside it cut at its start, blk (t1) never seen ending. */
	profile_add_meta(p, "timeline_unit", "ns");
	profile_add_span(p, t0, main_, 0, 0, r->start_ns, r->start_ns + 1000000);
	profile_add_span(p, t0, f, 1, ZP_SPAN_NO_START, r->start_ns + 10, r->start_ns + 20);
	profile_add_span(p, t1, blk, 0, ZP_SPAN_NO_END, -5, 100);
	return p;
}

struct zp_profile *sample_big_profile(size_t nthreads, size_t nfuncs)
{
	struct zp_profile *p = profile_new();
	profile_set_str(&p->run.collector, "record");
	unsigned time = profile_event(p, "time", "ns");
	for (size_t f = 0; f < nfuncs; f++) {
		char name[32];
		snprintf(name, sizeof name, "func_%zu", f);
		profile_node(p, ZP_FUNCTION, name, "/bin/big", "big.c", (int)f + 1,
			     0x1000 + f * 16);
	}
	for (size_t t = 0; t < nthreads; t++) {
		uint32_t th = profile_thread(p, 100, 100 + (int64_t)t, "worker");
		for (size_t f = 0; f < nfuncs; f++) {
			struct zp_stat *s = profile_stat(p, th, (uint32_t)f);
			s->calls = f + 1;
			s->self[time] = f * 3 + t;
			s->incl[time] = f * 5 + t;
			s->min[time] = f;
			s->max[time] = f * 4;
			struct zp_edge *e = profile_edge(
				p, th, ZP_CALL, f ? (uint32_t)f - 1 : ZP_NONE, (uint32_t)f);
			e->calls = f + 1;
			e->incl[time] = f * 5 + t;
		}
		uint32_t parent = ZP_NONE;
		for (size_t f = 0; f < nfuncs; f++) {
			parent = profile_context(p, th, parent, (uint32_t)f);
			struct zp_context *c = &p->contexts[parent];
			c->calls = f + 1;
			c->self[time] = f * 3 + t;
			c->incl[time] = f * 5 + t;
			c->min[time] = f;
			c->max[time] = f * 4;
		}
	}
	return p;
}

/*
 * The comparison counts and prints its own mismatches (naming the field)
 * rather than using check.h, whose counters are private to each test's main file.
 */
#define MAX_PRINTED 20

static int mismatches;

static void same_u64(const char *what, size_t i, uint64_t a, uint64_t b)
{
	if (a == b)
		return;
	if (++mismatches <= MAX_PRINTED)
		fprintf(stderr, "    %s (element %zu): %" PRIu64 " != %" PRIu64 "\n", what, i, a,
			b);
}

static void same_str(const char *what, size_t i, const char *a, const char *b)
{
	if (a == b || (a && b && strcmp(a, b) == 0))
		return;
	if (++mismatches <= MAX_PRINTED)
		fprintf(stderr, "    %s (element %zu): \"%s\" != \"%s\"\n", what, i,
			a ? a : "(null)", b ? b : "(null)");
}

static void same_run(const struct zp_run *a, const struct zp_run *b)
{
	same_str("campaign", 0, a->campaign, b->campaign);
	same_str("collector", 0, a->collector, b->collector);
	same_str("command", 0, a->command, b->command);
	same_str("host", 0, a->host, b->host);
	same_str("arch", 0, a->arch, b->arch);
	same_str("clock", 0, a->clock, b->clock);
	same_u64("start_ns", 0, (uint64_t)a->start_ns, (uint64_t)b->start_ns);
	same_u64("duration_ns", 0, (uint64_t)a->duration_ns, (uint64_t)b->duration_ns);
	same_u64("pid", 0, (uint64_t)a->pid, (uint64_t)b->pid);
	same_u64("exit_status", 0, (uint64_t)a->exit_status, (uint64_t)b->exit_status);
	same_u64("term_signal", 0, (uint64_t)a->term_signal, (uint64_t)b->term_signal);
	same_u64("overhead_ns", 0, a->overhead_ns != b->overhead_ns, 0);
	same_u64("nmeta", 0, a->nmeta, b->nmeta);
	for (size_t i = 0; i < a->nmeta && i < b->nmeta; i++) {
		same_str("meta key", i, a->meta[i].key, b->meta[i].key);
		same_str("meta value", i, a->meta[i].value, b->meta[i].value);
	}
}

static void same_nodes(const struct zp_profile *a, const struct zp_profile *b)
{
	same_u64("nnodes", 0, a->nnodes, b->nnodes);
	for (size_t i = 0; i < a->nnodes && i < b->nnodes; i++) {
		const struct zp_node *x = &a->nodes[i], *y = &b->nodes[i];
		same_u64("node kind", i, x->kind, y->kind);
		same_str("node name", i, x->name, y->name);
		same_str("node module", i, x->module, y->module);
		same_str("node file", i, x->file, y->file);
		same_u64("node line", i, (uint64_t)x->line, (uint64_t)y->line);
		same_u64("node addr", i, x->addr, y->addr);
		same_u64("node parent", i, x->parent, y->parent);
	}
}

static void same_stats(const struct zp_profile *a, const struct zp_profile *b)
{
	same_u64("nstats", 0, a->nstats, b->nstats);
	for (size_t i = 0; i < a->nstats && i < b->nstats; i++) {
		const struct zp_stat *x = &a->stats[i], *y = &b->stats[i];
		same_u64("stat thread", i, x->thread, y->thread);
		same_u64("stat node", i, x->node, y->node);
		same_u64("stat calls", i, x->calls, y->calls);
		/* Every slot, also those past nevents: they must keep their defaults. */
		for (size_t e = 0; e < ZP_MAX_EVENTS; e++) {
			same_u64("stat self", i, x->self[e], y->self[e]);
			same_u64("stat incl", i, x->incl[e], y->incl[e]);
			same_u64("stat min", i, x->min[e], y->min[e]);
			same_u64("stat max", i, x->max[e], y->max[e]);
		}
	}
}

static void same_edges(const struct zp_profile *a, const struct zp_profile *b)
{
	same_u64("nedges", 0, a->nedges, b->nedges);
	for (size_t i = 0; i < a->nedges && i < b->nedges; i++) {
		const struct zp_edge *x = &a->edges[i], *y = &b->edges[i];
		same_u64("edge thread", i, x->thread, y->thread);
		same_u64("edge kind", i, x->kind, y->kind);
		same_u64("edge caller", i, x->caller, y->caller);
		same_u64("edge callee", i, x->callee, y->callee);
		same_u64("edge calls", i, x->calls, y->calls);
		same_u64("edge taken", i, x->taken, y->taken);
		same_u64("edge site", i, x->site, y->site);
		same_u64("edge site_line", i, (uint64_t)x->site_line, (uint64_t)y->site_line);
		for (size_t e = 0; e < ZP_MAX_EVENTS; e++)
			same_u64("edge incl", i, x->incl[e], y->incl[e]);
	}
}

static void same_contexts(const struct zp_profile *a, const struct zp_profile *b)
{
	same_u64("ncontexts", 0, a->ncontexts, b->ncontexts);
	for (size_t i = 0; i < a->ncontexts && i < b->ncontexts; i++) {
		const struct zp_context *x = &a->contexts[i], *y = &b->contexts[i];
		same_u64("context thread", i, x->thread, y->thread);
		same_u64("context parent", i, x->parent, y->parent);
		same_u64("context node", i, x->node, y->node);
		same_u64("context site", i, x->site, y->site);
		same_u64("context site_line", i, (uint64_t)x->site_line, (uint64_t)y->site_line);
		same_u64("context calls", i, x->calls, y->calls);
		for (size_t e = 0; e < ZP_MAX_EVENTS; e++) {
			same_u64("context self", i, x->self[e], y->self[e]);
			same_u64("context incl", i, x->incl[e], y->incl[e]);
			same_u64("context min", i, x->min[e], y->min[e]);
			same_u64("context max", i, x->max[e], y->max[e]);
		}
	}
}

int sample_mismatches(const struct zp_profile *a, const struct zp_profile *b)
{
	mismatches = 0;
	same_run(&a->run, &b->run);
	same_u64("nevents", 0, a->nevents, b->nevents);
	for (size_t i = 0; i < a->nevents && i < b->nevents; i++) {
		same_str("event name", i, a->events[i].name, b->events[i].name);
		same_str("event unit", i, a->events[i].unit, b->events[i].unit);
	}
	same_u64("nthreads", 0, a->nthreads, b->nthreads);
	for (size_t i = 0; i < a->nthreads && i < b->nthreads; i++) {
		same_u64("thread pid", i, (uint64_t)a->threads[i].pid, (uint64_t)b->threads[i].pid);
		same_u64("thread tid", i, (uint64_t)a->threads[i].tid, (uint64_t)b->threads[i].tid);
		same_str("thread name", i, a->threads[i].name, b->threads[i].name);
	}
	same_nodes(a, b);
	same_stats(a, b);
	same_edges(a, b);
	same_contexts(a, b);
	same_u64("nspans", 0, a->nspans, b->nspans);
	for (size_t i = 0; i < a->nspans && i < b->nspans; i++) {
		const struct zp_span *x = &a->spans[i], *y = &b->spans[i];
		same_u64("span thread", i, x->thread, y->thread);
		same_u64("span node", i, x->node, y->node);
		same_u64("span depth", i, x->depth, y->depth);
		same_u64("span flags", i, x->flags, y->flags);
		same_u64("span start", i, (uint64_t)x->start, (uint64_t)y->start);
		same_u64("span end", i, (uint64_t)x->end, (uint64_t)y->end);
	}
	return mismatches;
}

void sample_run_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "%s: %s: %s\n", path, sql, msg ? msg : sqlite3_errmsg(db));
		exit(2);
	}
	sqlite3_close(db);
}

int64_t sample_sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -12345;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	} else {
		fprintf(stderr, "    %s: %s\n", sql, sqlite3_errmsg(db));
	}
	sqlite3_close(db);
	return v;
}

char *sample_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = NULL;
	if (asprintf(&dir, "%s/zond-store-test.XXXXXX", base && *base ? base : "/tmp") < 0 ||
	    !mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	return dir;
}

char *sample_path(const char *dir, const char *name)
{
	char *path = NULL;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		exit(2);
	return path;
}

void sample_rmdir(char *dir)
{
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0 && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	free(cmd);
	free(dir);
}
