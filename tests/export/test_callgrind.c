/*
 * test_callgrind.c - the Callgrind export, read back by callgrind_annotate.
 *
 * For counts-only, one-event and two-event runs, summed and per thread,
 * callgrind_annotate's program totals and per-function self costs must equal
 * the model's, and its inclusive costs (--inclusive=yes) must equal the
 * model's for every function that does not call itself.  The name
 * compression must define each id once, before any use.
 *
 * With calling contexts (fixture_context_profile), the calls= lines are
 * the calls per (caller, callee) pair of fixture.h's table and
 * callgrind_annotate --inclusive=yes gives every function exactly its real
 * inclusive cost, also through mutual recursion (f -> g -> f -> g), all
 * threads and each thread; none is above the program total.
 *
 * Usage: test_export_callgrind WORKDIR
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export/export.h"
#include "fixture.h"

#define MAX_FUNCS 16

struct annotated {
	uint64_t totals[ZP_MAX_EVENTS];
	size_t nfuncs;
	char name[MAX_FUNCS][256];
	uint64_t cost[MAX_FUNCS][ZP_MAX_EVENTS];
};

/* Reads "1,000 ( 7.41%) 3,000 ( 7.41%)  file:fn [obj]": ncols numbers, then the name. */
static int parse_cost_line(const char *s, size_t ncols, uint64_t *cost, const char **name)
{
	size_t got = 0;
	while (got < ncols) {
		while (*s == ' ')
			s++;
		if (*s == '(') {
			s = strchr(s, ')');
			if (!s)
				return 0;
			s++;
		} else if (*s >= '0' && *s <= '9') {
			uint64_t v = 0;
			for (; (*s >= '0' && *s <= '9') || *s == ','; s++)
				if (*s != ',')
					v = v * 10 + (uint64_t)(*s - '0');
			cost[got++] = v;
		} else {
			return 0;
		}
	}
	while (*s == ' ' || *s == '(') {
		if (*s == '(' && !(s = strchr(s, ')')))
			return 0;
		s++;
	}
	*name = s;
	return 1;
}

static int annotate(const char *path, int inclusive, size_t ncols, struct annotated *a)
{
	char cmd[1024], line[1024];
	snprintf(cmd, sizeof cmd, "callgrind_annotate --threshold=100 --auto=no --inclusive=%s %s",
		 inclusive ? "yes" : "no", path);
	FILE *f = popen(cmd, "r");
	if (!f)
		return 0;
	memset(a, 0, sizeof *a);
	int totals = 0;
	while (fgets(line, sizeof line, f)) {
		uint64_t cost[ZP_MAX_EVENTS];
		const char *name;
		line[strcspn(line, "\n")] = 0;
		if (!parse_cost_line(line, ncols, cost, &name))
			continue;
		if (strcmp(name, "PROGRAM TOTALS") == 0) {
			memcpy(a->totals, cost, sizeof cost);
			totals = 1;
		} else if (a->nfuncs < MAX_FUNCS) {
			snprintf(a->name[a->nfuncs], sizeof a->name[0], "%.255s", name);
			memcpy(a->cost[a->nfuncs++], cost, sizeof cost);
		}
	}
	return pclose(f) == 0 && totals;
}

static const uint64_t *find(const struct annotated *a, const char *name)
{
	for (size_t i = 0; i < a->nfuncs; i++)
		if (strcmp(a->name[i], name) == 0)
			return a->cost[i];
	return NULL;
}

static void annotated_name(const struct zp_node *n, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%s [%s]", *n->file ? n->file : "???", n->name,
		 *n->module ? n->module : "???");
}

static int calls_itself(const struct zp_view *v, uint32_t n)
{
	for (size_t i = 0; i < v->nedges; i++)
		if (v->edges[i].caller == n && v->edges[i].callee == n)
			return 1;
	return 0;
}

static void write_export(const struct zp_profile *p, uint32_t thread, const char *path)
{
	struct export_options o = {.thread = thread};
	struct zerr err;
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(export_callgrind(p, &o, f, &err) == 0);
	fclose(f);
}

