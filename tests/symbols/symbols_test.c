/*
 * symbols_test.c - symbols.h against binutils' view of the same files.
 *
 * The programs built beside this test (see CMakeLists.txt) are read with
 * `nm -S -C` and `addr2line` at test time; zond must report the same
 * function names (demangled), starts, sizes and file:line, prefer a global
 * name over its weak and local aliases, extend a sizeless function to the
 * next one, fall back to .dynsym in stripped files, use a separate debug
 * file, and refuse missing and non-ELF files with a clear message.
 */
#define _GNU_SOURCE /* asprintf, getline */

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "symbols/symbols.h"

struct args {
	const char *nm, *addr2line, *src;
	const char *pie, *nopie, *lib, *pie_stripped, *lib_stripped, *lib_debuglink;
	const char *nested;
};

/* One function as nm shows it; size 0 when nm shows none. */
struct nm_sym {
	uint64_t start, size;
	char type;
	char *name;
};

struct nm_list {
	struct nm_sym *v;
	size_t n;
};

static char *run_output_line(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len = getline(&line, &cap, f);
	if (len <= 0) {
		free(line);
		return NULL;
	}
	if (line[len - 1] == '\n')
		line[len - 1] = 0;
	return line;
}

/* Parses "ADDR [SIZE] TYPE NAME"; names may hold spaces (demangled C++). */
static int parse_nm_line(char *line, struct nm_sym *s)
{
	char *p = line, *end;
	s->start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return 0;
	p = end + 1;
	s->size = strtoull(p, &end, 16);
	if (end != p && *end == ' ' && end - p > 1)
		p = end + 1;
	else
		s->size = 0;
	if (!p[0] || p[1] != ' ')
		return 0;
	s->type = p[0];
	s->name = strdup(p + 2);
	return 1;
}

/* The defined symbols nm sees in path of the given types (nm's letters). */
static struct nm_list nm_symbols(const struct args *a, const char *path, int dynamic,
				 const char *types)
{
	struct nm_list l = {0};
	char *cmd;
	if (asprintf(&cmd, "'%s' -S -C --defined-only %s '%s'", a->nm, dynamic ? "-D" : "", path) <
	    0)
		exit(2);
	FILE *f = popen(cmd, "r");
	char *line;
	while (f && (line = run_output_line(f))) {
		struct nm_sym s = {0};
		if (parse_nm_line(line, &s) && strchr(types, s.type)) {
			l.v = realloc(l.v, (l.n + 1) * sizeof *l.v);
			l.v[l.n++] = s;
		} else {
			free(s.name);
		}
		free(line);
	}
	CHECK(f && pclose(f) == 0);
	free(cmd);
	return l;
}

/* The functions nm sees in path: code symbols (T t W w i) that are defined. */
static struct nm_list nm_functions(const struct args *a, const char *path, int dynamic)
{
	return nm_symbols(a, path, dynamic, "TtWwi");
}

static void nm_free(struct nm_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
}

static const struct nm_sym *nm_find(const struct nm_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

static const struct nm_sym *nm_at(const struct nm_list *l, const char *name, uint64_t start)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].start == start && strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

/* ---- symbols_each_function against nm ---------------------------------- */

struct seen {
	struct symbol *v;
	size_t n;
};

static void collect(void *arg, const struct symbol *sym)
{
	struct seen *s = arg;
	s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n] = *sym;
	s->v[s->n].name = strdup(sym->name);
	s->n++;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free((char *)s->v[i].name);
	free(s->v);
}

static const struct symbol *seen_find(const struct seen *s, const char *name, uint64_t start)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].start == start && strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

/*
 * Every sized function nm lists is reported with its exact start and size;
 * everything reported is a function nm lists, with nm's size if it has one.
 */
