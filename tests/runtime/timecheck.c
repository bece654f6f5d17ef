/*
 * timecheck - the times the runtime measured for progs/timing.c, whose
 * sleeps are known: nanosleep never returns early, and no sleep ends after
 * the program (timecheck RAW_DIR WALL_NS: the test times the run).
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ingest/raw_reader.h"

static const struct zp_stat *stat_of(const struct zp_view *v, const char *name)
{
	for (size_t i = 0; i < v->p->nnodes; i++)
		if (strcmp(v->p->nodes[i].name, name) == 0)
			return &v->nodes[i];
	fprintf(stderr, "no function %s\n", name);
	return NULL;
}

static const struct zp_edge *edge_of(const struct zp_view *v, const char *caller,
				     const char *callee)
{
	for (size_t i = 0; i < v->nedges; i++) {
		const struct zp_edge *e = &v->edges[i];
		if (e->caller != ZP_NONE && !strcmp(v->p->nodes[e->caller].name, caller) &&
		    !strcmp(v->p->nodes[e->callee].name, callee))
			return e;
	}
	static const struct zp_edge none;
	fprintf(stderr, "no edge %s -> %s\n", caller, callee);
	return &none;
}

static const struct zp_node *node_of(const struct zp_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nnodes; i++)
		if (strcmp(p->nodes[i].name, name) == 0)
			return &p->nodes[i];
	static const struct zp_node none = {.name = "", .module = "", .file = ""};
	return &none;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* the program's whole run in ns, as the test timed it from outside (argv[2]) */
static double wall_ns;

/* ns lies in [ms milliseconds, the whole run times nest] (nest: calls summed, one inside another) */
static int nested_ms(uint64_t ns, double ms, unsigned nest)
{
	double got = (double)ns / 1e6;
	/*
	 * A sleep never ends early, so the lower bound checks the clock's rate;
	 * on a loaded machine it may end any time later, but never after the
	 * program: the upper bound holds at any speed (it was 3x + 50 ms).
	 */
	if (got >= ms * 0.999 && (double)ns <= wall_ns * nest)
		return 1;
	fprintf(stderr, "    %.3f ms, expected about %.0f ms (the run: %.3f ms)\n", got, ms,
		wall_ns / 1e6);
	return 0;
}

static int about_ms(uint64_t ns, double ms)
{
	return nested_ms(ns, ms, 1);
}

static int read_dir(struct zp_profile *p, const char *dir, struct symbols *syms)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		if (fnmatch("*.zraw", e->d_name, 0))
			continue;
		char path[4096];
		struct zerr err;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (raw_read_into(p, path, syms, &err) < 0)
			fprintf(stderr, "%s\n", err.msg);
		else
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	wall_ns = strtod(argv[2], NULL);
	struct zp_profile *p = profile_new();
	struct symbols *syms = symbols_new();
	CHECK_EQ_U64(read_dir(p, argv[1], syms), 1);
	CHECK_EQ_STR(p->events[0].name, "time");
	CHECK(p->run.overhead_ns > 0 && p->run.overhead_ns < 1000);
	struct zp_view *v = profile_view(p, ZP_NONE);
	const struct zp_stat *main_ = stat_of(v, "main"), *outer = stat_of(v, "outer"),
			     *sleeper = stat_of(v, "sleeper"), *nap = stat_of(v, "nap"),
			     *rec = stat_of(v, "rec");
	if (!main_ || !outer || !sleeper || !nap || !rec)
		return 1;

	CHECK_EQ_U64(sleeper->calls, 3);
	CHECK(about_ms(sleeper->incl[0], 40));
	CHECK(about_ms(sleeper->min[0], 10));
	CHECK(about_ms(sleeper->max[0], 20));
	CHECK(sleeper->self[0] < 1000000);
	/* the sleep itself is in uninstrumented libc: nap's own time */
	CHECK(about_ms(nap->self[0], 40));
	CHECK(about_ms(outer->incl[0], 30));
	CHECK(outer->self[0] < 1000000);
	/* recursion: inclusive time counts the outermost call only */
	CHECK_EQ_U64(rec->calls, 6);
	CHECK(about_ms(rec->incl[0], 10));
	CHECK(about_ms(rec->max[0], 10));
	CHECK(rec->self[0] < 1000000);
	CHECK(about_ms(main_->incl[0], 40));
	/* edges sum every call along them: rec -> rec five times over the same sleep */
	CHECK(nested_ms(edge_of(v, "rec", "rec")->incl[0], 50, 5));
	CHECK(about_ms(edge_of(v, "outer", "sleeper")->incl[0], 30));

	/* where: the first call site seen on an edge, where a function is defined */
	CHECK_EQ_U64(edge_of(v, "outer", "sleeper")->site_line, 25);
	CHECK_EQ_U64(edge_of(v, "rec", "sleeper")->site_line, 18);
	CHECK_EQ_U64(edge_of(v, "main", "rec")->site_line, 32);
	const struct zp_node *n = node_of(p, "sleeper");
	CHECK_EQ_STR(base_name(n->file), "timing.c");
	CHECK_EQ_U64(n->line, 10); /* where it is declared (DWARF decl_line) */
	CHECK_EQ_STR(base_name(n->module), "rt_timing");
	CHECK(n->addr != 0);
	/* every nanosecond of main is some function's own */
	CHECK(v->total[0] <= main_->incl[0] + 100000 && v->total[0] + 100000 >= main_->incl[0]);

	profile_view_free(v);
	profile_free(p);
	symbols_free(syms);
	return check_done();
}
