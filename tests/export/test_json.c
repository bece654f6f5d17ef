/*
 * test_json.c - the JSON export, parsed back by Python's json module.
 *
 * json_dump.py prints what the parser read as plain lines; this test writes
 * the lines the model says it must have read and compares the two: every
 * field of the run, events, nodes, edges, contexts and threads, summed or
 * for one thread, with 0, 1 and 2 events.  Strings with quotes,
 * backslashes, control characters, UTF-8 and invalid bytes must decode as
 * documented.  json_stacks.py follows the contexts' parents to the stacks
 * they describe, which must be exactly those of fixture.h's table.
 *
 * Usage: test_export_json WORKDIR JSON_DUMP_PY JSON_STACKS_PY
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export/export.h"
#include "fixture.h"

static void put_hex(FILE *out, const char *s)
{
	fputc(' ', out);
	if (!s) {
		fputc('-', out);
		return;
	}
	for (; *s; s++)
		fprintf(out, "%02x", (unsigned char)*s);
}

static void put_costs(FILE *out, const struct zp_profile *p, const uint64_t *cost)
{
	for (size_t i = 0; i < p->nevents; i++)
		cost[i] == UINT64_MAX ? fputs(" -", out) : fprintf(out, " %" PRIu64, cost[i]);
}

static void put_stat(FILE *out, const struct zp_profile *p, const struct zp_stat *s)
{
	fprintf(out, " %" PRIu64, s->calls);
	put_costs(out, p, s->self);
	put_costs(out, p, s->incl);
	put_costs(out, p, s->min);
	put_costs(out, p, s->max);
	fputc('\n', out);
}

static void put_contexts(FILE *out, const struct zp_profile *p, const char *prefix, uint32_t thread)
{
	struct zp_context_view *cv = profile_context_view(p, thread);
	for (uint32_t i = 0; i < cv->ncontexts; i++) {
		const struct zp_context *c = &cv->contexts[i];
		fprintf(out, "%scontext %" PRIu32 " ", prefix, i);
		c->parent == ZP_NONE ? fputs("-", out) : fprintf(out, "%" PRIu32, c->parent);
		fprintf(out, " %" PRIu32 " %" PRIu64 " %d %" PRIu64, c->node, c->site, c->site_line,
			c->calls);
		put_costs(out, p, c->self);
		put_costs(out, p, c->incl);
		put_costs(out, p, c->min);
		put_costs(out, p, c->max);
		fputc('\n', out);
	}
	profile_context_view_free(cv);
}

static void put_edge(FILE *out, const struct zp_profile *p, const char *prefix,
		     const struct zp_edge *e)
{
	static const char *const kinds[] = {"call", "jump", "transfer"};
	fprintf(out, "%sedge %s ", prefix, kinds[e->kind]);
	e->caller == ZP_NONE ? fputs("-", out) : fprintf(out, "%" PRIu32, e->caller);
	fprintf(out, " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d", e->callee, e->calls,
		e->taken, e->site, e->site_line);
	put_costs(out, p, e->incl);
	fputc('\n', out);
}

/* The lines json_dump.py must print for p exported for thread. */
static char *expected(const struct zp_profile *p, uint32_t thread)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const struct zp_run *r = &p->run;
	struct zp_view *v = profile_view(p, thread);
	fprintf(out, "format zond-profile 1\nrun %" PRId64, r->id);
	const char *strings[] = {r->campaign, r->collector, r->command, r->host, r->arch, r->clock};
	for (size_t i = 0; i < 6; i++)
		put_hex(out, strings[i]);
	fprintf(out, " %" PRId64 " %" PRId64 " %" PRId64 " %d %d %g\n", r->start_ns, r->duration_ns,
		r->pid, r->exit_status, r->term_signal, r->overhead_ns);
	for (size_t i = 0; i < r->nmeta; i++) {
		fputs("meta", out);
		put_hex(out, r->meta[i].key);
		put_hex(out, r->meta[i].value);
		fputc('\n', out);
	}
	for (size_t i = 0; i < p->nevents; i++) {
		fputs("event", out);
		put_hex(out, p->events[i].name);
		put_hex(out, p->events[i].unit);
		fputc('\n', out);
	}
	thread == ZP_NONE ? fputs("thread -\n", out) : fprintf(out, "thread %" PRIu32 "\n", thread);
	uint64_t calls = 0;
	for (size_t n = 0; n < p->nnodes; n++)
		calls += v->nodes[n].calls;
	fprintf(out, "totals %" PRIu64, calls);
	put_costs(out, p, v->total);
	fputc('\n', out);
	static const char *const kinds[] = {"function", "block", "basic_block"};
	for (uint32_t n = 0; n < p->nnodes; n++) {
		const struct zp_node *node = &p->nodes[n];
		fprintf(out, "node %" PRIu32 " %s", n, kinds[node->kind]);
		put_hex(out, node->name);
		put_hex(out, node->module);
		put_hex(out, node->file);
		fprintf(out, " %d %" PRIu64 " ", node->line, node->addr);
		node->parent == ZP_NONE ? fputs("-", out) : fprintf(out, "%" PRIu32, node->parent);
		put_stat(out, p, &v->nodes[n]);
	}
	for (size_t i = 0; i < v->nedges; i++)
		put_edge(out, p, "", &v->edges[i]);
	put_contexts(out, p, "", thread);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		if (thread != ZP_NONE && t != thread)
			continue;
		const struct zp_thread *th = &p->threads[t];
		fprintf(out, "thread %" PRIu32 " %" PRId64 " %" PRId64, t, th->pid, th->tid);
		put_hex(out, th->name);
		fputc('\n', out);
		for (size_t i = 0; i < p->nstats; i++) {
			if (p->stats[i].thread != t)
				continue;
			fprintf(out, " node %" PRIu32, p->stats[i].node);
			put_stat(out, p, &p->stats[i]);
		}
		for (size_t i = 0; i < p->nedges; i++)
			if (p->edges[i].thread == t)
				put_edge(out, p, " ", &p->edges[i]);
		put_contexts(out, p, " ", t);
	}
	fclose(out);
	profile_view_free(v);
	return buf;
}