static void check_each_function(struct symbols *syms, const char *path, const struct nm_list *nm,
				struct seen *seen)
{
	struct zerr err;
	CHECK(symbols_each_function(syms, path, collect, seen, &err) == 0);
	for (size_t i = 0; i < nm->n; i++) {
		const struct nm_sym *n = &nm->v[i];
		if (!n->size)
			continue;
		const struct symbol *s = seen_find(seen, n->name, n->start);
		if (!CHECK(s != NULL))
			fprintf(stderr, "    %s: %s not reported\n", path, n->name);
		else
			CHECK_EQ_U64(s->size, n->size);
	}
	for (size_t i = 0; i < seen->n; i++) {
		const struct nm_sym *n = nm_at(nm, seen->v[i].name, seen->v[i].start);
		if (!CHECK(n != NULL))
			fprintf(stderr, "    %s: %s is not a function to nm\n", path,
				seen->v[i].name);
		else if (n->size)
			CHECK_EQ_U64(seen->v[i].size, n->size);
		CHECK(seen->v[i].size > 0);
	}
}

/* ---- symbols_lookup against nm ------------------------------------------ */

/* The first and last byte of each sized function name it (or an alias at its start). */
static void check_lookups(struct symbols *syms, const char *path, const struct nm_list *nm)
{
	struct zerr err;
	size_t checked = 0;
	for (size_t i = 0; i < nm->n; i++) {
		const struct nm_sym *n = &nm->v[i];
		if (!n->size)
			continue;
		uint64_t probes[] = {n->start, n->start + n->size / 2, n->start + n->size - 1};
		for (size_t k = 0; k < 3; k++) {
			struct symbol s;
			CHECK(symbols_lookup(syms, path, probes[k], &s, &err) == 0);
			CHECK(s.name && nm_at(nm, s.name, n->start));
			CHECK_EQ_U64(s.start, n->start);
			CHECK_EQ_U64(s.size, n->size);
			checked++;
		}
	}
	CHECK(checked >= 3);
}

/*
 * Many lookups at addresses spread over the file, each against a linear
 * search of nm's sized functions: what ingest does for a large profile.
 */
static void check_many_lookups(struct symbols *syms, const char *path, const struct nm_list *nm)
{
	uint64_t lo = UINT64_MAX, hi = 0, x = 88172645463325252ull;
	for (size_t i = 0; i < nm->n; i++) {
		lo = nm->v[i].start < lo ? nm->v[i].start : lo;
		hi = nm->v[i].start + nm->v[i].size > hi ? nm->v[i].start + nm->v[i].size : hi;
	}
	int wrong = 0;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t addr = lo + x % (hi - lo + 16);
		struct symbol s;
		struct zerr err;
		symbols_lookup(syms, path, addr, &s, &err);
		for (size_t k = 0; k < nm->n; k++) {
			const struct nm_sym *n = &nm->v[k];
			if (n->size && addr >= n->start && addr < n->start + n->size)
				wrong += !s.name || s.start != n->start;
		}
	}
	CHECK_EQ_U64(wrong, 0);
}

/* ---- lines against addr2line --------------------------------------------- */

/* Every byte of a function gives addr2line's file:line (one addr2line call for all). */
static void check_lines_of(struct symbols *syms, const struct args *a, const char *path,
			   const struct nm_sym *fn)
{
	char *cmd;
	size_t len;
	FILE *c = open_memstream(&cmd, &len);
	fprintf(c, "'%s' -e '%s'", a->addr2line, path);
	for (uint64_t addr = fn->start; addr < fn->start + fn->size; addr++)
		fprintf(c, " 0x%llx", (unsigned long long)addr);
	fclose(c);
	FILE *f = popen(cmd, "r");
	int wrong = 0;
	for (uint64_t addr = fn->start; f && addr < fn->start + fn->size; addr++) {
		struct zerr err;
		const char *file;
		int line;
		char got[1200];
		char *want = run_output_line(f);
		char *d = want ? strstr(want, " (discriminator") : NULL;
		if (d)
			*d = 0;
		CHECK(symbols_line(syms, path, addr, &file, &line, &err) == 0);
		snprintf(got, sizeof got, "%s:%d", file, line);
		if ((!want || strcmp(got, want) != 0) && wrong++ < 3)
			fprintf(stderr, "    %s+%llu: %s, addr2line says %s\n", fn->name,
				(unsigned long long)(addr - fn->start), got,
				want ? want : "nothing");
		free(want);
	}
	CHECK(f && pclose(f) == 0);
	CHECK_EQ_U64(wrong, 0);
	free(cmd);
}

