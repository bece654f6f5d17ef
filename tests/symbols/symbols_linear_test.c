/*
 * symbols_linear_test.c - declaration lookups over a program of many
 * functions in one compilation unit (written by many_functions).
 *
 * Every function's declaration must be the line of the generated source
 * that opens it (the source is the truth), including a GNU C nested
 * function; and the DWARF entries read to answer all the lookups must be at
 * most the entries the file has (readelf counts them), read once: a walk of
 * the CU per lookup reads about N * N / 2 of them.  No timing is involved.
 */
#define _GNU_SOURCE /* getline, popen */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "symbols/symbols.h"

struct decl {
	char *name;
	int line;
};

struct decls {
	struct decl *v;
	size_t n;
};

static int compare_decls(const void *a, const void *b)
{
	return strcmp(((const struct decl *)a)->name, ((const struct decl *)b)->name);
}

/* Every "int NAME(" opening a line of the source, with its line number. */
static struct decls source_decls(const char *src)
{
	struct decls d = {0};
	FILE *f = fopen(src, "r");
	char *text = NULL;
	size_t cap = 0;
	int line = 0;
	while (f && getline(&text, &cap, f) > 0) {
		line++;
		char *p = text + strspn(text, "\t");
		char *open = strchr(p, '('), *space = strchr(p + 4, ' ');
		if (strncmp(p, "int ", 4) != 0 || !open || (space && space < open))
			continue;
		d.v = realloc(d.v, (d.n + 1) * sizeof *d.v);
		d.v[d.n++] = (struct decl){strndup(p + 4, (size_t)(open - p - 4)), line};
	}
	free(text);
	if (f)
		fclose(f);
	qsort(d.v, d.n, sizeof *d.v, compare_decls);
	return d;
}

/* The source line of a symbol: GCC names a nested function NAME.N. */
static int source_line_of(const struct decls *d, const char *sym)
{
	char *name = strndup(sym, strcspn(sym, "."));
	struct decl key = {name, 0};
	const struct decl *found = bsearch(&key, d->v, d->n, sizeof *d->v, compare_decls);
	free(name);
	return found ? found->line : -1;
}

/* Debugging entries of the file as readelf lists them (null entries left out). */
static size_t readelf_entries(const char *readelf, const char *path)
{
	char *cmd;
	if (asprintf(&cmd, "'%s' --debug-dump=info '%s'", readelf, path) < 0)
		exit(2);
	FILE *f = popen(cmd, "r");
	char *text = NULL;
	size_t cap = 0, n = 0;
	while (f && getline(&text, &cap, f) > 0) {
		const char *a = strstr(text, ">: Abbrev Number: ");
		n += text[0] == ' ' && text[1] == '<' && a && a[18] != '0';
	}
	CHECK(f && pclose(f) == 0);
	free(text);
	free(cmd);
	return n;
}

struct lookups {
	struct symbols *syms;
	const char *path, *src_base;
	const struct decls *decls;
	size_t checked;
};

static void check_decl(void *arg, const struct symbol *sym)
{
	struct lookups *l = arg;
	int want = source_line_of(l->decls, sym->name);
	if (want < 0)
		return; /* start-up code of the C library */
	uint64_t addrs[] = {sym->start, sym->start + sym->size - 1};
	for (size_t i = 0; i < 2; i++) {
		const char *file, *base;
		int line;
		struct zerr err;
		CHECK(symbols_decl_line(l->syms, l->path, addrs[i], &file, &line, &err) == 0);
		base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		if (strcmp(base, l->src_base) != 0 || line != want)
			fprintf(stderr, "    %s+%llu: %s:%d, the source says %s:%d\n", sym->name,
				(unsigned long long)(addrs[i] - sym->start), file, line,
				l->src_base, want);
		CHECK_EQ_STR(base, l->src_base);
		CHECK_EQ_U64(line, want);
	}
	l->checked++;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: symbols_linear_test READELF PROGRAM SOURCE N\n");
		return 2;
	}
	const char *readelf = argv[1], *prog = argv[2], *src = argv[3];
	size_t n = strtoul(argv[4], NULL, 10);
	struct decls decls = source_decls(src);
	CHECK_EQ_U64(decls.n, n + 3); /* f0..f(N-1), outer, inner, main */

	struct symbols *syms = symbols_new();
	struct lookups l = {syms, prog, strrchr(src, '/') ? strrchr(src, '/') + 1 : src, &decls, 0};
	struct zerr err;
	CHECK(symbols_each_function(syms, prog, check_decl, &l, &err) == 0);
	CHECK_EQ_U64(l.checked, n + 3);

	size_t visits = symbols_dwarf_visits(syms), entries = readelf_entries(readelf, prog);
	printf("%zu functions: %zu DWARF entries read, %zu in the file\n", n, visits, entries);
	CHECK(visits >= n);       /* every function's entry was read... */
	CHECK(visits <= entries); /* ...and none twice */

	/* The same lookups again read nothing more. */
	l.checked = 0;
	CHECK(symbols_each_function(syms, prog, check_decl, &l, &err) == 0);
	CHECK_EQ_U64(l.checked, n + 3);
	CHECK_EQ_U64(symbols_dwarf_visits(syms), visits);

	symbols_free(syms);
	for (size_t i = 0; i < decls.n; i++)
		free(decls.v[i].name);
	free(decls.v);
	return check_done();
}