/* Exports p, has Python parse it, and returns what it printed. */
static char *parsed(const struct zp_profile *p, uint32_t thread, const char *dir,
		    const char *script)
{
	char path[512], dump[512], cmd[1600];
	snprintf(path, sizeof path, "%s/json-%" PRIu32 ".json", dir, thread);
	snprintf(dump, sizeof dump, "%s/json-%" PRIu32 ".txt", dir, thread);
	/* Each script prints to its own file. */
	if (strstr(script, "stacks"))
		strcat(dump, ".stacks");
	FILE *f = fopen(path, "w");
	struct export_options o = {.thread = thread};
	struct zerr err;
	if (!f || export_json(p, &o, f, &err) != 0 || fclose(f) != 0)
		return NULL;
	snprintf(cmd, sizeof cmd, "python3 %s %s > %s", script, path, dump);
	if (system(cmd) != 0)
		return NULL;
	return fixture_read_file(dump);
}

static void check_round_trip(const struct zp_profile *p, uint32_t thread, const char *dir,
			     const char *script)
{
	char *want = expected(p, thread), *got = parsed(p, thread, dir, script);
	CHECK_EQ_STR(got, want);
	free(want);
	free(got);
}

/*
 * A trace collector's profile: basic blocks with jump edges inside a
 * function and transfer edges (calls, returns) between functions' blocks;
 * each kind must keep its own name.
 */
static void check_edge_kinds(const char *dir, const char *script)
{
	struct zp_profile *p = fixture_profile(1);
	uint32_t t0 = 0;
	uint32_t head = profile_node(p, ZP_BASIC_BLOCK, "main", "/bin/app", "app.c", 10, 0x1000);
	uint32_t loop =
		profile_node(p, ZP_BASIC_BLOCK, "main+0x8", "/bin/app", "app.c", 11, 0x1008);
	uint32_t work = profile_node(p, ZP_BASIC_BLOCK, "work", "/bin/app", "app.c", 20, 0x2000);
	struct zp_edge *e = profile_edge(p, t0, ZP_JUMP, head, loop);
	e->calls = 5;
	e->taken = 4;
	e = profile_edge(p, t0, ZP_TRANSFER, loop, work);
	e->calls = 5;
	e->site = 0x100c;
	e = profile_edge(p, t0, ZP_TRANSFER, work, loop);
	e->calls = 5;
	check_round_trip(p, ZP_NONE, dir, script);
	char *got = parsed(p, ZP_NONE, dir, script);
	char want[128];
	snprintf(want, sizeof want, "edge transfer %" PRIu32 " %" PRIu32 " 5 0 4108 ", loop, work);
	CHECK(got && strstr(got, want));
	snprintf(want, sizeof want, "edge jump %" PRIu32 " %" PRIu32 " 5 4 ", head, loop);
	CHECK(got && strstr(got, want));
	free(got);
	profile_free(p);
}