/* The number of the first line of src/name holding text. */
static int source_line(const struct args *a, const char *name, const char *text)
{
	char *path;
	if (asprintf(&path, "%s/%s", a->src, name) < 0)
		exit(2);
	FILE *f = fopen(path, "r");
	char *line;
	int n = 0, found = 0;
	while (f && !found && (line = run_output_line(f))) {
		n++;
		found = strstr(line, text) != NULL;
		free(line);
	}
	if (f)
		fclose(f);
	free(path);
	if (!found)
		fprintf(stderr, "%s: no line holds '%s'\n", name, text);
	return found ? n : -1;
}

/*
 * Lines the user can see in the source: where helper opens, a statement in
 * it, and the line declaring it.
 */
static void check_known_lines(struct symbols *syms, const struct args *a, const char *path,
			      const struct nm_list *nm)
{
	const struct nm_sym *helper = nm_find(nm, "helper");
	char *want_file;
	struct zerr err;
	if (!CHECK(helper != NULL) || asprintf(&want_file, "%s/target_main.c", a->src) < 0)
		return;
	int open_line = source_line(a, "target_main.c", "helper(int x)") + 1;
	int body_line = source_line(a, "target_main.c", "LINE helper return");
	const char *file;
	int line, saw_body = 0;
	CHECK(symbols_line(syms, path, helper->start, &file, &line, &err) == 0);
	CHECK_EQ_STR(file, want_file);
	CHECK_EQ_U64(line, open_line);
	for (uint64_t addr = helper->start; addr < helper->start + helper->size; addr++) {
		symbols_line(syms, path, addr, &file, &line, &err);
		saw_body |= line == body_line;
	}
	CHECK(saw_body);
	/* Declared where its name is, from any byte of its code. */
	for (uint64_t addr = helper->start; addr < helper->start + helper->size; addr++) {
		CHECK(symbols_decl_line(syms, path, addr, &file, &line, &err) == 0);
		CHECK_EQ_STR(file, want_file);
		CHECK_EQ_U64(line, open_line - 1);
	}
	free(want_file);
}

/* ---- the files ----------------------------------------------------------- */

static void check_program(struct symbols *syms, const struct args *a, const char *path)
{
	struct nm_list nm = nm_functions(a, path, 0);
	struct seen seen = {0};
	struct symbol s;
	struct zerr err;
	check_each_function(syms, path, &nm, &seen);
	check_lookups(syms, path, &nm);
	check_many_lookups(syms, path, &nm);
	check_known_lines(syms, a, path, &nm);
	const char *ours[] = {"helper",
			      "alias_target",
			      "main",
			      "cxx_entry",
			      "shop::Cart::total(int) const",
			      "long shop::twice<long>(long)"};
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
		const struct nm_sym *n = nm_find(&nm, ours[i]);
		if (CHECK(n != NULL))
			check_lines_of(syms, a, path, n);
	}

	/* Three names for one address: the global one, though the others sort first. */
	const struct nm_sym *target = nm_find(&nm, "alias_target");
	CHECK(nm_find(&nm, "aaa_weak") && nm_find(&nm, "aaa_local"));
	CHECK(symbols_lookup(syms, path, target->start + 1, &s, &err) == 0);
	CHECK_EQ_STR(s.name, "alias_target");
	CHECK(seen_find(&seen, "aaa_weak", target->start) != NULL); /* for --filter names */

	/* A sizeless function reaches up to the next function. */
	const struct nm_sym *asm_fn = nm_find(&nm, "sizeless_asm");
	CHECK(asm_fn && asm_fn->size == 0);
	uint64_t next = UINT64_MAX;
	for (size_t i = 0; asm_fn && i < nm.n; i++)
		if (nm.v[i].start > asm_fn->start && nm.v[i].start < next)
			next = nm.v[i].start;
	if (asm_fn) {
		CHECK(symbols_lookup(syms, path, next - 1, &s, &err) == 0);
		CHECK_EQ_STR(s.name, "sizeless_asm");
		CHECK_EQ_U64(s.start, asm_fn->start);
		CHECK_EQ_U64(s.size, next - asm_fn->start);
	}

	/* Outside every function: no name, and no error. */
	CHECK(symbols_lookup(syms, path, 0, &s, &err) == 0);
	CHECK(s.name == NULL);
	CHECK(symbols_lookup(syms, path, UINT64_MAX - 5, &s, &err) == 0);
	CHECK(s.name == NULL);
	seen_free(&seen);
	nm_free(&nm);
}

