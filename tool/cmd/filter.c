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
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
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
		wanted = fnmatch(f->include[i], name, 0) == 0;
	for (int i = 0; i < f->nexclude && wanted; i++)
		wanted = fnmatch(f->exclude[i], name, 0) != 0;
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

/*
 * Calls fn with the path of every library the loader would map for prog,
 * by asking the loader itself (`ld.so --list`, which runs none of prog).
 */
static int each_library(const char *prog, void (*fn)(void *arg, const char *path), void *arg,
			struct zerr *err)
{
	char interp[PATH_MAX];
	int rc = symbols_interpreter(prog, interp, sizeof interp, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0; /* static: no libraries */
	int fds[2];
	if (pipe(fds) < 0)
		return zerr_set(err, "cannot list the libraries of %s: %s", prog, strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(interp, interp, "--list", prog, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	char line[PATH_MAX + 64];
	while (in && fgets(line, sizeof line, in)) {
		/* "\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x...)" */
		char *path = strstr(line, "=> ");
		char *end = path ? strstr(path, " (0x") : NULL;
		if (!end || path[3] != '/')
			continue;
		*end = 0;
		fn(arg, path + 3);
	}
	if (in)
		fclose(in);
	else
		close(fds[0]);
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return zerr_set(err, "%s: the loader %s could not list its libraries", prog, interp);
	return 0;
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
		rc = each_library(prog, library_ranges, &libs, err);
	symbols_free(syms);
	if (fclose(out) != 0 && rc == 0)
		rc = zerr_set(err, "%s: write failed: %s", path, strerror(errno));
	return rc;
}