static void check_strings(const char *dir, const char *script)
{
	struct zp_profile *p = fixture_profile(1);
	profile_add_meta(p, "lost_calls", "3");
	profile_set_str(&p->run.campaign, "tab\there \"quoted\" back\\slash");
	profile_set_str(&p->run.command, "ctl\x01\x1f\x7f new\nline");
	profile_set_str(&p->nodes[FX_HELPER].name, "gr\xc3\xb6\xc3\x9f"
						   "e \xe2\x86\x92 \xf0\x9f\x94\xa5");
	check_round_trip(p, ZP_NONE, dir, script);

	/* Bytes that are not UTF-8 read back as U+FFFD (ef bf bd), one per byte. */
	profile_set_str(&p->nodes[FX_WORK].name, "a\xff"
						 "b\xc0\xaf"
						 "c\xed\xa0\x80");
	char *got = parsed(p, ZP_NONE, dir, script);
	CHECK(got && strstr(got, "node 1 function 61efbfbd62efbfbdefbfbd63efbfbdefbfbdefbfbd "));
	free(got);
	profile_free(p);
}

/* text with one space before each line (static buffer, one use per expression). */
static const char *indented(const char *text)
{
	static char buf[2][1024];
	static int which;
	char *out = buf[which ^= 1];
	size_t n = 0;
	for (const char *s = text; *s && n + 2 < sizeof buf[0]; s++) {
		if (s == text || s[-1] == '\n')
			out[n++] = ' ';
		out[n++] = *s;
	}
	out[n] = 0;
	return out;
}

/* The stacks of fixture.h's table, as json_stacks.py prints them: path, calls, self, incl. */
static void check_stacks(const char *dir, const char *dump_script, const char *stacks_script)
{
	struct zp_profile *p = fixture_context_profile(1);
	check_round_trip(p, ZP_NONE, dir, dump_script);
	check_round_trip(p, 0, dir, dump_script);
	static const char thread0[] = "stack main 1 100 1000\n"
				      "stack main;A 2 50 350\n"
				      "stack main;A;C 2 100 300\n"
				      "stack main;A;C;X 4 200 200\n"
				      "stack main;B 1 50 450\n"
				      "stack main;B;C 3 100 400\n"
				      "stack main;B;C;Y 3 300 300\n"
				      "stack main;f 1 10 100\n"
				      "stack main;f;g 1 20 90\n"
				      "stack main;f;g;f 1 30 70\n"
				      "stack main;f;g;f;g 1 40 40\n";
	static const char thread1[] = "stack worker 1 60 200\n"
				      "stack worker;C 1 40 140\n"
				      "stack worker;C;X 2 100 100\n";
	char want[2048], *got = parsed(p, ZP_NONE, dir, stacks_script);
	snprintf(want, sizeof want, "%s%sthread 0\n%sthread 1\n%s", thread0, thread1,
		 indented(thread0), indented(thread1));
	CHECK_EQ_STR(got, want);
	free(got);
	got = parsed(p, 1, dir, stacks_script);
	snprintf(want, sizeof want, "%sthread 1\n%s", thread1, indented(thread1));
	CHECK_EQ_STR(got, want);
	free(got);
	profile_free(p);

	/* A run without contexts has empty lists. */
	p = fixture_profile(1);
	got = parsed(p, ZP_NONE, dir, stacks_script);
	CHECK_EQ_STR(got, "thread 0\nthread 1\n");
	free(got);
	profile_free(p);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fputs("usage: test_export_json WORKDIR JSON_DUMP_PY JSON_STACKS_PY\n", stderr);
		return 2;
	}
	for (unsigned nevents = 0; nevents <= 2; nevents++) {
		struct zp_profile *p = fixture_profile(nevents);
		check_round_trip(p, ZP_NONE, argv[1], argv[2]);
		check_round_trip(p, 1, argv[1], argv[2]);
		profile_free(p);
	}
	check_strings(argv[1], argv[2]);
	check_edge_kinds(argv[1], argv[2]);
	check_stacks(argv[1], argv[2], argv[3]);
	return check_done();
}