/* Looks addr up in path: the name, start and size of the symbol holding it, its first nested. */
static void check_at(struct symbols *syms, const char *path, uint64_t addr, const char *name,
		     uint64_t start, uint64_t size, uint64_t nested)
{
	struct symbol s;
	struct zerr err;
	CHECK(symbols_lookup(syms, path, addr, &s, &err) == 0);
	if (!CHECK(s.name != NULL))
		return;
	CHECK_EQ_STR(s.name, name);
	CHECK_EQ_U64(s.start, start);
	CHECK_EQ_U64(s.size, size);
	CHECK_EQ_U64(s.nested, nested);
}

/*
 * Nested symbols (target_nested.c, one-byte nops): each address names the
 * innermost symbol holding it, and past a nested symbol's end the one
 * holding it (QA s14 V3 F5: no symbol there before, and the trace rebuild
 * gave a nested function's code to whichever function ran it first).
 */
static void check_nested(struct symbols *syms, const struct args *a)
{
	struct nm_list nm = nm_functions(a, a->nested, 0);
	const struct nm_sym *o = nm_find(&nm, "outer"), *m = nm_find(&nm, "middle"),
			    *i = nm_find(&nm, "inner");
	if (CHECK(o && m && i)) {
		CHECK_EQ_U64(o->size, 7);
		check_at(syms, a->nested, o->start, "outer", o->start, 7, o->start + 1);
		check_at(syms, a->nested, o->start + 1, "middle", m->start, 4, m->start + 1);
		check_at(syms, a->nested, o->start + 2, "inner", i->start, 2, i->start + 2);
		check_at(syms, a->nested, o->start + 3, "inner", i->start, 2, i->start + 2);
		check_at(syms, a->nested, o->start + 4, "middle", m->start, 4, m->start + 1);
		check_at(syms, a->nested, o->start + 5, "outer", o->start, 7, o->start + 1);
		check_at(syms, a->nested, o->start + 6, "outer", o->start, 7, o->start + 1);
	}
	nm_free(&nm);
}

static void check_library(struct symbols *syms, const struct args *a)
{
	struct nm_list nm = nm_functions(a, a->lib, 0);
	struct seen seen = {0};
	check_each_function(syms, a->lib, &nm, &seen);
	check_lookups(syms, a->lib, &nm);
	const struct nm_sym *hidden = nm_find(&nm, "lib_hidden");
	if (CHECK(hidden != NULL))
		check_lines_of(syms, a, a->lib, hidden);
	seen_free(&seen);

	/* Stripped: only the exported function is left, through .dynsym. */
	struct nm_list dyn = nm_functions(a, a->lib_stripped, 1);
	struct seen dseen = {0};
	CHECK_EQ_U64(dyn.n, 1);
	check_each_function(syms, a->lib_stripped, &dyn, &dseen);
	check_lookups(syms, a->lib_stripped, &dyn);
	CHECK_EQ_U64(dseen.n, 1);
	struct symbol s;
	struct zerr err;
	const char *file;
	int line;
	if (hidden) {
		CHECK(symbols_lookup(syms, a->lib_stripped, hidden->start, &s, &err) == 0);
		CHECK(s.name == NULL);
		CHECK(symbols_line(syms, a->lib_stripped, hidden->start, &file, &line, &err) == 0);
		CHECK_EQ_STR(file, "");
		CHECK_EQ_U64(line, 0);
	}

	/* Stripped, with a .gnu_debuglink to the symbols and lines. */
	struct seen lseen = {0};
	check_each_function(syms, a->lib_debuglink, &nm, &lseen);
	check_lookups(syms, a->lib_debuglink, &nm);
	if (hidden) {
		CHECK(symbols_lookup(syms, a->lib_debuglink, hidden->start, &s, &err) == 0);
		CHECK_EQ_STR(s.name, "lib_hidden");
		CHECK(symbols_line(syms, a->lib_debuglink, hidden->start, &file, &line, &err) == 0);
		CHECK(strstr(file, "/target_lib.c") != NULL);
		CHECK_EQ_U64(line, source_line(a, "target_lib.c", "lib_hidden(int x)") + 1);
	}
	seen_free(&dseen);
	seen_free(&lseen);
	nm_free(&dyn);
	nm_free(&nm);
}

