/*
 * filter.c - turns --filter/--exclude name patterns into the runtime's
 * filter file (doc/raw-format.md, "The filter file").
 *
 * The runtime knows no names, so the names are matched here, before the
 * run, against the symbol tables of the program and of every library the
 * dynamic loader would load for it at start-up; each function not to record
 * becomes one excluded address range of its module.  A function is one
 * piece of code whatever it is called: all the names at its address are
 * matched, and one included (none excluded) keeps it (s15: -F work recorded
 * nothing when work had an alias, whose range the file excluded).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "launch.h"
#include "symbols/symbols.h"

struct range_writer {
	const struct name_filter *f;
	const char *module;
	FILE *out;
	unsigned long excluded;
};

int name_filter_wants(const struct name_filter *f, const char *name)
{
	int wanted = f->ninclude == 0;
	for (int i = 0; i < f->ninclude && !wanted; i++)
		wanted = symbols_name_matches(f->include[i], name);
	for (int i = 0; i < f->nexclude && wanted; i++)
		wanted = !symbols_name_matches(f->exclude[i], name);
	return wanted;
}

/* The names at one address so far, as name_filter_each_function gathers them. */
struct name_group {
	const struct name_filter *f;
	void (*fn)(void *arg, uint64_t start, uint64_t end, int wanted);
	void *arg;
	int open, included, excluded;
	uint64_t start, end;
};

static int matches_any(const char *const *globs, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (symbols_name_matches(globs[i], name))
			return 1;
	return 0;
}

static void group_flush(struct name_group *g)
{
	if (g->open)
		g->fn(g->arg, g->start, g->end, g->included && !g->excluded);
	g->open = 0;
}

static void group_name(void *arg, const struct symbol *sym)
{
	struct name_group *g = arg;
	if (g->open && sym->start != g->start)
		group_flush(g);
	if (!g->open) {
		g->open = 1;
		g->start = sym->start;
		g->end = sym->start + sym->size;
		g->included = g->f->ninclude == 0;
		g->excluded = 0;
	}
	if (sym->start + sym->size > g->end)
		g->end = sym->start + sym->size;
	g->included |= matches_any(g->f->include, g->f->ninclude, sym->name);
	g->excluded |= matches_any(g->f->exclude, g->f->nexclude, sym->name);
}

int name_filter_each_function(const struct name_filter *f, struct symbols *s, const char *path,
			      void (*fn)(void *arg, uint64_t start, uint64_t end, int wanted),
			      void *arg, struct zerr *err)
{
	struct name_group g = {.f = f, .fn = fn, .arg = arg};
	int rc = symbols_each_function(s, path, group_name, &g, err);
	group_flush(&g);
	return rc;
}

static void write_range(void *arg, uint64_t start, uint64_t end, int wanted)
{
	struct range_writer *w = arg;
	if (wanted)
		return;
	fprintf(w->out, "%llx %llx %s\n", (unsigned long long)start, (unsigned long long)end,
		w->module);
	w->excluded++;
}

struct library_ranges {
	struct range_writer *w;
	struct symbols *syms;
};

/* "# module PATH": an object the ranges cover (a comment to the runtime). */
static void write_module(FILE *out, const char *path)
{
	char real[PATH_MAX];
	fprintf(out, "# module %s\n", realpath(path, real) ? real : path);
}

static void library_ranges(void *arg, const char *path)
{
	struct library_ranges *l = arg;
	struct zerr ignored; /* a library we cannot read keeps all its functions */
	l->w->module = path;
	write_module(l->w->out, path);
	name_filter_each_function(l->w->f, l->syms, path, write_range, l->w, &ignored);
}

int name_filter_write(const struct name_filter *f, const char *prog, const char *path,
		      struct zerr *err)
{
	FILE *out = fopen(path, "w");
	if (!out)
		return zerr_set(err, "%s: cannot create: %s", path, strerror(errno));
	struct symbols *syms = symbols_new();
	struct range_writer w = {.f = f, .module = prog, .out = out};
	struct library_ranges libs = {&w, syms};
	fprintf(out, "# zond record --filter/--exclude for %s\n", prog);
	write_module(out, prog);
	int rc = name_filter_each_function(f, syms, prog, write_range, &w, err);
	if (rc == 0)
		rc = launch_each_library(prog, library_ranges, &libs, err);
	symbols_free(syms);
	if (fclose(out) != 0 && rc == 0)
		rc = zerr_set(err, "%s: write failed: %s", path, strerror(errno));
	return rc;
}

/* 1 when the filter file at path has a "# module" line naming module. */
static int covers(FILE *f, const char *module)
{
	char line[PATH_MAX + 16], real[PATH_MAX];
	const char *want = realpath(module, real) ? real : module;
	rewind(f);
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "# module ", 9) == 0 && strcmp(line + 9, want) == 0)
			return 1;
	}
	return 0;
}

size_t name_filter_unapplied(const char *path, const struct zp_profile *p, const char **first)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = 0;
	const char *last = NULL;
	int last_covered = 1;
	*first = NULL;
	for (size_t i = 0; i < p->nnodes; i++) {
		const struct zp_node *node = &p->nodes[i];
		if (node->kind != ZP_FUNCTION || !node->module[0])
			continue;
		/* nodes come module by module: one look at the file each */
		if (!last || strcmp(last, node->module) != 0) {
			last = node->module;
			last_covered = covers(f, last);
		}
		if (!last_covered) {
			n++;
			if (!*first)
				*first = node->module;
		}
	}
	fclose(f);
	return n;
}