/* annotate's numbers against the view of the thread, column by column. */
static void check_against_model(const struct zp_profile *p, uint32_t thread, const char *path)
{
	struct zp_view *v = profile_view(p, thread);
	size_t ncols = p->nevents ? p->nevents : 1;
	struct annotated self, incl;
	CHECK(annotate(path, 0, ncols, &self));
	CHECK(annotate(path, 1, ncols, &incl));
	uint64_t calls = 0;
	size_t active = 0;
	for (size_t n = 0; n < p->nnodes; n++)
		calls += v->nodes[n].calls;
	for (size_t c = 0; c < ncols; c++)
		CHECK_EQ_U64(self.totals[c], p->nevents ? v->total[c] : calls);
	for (uint32_t n = 0; n < p->nnodes; n++) {
		const struct zp_stat *s = &v->nodes[n];
		if (!s->calls)
			continue;
		active++;
		char name[512];
		annotated_name(&p->nodes[n], name, sizeof name);
		const uint64_t *got = find(&self, name), *got_incl = find(&incl, name);
		CHECK(got != NULL && got_incl != NULL);
		if (!got || !got_incl)
			continue;
		for (size_t c = 0; c < ncols; c++) {
			CHECK_EQ_U64(got[c], p->nevents ? s->self[c] : s->calls);
			if (p->nevents && !calls_itself(v, n))
				CHECK_EQ_U64(got_incl[c], s->incl[c]);
		}
	}
	CHECK_EQ_U64(self.nfuncs, active);
	profile_view_free(v);
}

/* Every "(id) name" defines id once, in its name space, before any "(id)". */
static void check_compression(const char *path)
{
	static const char *const keys[] = {"ob=", "cob=", "fl=", "cfl=", "fn=", "cfn="};
	char *text = fixture_read_file(path);
	unsigned char defined[3][64] = {{0}};
	int uses = 0;
	CHECK(text != NULL);
	for (char *line = text; line && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : 0) {
		for (int k = 0; k < 6; k++) {
			size_t len = strlen(keys[k]);
			if (strncmp(line, keys[k], len) != 0)
				continue;
			unsigned id = 0;
			int end = 0;
			CHECK(sscanf(line + len, "(%u)%n", &id, &end) == 1 && id > 0 && id < 64);
			int named = line[len + end] == ' ';
			if (id >= 64)
				break;
			if (named)
				CHECK(!defined[k / 2][id]++);
			else
				CHECK(defined[k / 2][id]);
			uses++;
		}
	}
	CHECK(uses > 0);
	free(text);
}

/* Unknown files and modules are "???"; line breaks in names would break the format. */
static void check_odd_names(const char *dir)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	uint32_t t = profile_thread(p, 1, 1, "");
	uint32_t a = profile_node(p, ZP_FUNCTION, "two\nlines", "", "", 0, 0x10);
	uint32_t b = profile_node(p, ZP_BASIC_BLOCK, "two\nlines+0x4", "", "", 0, 0x14);
	struct zp_stat *s = profile_stat(p, t, a);
	s->calls = 1, s->self[0] = 30, s->incl[0] = 100;
	s = profile_stat(p, t, b);
	s->calls = 2, s->self[0] = 70, s->incl[0] = 70;
	struct zp_edge *e = profile_edge(p, t, ZP_CALL, a, b);
	e->calls = 2, e->incl[0] = 70;
	char path[512];
	snprintf(path, sizeof path, "%s/callgrind-odd.out", dir);
	write_export(p, ZP_NONE, path);
	struct annotated r;
	CHECK(annotate(path, 0, 1, &r));
	CHECK_EQ_U64(r.totals[0], 100);
	CHECK(find(&r, "???:two lines [???]") && find(&r, "???:two lines [???]")[0] == 30);
	CHECK(find(&r, "???:two lines+0x4 [???]") && find(&r, "???:two lines+0x4 [???]")[0] == 70);
	profile_free(p);
}

