/*
 * filter.c - turns --filter/--exclude name patterns into the runtime's
 * filter file (doc/raw-format.md, "The filter file").
 *
 * The runtime knows no names, so the names are matched here, before the
 * run, against the symbol tables of the program and of every library the
 * dynamic loader would load for it at start-up; each function not to record
 * becomes one excluded address range of its module.
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

static void write_range(void *arg, const struct symbol *sym)
{
	struct range_writer *w = arg;
	if (name_filter_wants(w->f, sym->name))
		return;
	fprintf(w->out, "%llx %llx %s\n", (unsigned long long)sym->start,
		(unsigned long long)(sym->start + sym->size), w->module);
	w->excluded++;
}

struct library_ranges {
	struct range_writer *w;
	struct symbols *syms;
};

static void library_ranges(void *arg, const char *path)
{
	struct library_ranges *l = arg;
	struct zerr ignored; /* a library we cannot read keeps all its functions */
	l->w->module = path;
	symbols_each_function(l->syms, path, write_range, l->w, &ignored);
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
	int rc = symbols_each_function(syms, prog, write_range, &w, err);
	if (rc == 0)
		rc = launch_each_library(prog, library_ranges, &libs, err);
	symbols_free(syms);
	if (fclose(out) != 0 && rc == 0)
		rc = zerr_set(err, "%s: write failed: %s", path, strerror(errno));
	return rc;
}