static void check_stripped_program(struct symbols *syms, const struct args *a)
{
	struct nm_list nm = nm_functions(a, a->pie, 0);
	const struct nm_sym *main_fn = nm_find(&nm, "main");
	struct symbol s;
	struct zerr err;
	const char *file;
	int line;
	if (CHECK(main_fn != NULL)) {
		CHECK(symbols_lookup(syms, a->pie_stripped, main_fn->start, &s, &err) == 0);
		CHECK(s.name == NULL);
		CHECK(symbols_line(syms, a->pie_stripped, main_fn->start, &file, &line, &err) == 0);
		CHECK_EQ_STR(file, "");
	}
	nm_free(&nm);
}

static void check_non_pie(struct symbols *syms, const struct args *a)
{
	check_program(syms, a, a->nopie);
	struct nm_list nm = nm_functions(a, a->nopie, 0);
	const struct nm_sym *main_fn = nm_find(&nm, "main");
	CHECK(main_fn && main_fn->start >= 0x400000); /* linked at its run-time address */
	nm_free(&nm);
}

/*
 * symbols_named: every function and data object nm shows under a name it
 * shows once has that start and size; a name not there is 0.
 */
static void check_named(struct symbols *syms, const struct args *a, const char *path)
{
	struct nm_list nm = nm_symbols(a, path, 0, "TtWwiDdBbRr");
	struct symbol s;
	struct zerr err;
	size_t checked = 0, objects = 0;
	for (size_t i = 0; i < nm.n; i++) {
		const struct nm_sym *n = &nm.v[i];
		if (nm_find(&nm, n->name) != n || strchr(n->name, ' ') || strchr(n->name, '('))
			continue; /* shown twice, or a demangled C++ name */
		int dup = 0;
		for (size_t j = i + 1; j < nm.n; j++)
			dup |= strcmp(nm.v[j].name, n->name) == 0;
		if (dup)
			continue;
		if (!CHECK(symbols_named(syms, path, n->name, &s, &err) == 1))
			continue;
		CHECK_EQ_STR(s.name, n->name);
		CHECK_EQ_U64(s.start, n->start);
		CHECK_EQ_U64(s.size, n->size);
		checked++;
		objects += strchr("DdBbRr", n->type) != NULL;
	}
	CHECK(checked > 10 && objects > 0);
	CHECK(symbols_named(syms, path, "no_such_symbol_here", &s, &err) == 0);
	nm_free(&nm);
}

/* Every entry point refuses the file with "<path><suffix>", each time. */
static void check_refused(struct symbols *syms, const char *path, const char *suffix)
{
	char want[1100];
	struct zerr err = {{0}};
	struct symbol s;
	const char *file;
	int line;
	snprintf(want, sizeof want, "%s%s", path, suffix);
	CHECK(symbols_is_elf(path, &err) == 0);
	CHECK_EQ_STR(err.msg, want);
	for (int i = 0; i < 2; i++) {
		memset(&err, 0, sizeof err);
		CHECK(symbols_lookup(syms, path, 0x1000, &s, &err) == -1);
		CHECK_EQ_STR(err.msg, want);
		CHECK(s.name == NULL);
	}
	memset(&err, 0, sizeof err);
	CHECK(symbols_line(syms, path, 0x1000, &file, &line, &err) == -1);
	CHECK_EQ_STR(err.msg, want);
	memset(&err, 0, sizeof err);
	CHECK(symbols_each_function(syms, path, collect, NULL, &err) == -1);
	CHECK_EQ_STR(err.msg, want);
}

static void check_errors(struct symbols *syms, const struct args *a)
{
	struct zerr err;
	char *missing, *source, *empty;
	if (asprintf(&missing, "%s/no-such-program", a->src) < 0 ||
	    asprintf(&source, "%s/target_main.c", a->src) < 0 ||
	    asprintf(&empty, "%s.empty", a->pie_stripped) < 0)
		exit(2);
	FILE *f = fopen(empty, "w");
	if (!f || fclose(f) != 0)
		exit(2);
	check_refused(syms, missing, ": no such file");
	check_refused(syms, source, ": not an ELF file");
	check_refused(syms, empty, ": not an ELF file");
	check_refused(syms, a->src, ": is a directory, not an ELF file");
	if (geteuid() != 0) {
		chmod(empty, 0);
		check_refused(syms, empty, ": not readable (Permission denied)");
	} else {
		printf("running as root: the unreadable-file case is not checked\n");
	}
	CHECK(symbols_is_elf(a->pie, &err) == 1);
	CHECK(symbols_is_elf(a->lib_stripped, &err) == 1);
	unlink(empty);
	free(missing);
	free(source);
	free(empty);
}

