/*
 * rawdump - test driver: reads raw files with raw_read_into() and prints
 * them as `zond dump` does (sorted, no times, no addresses), so that the
 * runtime's tests do not wait for the zond command.
 *
 *   rawdump DIR          every *.zraw of DIR, as one run
 *   rawdump -p DIR       one dump per process, the dumps sorted
 *   rawdump -m DIR       also the run's overflow counts ("meta lost_... N")
 *   rawdump -c DIR       also the calling contexts of all threads, folded by
 *                        path: "stack main;a;c calls=N" (callers first), and
 *                        "MISMATCH ..." for a function whose contexts' calls
 *                        do not add up to its calls
 *   rawdump -p -s DIR    each process's dump starts with its file's state
 *                        ("state running|exited|signaled|execed")
 *
 * Exits 1 with the reader's message when a file cannot be read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/raw_reader.h"
#include "raw.h"

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static char *node_line(const struct zp_profile *p, const struct zp_stat *s, uint32_t i)
{
	const struct zp_node *n = &p->nodes[i];
	char *line;
	if (n->kind == ZP_BLOCK) {
		if (asprintf(&line, "block %s %s:%d calls=%" PRIu64, n->name, base_name(n->file),
			     n->line, s->calls) < 0)
			abort();
	} else if (asprintf(&line, "function %s calls=%" PRIu64, n->name, s->calls) < 0) {
		abort();
	}
	return line;
}

static char *edge_line(const struct zp_profile *p, const struct zp_edge *e)
{
	char *line;
	if (asprintf(&line, "call %s -> %s calls=%" PRIu64,
		     e->caller == ZP_NONE ? "-" : p->nodes[e->caller].name,
		     p->nodes[e->callee].name, e->calls) < 0)
		abort();
	return line;
}

/* "stack a;b;c calls=N" of context i of view cv. */
static char *stack_line(const struct zp_context_view *cv, size_t i)
{
	const struct zp_profile *p = cv->p;
	char *path = zp_xstrdup("");
	for (uint32_t c = (uint32_t)i; c != ZP_NONE; c = cv->contexts[c].parent) {
		char *longer;
		if (asprintf(&longer, "%s%s%s", p->nodes[cv->contexts[c].node].name, *path ? ";" : "",
			     path) < 0)
			abort();
		free(path);
		path = longer;
	}
	char *line;
	if (asprintf(&line, "stack %s calls=%" PRIu64, path, cv->contexts[i].calls) < 0)
		abort();
	free(path);
	return line;
}

/*
 * The contexts are what the flat counts sum up: for every node, its
 * contexts' calls add up to its calls, but for the calls a signal handler
 * made while a probe ran (run meta unstacked_calls: counted on the
 * function only) and those made on a coroutine's stack whose callers were
 * lost (lost_stack_calls), at most that many in all.  One "MISMATCH" line per node
 * where they do not (into lines); their number.
 */
static size_t check_context_sums(const struct zp_view *v, const struct zp_context_view *cv,
				 char **lines)
{
	const struct zp_profile *p = v->p;
	uint64_t *sum = zp_xcalloc(p->nnodes + 1, sizeof *sum);
	for (size_t i = 0; i < cv->ncontexts; i++)
		sum[cv->contexts[i].node] += cv->contexts[i].calls;
	const char *meta = profile_meta(p, "unstacked_calls");
	uint64_t unstacked = meta ? strtoull(meta, NULL, 10) : 0;
	/* so are the calls made on a coroutine's stack whose callers were lost */
	meta = profile_meta(p, "lost_stack_calls");
	unstacked += meta ? strtoull(meta, NULL, 10) : 0;
	size_t n = 0;
	for (uint32_t i = 0; i < p->nnodes; i++) {
		uint64_t calls = v->nodes[i].calls;
		if (sum[i] <= calls && calls - sum[i] <= unstacked) {
			unstacked -= calls - sum[i];
			continue;
		}
		if (asprintf(&lines[n++], "MISMATCH %s: contexts %" PRIu64 " calls, function %" PRIu64,
			     p->nodes[i].name, sum[i], calls) < 0)
			abort();
	}
	free(sum);
	return n;
}