/* The calls= count of every (fn, cfn) pair of a callgrind file, as "fn>cfn=N " text. */
static char *call_pairs(const char *path)
{
	char *text = fixture_read_file(path), *buf = NULL, names[64][32] = {{0}};
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	unsigned fn = 0, cfn = 0;
	for (char *line = text; line && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : 0) {
		unsigned id = 0;
		int end = 0;
		unsigned long long calls;
		int is_cfn = strncmp(line, "cfn=", 4) == 0;
		if (is_cfn || strncmp(line, "fn=", 3) == 0) {
			const char *ref = line + (is_cfn ? 4 : 3);
			if (sscanf(ref, "(%u)%n", &id, &end) == 1 && id < 64) {
				if (ref[end] == ' ')
					snprintf(names[id], sizeof names[id], "%.*s",
						 (int)strcspn(ref + end + 1, "\n"), ref + end + 1);
				*(is_cfn ? &cfn : &fn) = id;
			}
		} else if (sscanf(line, "calls=%llu", &calls) == 1) {
			fprintf(out, "%s>%s=%llu ", names[fn], names[cfn], calls);
		}
	}
	fclose(out);
	free(text);
	return buf;
}

/* Real inclusive times of fixture.h's table, all threads, thread 0 and thread 1. */
static const struct {
	const char *name;
	uint64_t incl[3];
} real_incl[] = {
	{"main", {1000, 1000, 0}}, {"A", {350, 350, 0}},   {"B", {450, 450, 0}},
	{"C", {840, 700, 140}},    {"X", {300, 200, 100}}, {"Y", {300, 300, 0}},
	{"f", {100, 100, 0}},      {"g", {90, 90, 0}},     {"worker", {200, 0, 200}},
};

static void check_contexts(const char *dir)
{
	struct zp_profile *p = fixture_context_profile(2);
	uint32_t threads[] = {ZP_NONE, 0, 1};
	uint64_t totals[] = {1200, 1000, 200};
	for (size_t t = 0; t < 3; t++) {
		char path[512];
		snprintf(path, sizeof path, "%s/callgrind-contexts-%zu.out", dir, t);
		write_export(p, threads[t], path);
		struct annotated incl;
		CHECK(annotate(path, 1, 2, &incl));
		CHECK_EQ_U64(incl.totals[0], totals[t]);
		CHECK_EQ_U64(incl.totals[1], 3 * totals[t]);
		size_t active = 0;
		for (size_t i = 0; i < sizeof real_incl / sizeof real_incl[0]; i++) {
			char name[64];
			snprintf(name, sizeof name, "paths.c:%s [/usr/bin/paths]",
				 real_incl[i].name);
			const uint64_t *got = find(&incl, name);
			if (!real_incl[i].incl[t])
				continue;
			active++;
			CHECK(got != NULL);
			if (!got)
				continue;
			if (!check_report(got[0] == real_incl[i].incl[t] &&
						  got[1] == 3 * real_incl[i].incl[t],
					  __FILE__, __LINE__, "real inclusive cost"))
				fprintf(stderr, "    %s: %" PRIu64 " %" PRIu64 "\n", name, got[0],
					got[1]);
		}
		CHECK_EQ_U64(incl.nfuncs, active);
		for (size_t i = 0; i < incl.nfuncs; i++)
			CHECK(incl.cost[i][0] <= incl.totals[0]);
		check_compression(path);
		if (t == 0) {
			char *pairs = call_pairs(path);
			CHECK_EQ_STR(pairs, "main>A=2 main>B=1 main>f=1 A>C=2 B>C=3 C>X=6 C>Y=3 "
					    "f>g=2 g>f=1 worker>C=1 ");
			free(pairs);
		}
	}
	profile_free(p);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	for (unsigned nevents = 0; nevents <= 2; nevents++) {
		struct zp_profile *p = fixture_profile(nevents);
		uint32_t threads[] = {ZP_NONE, 0, 1};
		for (size_t t = 0; t < 3; t++) {
			char path[512];
			snprintf(path, sizeof path, "%s/callgrind-%u-%zu.out", dir, nevents, t);
			write_export(p, threads[t], path);
			check_against_model(p, threads[t], path);
			check_compression(path);
		}
		profile_free(p);
	}
	check_odd_names(dir);
	check_contexts(dir);

	struct zp_profile *p = fixture_profile(1);
	struct export_options o = {.thread = 5};
	struct zerr err;
	CHECK(export_callgrind(p, &o, stdout, &err) == -1);
	CHECK(strstr(err.msg, "no thread") != NULL);
	profile_free(p);
	return check_done();
}