/* A copy of the ELF file at from whose executable segment is `filesz` bytes long, at to. */
static void copy_with_code_size(const char *from, const char *to, uint64_t filesz)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	static char buf[1 << 22];
	size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	if (!out || n < sizeof *eh || n == sizeof buf || eh->e_ident[EI_CLASS] != ELFCLASS64)
		exit(2);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(buf + eh->e_phoff + (size_t)i * eh->e_phentsize);
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			ph->p_filesz = filesz;
	}
	if (fwrite(buf, 1, n, out) != n || fclose(out) != 0)
		exit(2);
	fclose(in);
}

/*
 * A damaged file is refused with one line, never read by what its headers
 * claim (fuzz_elf: a code segment 0x175000000000000 bytes long was
 * allocated before it was read, and the allocation killed zond).
 */
static void check_damaged(const struct args *a)
{
	char *path, want[1100];
	struct symbols_segment *segs;
	size_t n;
	struct zerr err = {{0}};
	if (asprintf(&path, "%s.damaged", a->pie_stripped) < 0)
		exit(2);
	CHECK(symbols_code_segments(a->pie, &segs, &n, &err) == 0 && n > 0);
	symbols_free_segments(segs, n);
	copy_with_code_size(a->pie, path, 0x175000000000000ull);
	snprintf(want, sizeof want, "%s: truncated ELF file", path);
	CHECK(symbols_code_segments(path, &segs, &n, &err) == -1);
	CHECK_EQ_STR(err.msg, want);
	CHECK(segs == NULL && n == 0);
	unlink(path);
	free(path);
}

/*
 * What zond trace's rebuild asks of a guest's file (elf.c): the loadable
 * segments agree with the code segments, the executable sections and labels
 * are ranges; a file that cannot be read fails with rebuild_add_module's
 * words, and one that is no ELF file has none of them.
 */