/* The profile as `zond dump` prints it, as one string. */
static char *dump(const struct zp_profile *p, int with_meta, int with_stacks)
{
	struct zp_view *v = profile_view(p, ZP_NONE);
	struct zp_context_view *cv = profile_context_view(p, ZP_NONE);
	size_t n = 0, cap = 2 * p->nnodes + v->nedges + p->run.nmeta + cv->ncontexts + 1;
	char **lines = zp_xcalloc(cap, sizeof *lines);
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (v->nodes[i].calls)
			lines[n++] = node_line(p, &v->nodes[i], i);
	for (size_t i = 0; i < v->nedges; i++)
		lines[n++] = edge_line(p, &v->edges[i]);
	/* not "[no function]": a sample while no function was open, which comes and
	   goes with where the sampled run's samples fell */
	for (size_t i = 0; with_stacks && i < cv->ncontexts; i++)
		if (cv->contexts[i].calls || strcmp(p->nodes[cv->contexts[i].node].name, "[no function]"))
			lines[n++] = stack_line(cv, i);
	if (with_stacks)
		n += check_context_sums(v, cv, lines + n);
	for (size_t i = 0; with_meta && i < p->run.nmeta; i++)
		if (!strncmp(p->run.meta[i].key, "lost_", 5) &&
		    asprintf(&lines[n++], "meta %s %s", p->run.meta[i].key, p->run.meta[i].value) <
			    0)
			abort();
	qsort(lines, n, sizeof *lines, compare_strings);

	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	fprintf(f, "threads %zu\n", p->nthreads);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n", lines[i]);
		free(lines[i]);
	}
	fclose(f);
	free(lines);
	profile_view_free(v);
	profile_context_view_free(cv);
	return text;
}

static size_t list_raw_files(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		exit(1);
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (fnmatch("*.zraw", e->d_name, 0))
			continue;
		names = zp_xrealloc(names, (n + 1) * sizeof *names);
		if (asprintf(&names[n++], "%s/%s", dir, e->d_name) < 0)
			abort();
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, compare_strings);
	*out = names;
	return n;
}

/* "state NAME\n" of the raw file at path, from its header. */
static char *state_line(const char *path)
{
	static const char *const names[] = {"?", "running", "exited", "signaled", "execed"};
	struct zr_header h;
	FILE *f = fopen(path, "rb");
	uint32_t state = 0;
	if (f && fread(&h, sizeof h, 1, f) == 1 && h.state < 5)
		state = h.state;
	if (f)
		fclose(f);
	char *line;
	if (asprintf(&line, "state %s\n", names[state]) < 0)
		abort();
	return line;
}

static void read_or_die(struct zp_profile *p, const char *path, struct symbols *syms)
{
	struct zerr err;
	if (raw_read_into(p, path, syms, &err) < 0) {
		fprintf(stderr, "rawdump: %s\n", err.msg);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int per_process = 0, with_meta = 0, with_state = 0, with_stacks = 0, c;
	while ((c = getopt(argc, argv, "pmsc")) != -1) {
		if (c == 'p')
			per_process = 1;
		else if (c == 's')
			with_state = 1;
		else if (c == 'm')
			with_meta = 1;
		else if (c == 'c')
			with_stacks = 1;
		else
			return 2;
	}
	if (optind + 1 != argc) {
		fputs("usage: rawdump [-p [-s]] [-m] [-c] DIR\n", stderr);
		return 2;
	}
	char **files;
	size_t n = list_raw_files(argv[optind], &files);
	struct symbols *syms = symbols_new();
	size_t n_dumps = per_process ? n : 1;
	char **dumps = zp_xcalloc(n_dumps, sizeof *dumps);
	struct zp_profile *p = profile_new();
	for (size_t i = 0; i < n; i++) {
		read_or_die(p, files[i], syms);
		if (per_process) {
			dumps[i] = dump(p, with_meta, with_stacks);
			if (with_state) {
				char *state = state_line(files[i]), *both;
				if (asprintf(&both, "%s%s", state, dumps[i]) < 0)
					abort();
				free(state);
				free(dumps[i]);
				dumps[i] = both;
			}
			profile_free(p);
			p = profile_new();
		}
		free(files[i]);
	}
	if (!per_process)
		dumps[0] = dump(p, with_meta, with_stacks);
	qsort(dumps, n_dumps, sizeof *dumps, compare_strings);
	printf("processes %zu\n", n);
	for (size_t i = 0; i < n_dumps; i++) {
		fputs(dumps[i], stdout);
		free(dumps[i]);
	}
	free(dumps);
	free(files);
	profile_free(p);
	symbols_free(syms);
	return 0;
}