static void check_trace_readers(const struct args *a)
{
	struct symbols_load *loads;
	struct symbols_range *ranges;
	struct symbols_segment *segs;
	size_t n, nsegs, exec = 0;
	struct zerr err = {{0}};
	char want[1100];
	CHECK(symbols_loads(a->pie, &loads, &n, &err) == 0 && n > 0);
	CHECK(symbols_code_segments(a->pie, &segs, &nsegs, &err) == 0);
	for (size_t i = 0; i < n; i++) {
		if (!loads[i].exec)
			continue;
		CHECK(exec < nsegs && segs[exec].vaddr == loads[i].vaddr &&
		      segs[exec].size == loads[i].filesz);
		exec++;
	}
	CHECK(exec == nsegs && exec > 0);
	symbols_free_segments(segs, nsegs);
	free(loads);

	int text = 0;
	CHECK(symbols_code_sections(a->pie, &ranges, &n, &err) == 0 && n > 0);
	for (size_t i = 0; i < n; i++) {
		CHECK(ranges[i].start < ranges[i].end);
		text += strcmp(ranges[i].name, ".text") == 0;
	}
	CHECK(text == 1);
	symbols_free_ranges(ranges, n);

	CHECK(symbols_code_labels(a->pie, &ranges, &n, &err) == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(ranges[i].start < ranges[i].end &&
		      (!i || ranges[i - 1].start <= ranges[i].start));
	symbols_free_ranges(ranges, n);

	snprintf(want, sizeof want, "%s: cannot read as an ELF file", a->src); /* a directory */
	CHECK(symbols_loads(a->src, &loads, &n, &err) == -1 && loads == NULL && n == 0);
	CHECK_EQ_STR(err.msg, want);
	CHECK(symbols_code_sections(a->src, &ranges, &n, &err) == -1 && n == 0);
	CHECK(symbols_code_labels(a->src, &ranges, &n, &err) == -1 && n == 0);
	char *source;
	if (asprintf(&source, "%s/target_main.c", a->src) < 0)
		exit(2);
	CHECK(symbols_loads(source, &loads, &n, &err) == 0 && n == 0);
	free(loads);
	CHECK(symbols_code_sections(source, &ranges, &n, &err) == 0 && n == 0);
	symbols_free_ranges(ranges, n);
	CHECK(symbols_code_labels(source, &ranges, &n, &err) == 0 && n == 0);
	symbols_free_ranges(ranges, n);
	free(source);
}

static int parse_args(int argc, char **argv, struct args *a)
{
	struct {
		const char *flag;
		const char **value;
	} opts[] = {
		{"--nm", &a->nm},
		{"--addr2line", &a->addr2line},
		{"--src", &a->src},
		{"--pie", &a->pie},
		{"--nopie", &a->nopie},
		{"--lib", &a->lib},
		{"--pie-stripped", &a->pie_stripped},
		{"--lib-stripped", &a->lib_stripped},
		{"--lib-debuglink", &a->lib_debuglink},
		{"--nested", &a->nested},
	};
	size_t nopts = sizeof opts / sizeof opts[0];
	for (int i = 1; i + 1 < argc; i += 2)
		for (size_t k = 0; k < nopts; k++)
			if (strcmp(argv[i], opts[k].flag) == 0)
				*opts[k].value = argv[i + 1];
	for (size_t k = 0; k < nopts; k++) {
		if (!*opts[k].value) {
			fprintf(stderr, "symbols_test: %s missing\n", opts[k].flag);
			return -1;
		}
	}
	return 0;
}

/* Function names as users write them: C++ names without their parameter lists. */
static void check_name_matches(void)
{
	CHECK(symbols_name_matches("main", "main"));
	CHECK(symbols_name_matches("fact", "fact(int)"));
	CHECK(symbols_name_matches("fact(int)", "fact(int)"));
	CHECK(symbols_name_matches("fa*", "fact(int)"));
	CHECK(symbols_name_matches("geo::A::v", "geo::A::v(int) const"));
	CHECK(symbols_name_matches("geo::*", "geo::A::v(int) const"));
	CHECK(symbols_name_matches("add<int>", "int add<int>(int, int)"));
	CHECK(symbols_name_matches("add<*>", "int add<int>(int, int)"));
	CHECK(symbols_name_matches("add", "int add<int>(int, int)"));
	CHECK(symbols_name_matches("ns::run", "void ns::run<std::pair<int, int> >(int)"));
	CHECK(symbols_name_matches("operator new", "operator new(unsigned long)"));
	CHECK(symbols_name_matches("f", "f(void (*)(int))"));
	CHECK(!symbols_name_matches("fac", "fact(int)"));
	CHECK(!symbols_name_matches("int", "int add<int>(int, int)"));
	CHECK(!symbols_name_matches("v", "geo::A::v(int) const"));
	CHECK(!symbols_name_matches("main", "domain"));
	/* c++filt's and gdb's spelled-out standard names (QA s14 V1 F3) */
	CHECK(symbols_name_matches("count(std::basic_istream<char, std::char_traits<char> >&)",
				   "count(std::istream&)"));
	CHECK(symbols_name_matches("put(std::basic_ostream<char, std::char_traits<char> >&, "
				   "std::basic_string<char, std::char_traits<char>, "
				   "std::allocator<char> >)",
				   "put(std::ostream&, std::string)"));
	CHECK(symbols_name_matches("count(std::basic_ostream<char, std::char_traits<char> >&)",
				   "count(std::istream&)") == 0);
	CHECK(symbols_name_matches("count(std::basic_istream<wchar_t, std::char_traits<wchar_t> >&)",
				   "count(std::basic_istream<wchar_t, std::char_traits<wchar_t> >&)"));
	/* template arguments of a class, at every level of the name */
	CHECK(symbols_name_matches("Box::sum", "Box<long>::sum() const"));
	CHECK(symbols_name_matches("Box<long>::sum", "Box<long>::sum() const"));
	CHECK(symbols_name_matches("Box<*>::sum", "Box<long>::sum() const"));
	CHECK(symbols_name_matches("Box::operator[]", "Box<long>::operator[](int)"));
	CHECK(symbols_name_matches("Box::get", "int Box<long>::get<int>(int)"));
	CHECK(symbols_name_matches("Box::get<int>", "int Box<long>::get<int>(int)"));
	CHECK(symbols_name_matches("Box<long>::get", "int Box<long>::get<int>(int)"));
	CHECK(symbols_name_matches("a::Out::In::f", "a::Out<int>::In<char>::f()"));
	CHECK(symbols_name_matches("std::map::operator[]",
				   "std::map<int, int, std::less<int>, std::allocator<std::pair<int const, "
				   "int> > >::operator[](int const&)"));
	CHECK(symbols_name_matches("std::vector::vector",
				   "std::vector<int, std::allocator<int> >::vector(unsigned long)"));
	CHECK(symbols_name_matches("std::vector::push_back",
				   "std::vector<int, std::allocator<int> >::push_back(int const&)"));
	CHECK(symbols_name_matches("std::function::operator()",
				   "std::function<int (int)>::operator()(int) const"));
	CHECK(symbols_name_matches("std::string::_M_create",
				   "std::__cxx11::basic_string<char>::_M_create[abi:cxx11](unsigned "
				   "long&)") == 0);
	CHECK(symbols_name_matches("std::__cxx11::basic_string::_M_create",
				   "std::__cxx11::basic_string<char>::_M_create[abi:cxx11](unsigned "
				   "long&)"));
	/* operator names kept whole */
	CHECK(symbols_name_matches("operator\"\" _km", "operator\"\" _km(unsigned long long)"));
	CHECK(symbols_name_matches("operator\"\" _km",
				   "unsigned long long operator\"\" _km(unsigned long long)"));
	CHECK(symbols_name_matches("Vec::operator()", "Vec::operator()(int) const"));
	CHECK(symbols_name_matches("operator<", "bool operator<(A const&, A const&)"));
	CHECK(symbols_name_matches("operator<", "bool operator< <int>(B<int> const&, B<int> const&)"));
	CHECK(symbols_name_matches("operator<<", "std::ostream& operator<<(std::ostream&, A const&)"));
	CHECK(symbols_name_matches("operator<<",
				   "std::basic_ostream<char, std::char_traits<char> >& "
				   "operator<< <std::char_traits<char> >(std::basic_ostream<char, "
				   "std::char_traits<char> >&, char const*)"));
	CHECK(symbols_name_matches("B::operator<=", "B<int>::operator<=(B<int> const&) const"));
	CHECK(symbols_name_matches("B::operator->", "B<int>::operator->() const"));
	CHECK(symbols_name_matches("B::operator int", "B<int>::operator int() const"));
	CHECK(symbols_name_matches("B::operator char const*", "B<int>::operator char const*() const"));
	CHECK(symbols_name_matches("B::operator std::vector<int, std::allocator<int> >",
				   "B<int>::operator std::vector<int, std::allocator<int> >() const"));
	CHECK(symbols_name_matches("operator delete[]", "operator delete[](void*)"));
	CHECK(symbols_name_matches("main::{lambda(int)#3}::operator()",
				   "main::{lambda(int)#3}::operator()(int) const"));
	CHECK(symbols_name_matches("(anonymous namespace)::W::f",
				   "(anonymous namespace)::W<int>::f()"));
	CHECK(!symbols_name_matches("sum", "Box<long>::sum() const"));
	CHECK(!symbols_name_matches("Box::operator", "Box<long>::operator[](int)"));
	CHECK(!symbols_name_matches("_km", "operator\"\" _km(unsigned long long)"));
	CHECK(!symbols_name_matches("Box::su", "Box<long>::sum() const"));
}

int main(int argc, char **argv)
{
	check_name_matches();
	struct args a = {0};
	if (parse_args(argc, argv, &a) < 0)
		return 2;
	struct symbols *syms = symbols_new();
	check_program(syms, &a, a.pie);
	check_non_pie(syms, &a);
	check_named(syms, &a, a.nopie);
	check_library(syms, &a);
	check_nested(syms, &a);
	check_stripped_program(syms, &a);
	check_errors(syms, &a);
	check_damaged(&a);
	check_trace_readers(&a);
	symbols_free(syms);
	return check_done();
}
