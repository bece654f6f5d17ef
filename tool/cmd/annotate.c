/*
 * annotate.c - `zond annotate FUNC`: a function's source, each line with
 * the cost the collector gives it, in the manner of perf annotate.
 *
 * Trace runs cost every instruction, so every line of the function gets the
 * sum of its instructions (those of FUNC's basic blocks with that DWARF
 * line).  Record and libcalls runs time whole calls: a line gets a cost only
 * where FUNC calls another function, the callee's inclusive cost along that
 * call (calling contexts, else call edges, keyed by the call's site_line);
 * FUNC's self cost has no line and is given in the title.
 *
 * The source is the DWARF file of the function (its node's file).  The lines
 * shown run from its declaration to its last line: the highest line DWARF
 * gives any byte of the function in that file, when the module can still be
 * read, else the last line with a cost.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "report/format.h"
#include "report/report.h"
#include "report/rows.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond annotate [options] FUNC\n"
	"Print the source of function FUNC with the cost of each line where the run\n"
	"has it: trace runs every line (its instructions), record and libcalls runs\n"
	"the lines that call other functions (the callees' total cost, and calls).\n"
	"The three costliest lines are marked '>'.  FUNC is a name as the reports\n"
	"show it, or a glob matched as --match matches (a C++ name also without its\n"
	"parameters: ns::f); every function it names, 16 at most.\n\n"
	"      --raw             numbers in the event's own unit, not scaled\n";

enum { OPT_RAW = 256 };

static const struct option options[] = {
	{"raw", no_argument, NULL, OPT_RAW},
	{NULL, 0, NULL, 0},
};

#define HOT_LINES 3

struct line_cost {
	const char *file; /* NULL: the function's own file; else inlined from there */
	int line;
	uint64_t cost;
	uint64_t calls;  /* call sites: calls made from the line */
	char callees[160]; /* call sites: "f, g" */
};

struct annotation {
	const struct zp_profile *p;
	uint32_t func, thread;
	int metric, raw;
	struct line_cost *lines;
	size_t n, cap;
	struct symbols *syms; /* the files of trace instructions (inlined code) */
	uint64_t total; /* the share's whole */
	int by_calls;   /* costs are of call sites (record), not of instructions */
};

static int own_option(void *arg, int c, const char *value)
{
	(void)value;
	if (c != OPT_RAW)
		return cmd_usage_error("annotate", "bad option");
	*(int *)arg = 1;
	return 0;
}

static int same_file(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

static struct line_cost *line_of(struct annotation *a, const char *file, int line)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->lines[i].line == line && same_file(a->lines[i].file, file))
			return &a->lines[i];
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		a->lines = zp_xrealloc(a->lines, a->cap * sizeof *a->lines);
	}
	a->lines[a->n] = (struct line_cost){.file = file, .line = line};
	return &a->lines[a->n++];
}

static int thread_wanted(const struct annotation *a, uint32_t thread)
{
	return a->thread == ZP_NONE || thread == a->thread;
}

/*
 * The source file of an instruction: NULL when it is the function's own (or
 * the module cannot tell), else the file code was inlined from (the profile
 * keeps lines only, so the file comes from the module's DWARF).
 */
static const char *instr_file(struct annotation *a, const struct zp_instr *in)
{
	const struct zp_node *f = &a->p->nodes[a->func];
	const char *file;
	int line;
	struct zerr ignored;
	if (!*f->module || symbols_line(a->syms, f->module, in->addr, &file, &line, &ignored) < 0 ||
	    !*file || line != in->line || strcmp(file, f->file) == 0)
		return NULL;
	return file;
}

/* Trace runs: each instruction of func's blocks (or of func) on its line. */
static void add_instructions(struct annotation *a)
{
	const struct zp_profile *p = a->p;
	for (size_t i = 0; i < p->ninstrs; i++) {
		const struct zp_instr *in = &p->instrs[i];
		const struct zp_node *n = &p->nodes[in->node];
		if (!thread_wanted(a, in->thread) || (in->node != a->func && n->parent != a->func))
			continue;
		line_of(a, instr_file(a, in), in->line)->cost += in->cost[a->metric];
		a->total += in->cost[a->metric];
	}
}

static void add_callee(struct line_cost *l, const char *name)
{
	size_t len = strlen(l->callees);
	if (strstr(l->callees, name))
		return; /* a callee is named once per line (recursion repeats paths) */
	snprintf(l->callees + len, sizeof l->callees - len, "%s%s", len ? ", " : "", name);
}

static void add_call(struct annotation *a, int site_line, uint32_t callee, uint64_t calls,
		     uint64_t cost)
{
	struct line_cost *l = line_of(a, NULL, site_line);
	l->cost += cost;
	l->calls += calls;
	add_callee(l, a->p->nodes[callee].name);
}

/*
 * Whether context c (called by func) is a call from func's outermost
 * activation on its path: the inclusive cost of a recursive call holds the
 * deeper ones, so only the outermost call's cost is counted (its calls all).
 */
static int from_outermost(const struct annotation *a, const struct zp_context *c)
{
	const struct zp_profile *p = a->p;
	for (uint32_t up = p->contexts[c->parent].parent; up != ZP_NONE; up = p->contexts[up].parent)
		if (p->contexts[up].node == a->func)
			return 0;
	return 1;
}

/* Record runs: the calls func makes, by the line they are made from. */
static void add_call_sites(struct annotation *a)
{
	const struct zp_profile *p = a->p;
	a->by_calls = 1;
	for (size_t i = 0; i < p->ncontexts; i++) {
		const struct zp_context *c = &p->contexts[i];
		if (c->parent == ZP_NONE || p->contexts[c->parent].node != a->func ||
		    !thread_wanted(a, c->thread))
			continue;
		add_call(a, c->site_line, c->node, c->calls,
			 from_outermost(a, c) ? metric_context_incl(c, a->metric) : 0);
	}
	for (size_t i = 0; !p->ncontexts && i < p->nedges; i++) {
		const struct zp_edge *e = &p->edges[i];
		if (e->kind == ZP_CALL && e->caller == a->func && thread_wanted(a, e->thread))
			add_call(a, e->site_line, e->callee, e->calls, metric_edge(e, a->metric));
	}
	/* the share's whole: func's own inclusive cost, over its stats */
	for (size_t i = 0; i < p->nstats; i++)
		if (p->stats[i].node == a->func && thread_wanted(a, p->stats[i].thread))
			a->total += metric_incl(&p->stats[i], a->metric);
}

static uint64_t func_self(const struct annotation *a)
{
	uint64_t self = 0;
	for (size_t i = 0; i < a->p->nstats; i++)
		if (a->p->stats[i].node == a->func && thread_wanted(a, a->p->stats[i].thread))
			self += metric_self(&a->p->stats[i], a->metric);
	return self;
}

/* The last source line of func in its file, by DWARF; 0 when the module is gone. */
static int last_line(const struct zp_node *n)
{
	struct symbols *syms = symbols_new();
	struct symbol sym;
	struct zerr ignored;
	int last = 0;
	if (*n->module && n->addr &&
	    symbols_lookup(syms, n->module, n->addr, &sym, &ignored) == 0 && sym.name) {
		uint64_t end = sym.start + (sym.size < 65536 ? sym.size : 65536);
		for (uint64_t addr = sym.start; addr < end; addr++) {
			const char *file;
			int line;
			if (symbols_line(syms, n->module, addr, &file, &line, &ignored) == 0 &&
			    strcmp(file, n->file) == 0 && line > last)
				last = line;
		}
	}
	symbols_free(syms);
	return last;
}

static const struct line_cost *find_line(const struct annotation *a, const char *file, int line)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->lines[i].line == line && same_file(a->lines[i].file, file))
			return &a->lines[i];
	return NULL;
}

static int is_hot(const struct annotation *a, const struct line_cost *l)
{
	if (!l || !l->cost)
		return 0;
	int costlier = 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct line_cost *o = &a->lines[i];
		costlier += o->cost > l->cost || (o->cost == l->cost && o->line < l->line);
	}
	return costlier < HOT_LINES;
}

static const char *cost_text(const struct annotation *a, char *buf, uint64_t v)
{
	return format_cost(buf, v, metric_event(a->p, a->metric), a->raw);
}

/* Column width of the costs: the widest value (wide counts never break columns). */
static int cost_width(const struct annotation *a, const char *title)
{
	char buf[FORMAT_LEN];
	int w = (int)strlen(title);
	for (size_t i = 0; i < a->n; i++) {
		int len = (int)strlen(cost_text(a, buf, a->lines[i].cost));
		w = len > w ? len : w;
	}
	return w;
}

static void put_line(FILE *out, const struct annotation *a, int width, const char *file,
		     int line, const char *text)
{
	const struct line_cost *l = find_line(a, file, line);
	char cost[FORMAT_LEN], share[FORMAT_LEN];
	if (l && (l->cost || l->calls))
		fprintf(out, "%c %*s %8s %6d  %s", is_hot(a, l) ? '>' : ' ', width,
			cost_text(a, cost, l->cost), format_share(share, l->cost, a->total), line,
			text);
	else
		fprintf(out, "  %*s %8s %6d  %s", width, "", "", line, text);
	if (l && a->by_calls && l->calls) {
		fprintf(out, "%s-> ", *text ? "    " : "");
		report_put_text(out, l->callees, 0);
		fprintf(out, " (%" PRIu64 " call%s)", l->calls, l->calls == 1 ? "" : "s");
	}
	putc('\n', out);
}

/* before, the name or path text (control characters as '?'), after. */
static void put_between(FILE *out, const char *before, const char *text, const char *after)
{
	fputs(before, out);
	report_put_text(out, text, 0);
	fputs(after, out);
}

static void put_title(FILE *out, const struct annotation *a, const char *cost_title)
{
	const struct zp_node *n = &a->p->nodes[a->func];
	char buf[FORMAT_LEN];
	/* names and paths are bytes: a control character (a newline) as '?' (QA s15 W2 F3) */
	fputs("annotate: ", out);
	report_put_text(out, n->name, 0);
	fputs(" (", out);
	report_put_text(out, *n->file ? n->file : "?", 0);
	fprintf(out, ":%d)\n", n->line);
	if (a->by_calls) {
		fprintf(out, "costs: %s of the calls made from each line (callees' total); share of ",
			cost_title);
		report_put_text(out, n->name, 0);
		fprintf(out, "'s total %s; its self cost %s has no line\n", cost_text(a, buf, a->total),
			cost_text(a, (char[FORMAT_LEN]){0}, func_self(a)));
	} else
		fprintf(out, "costs: %s of each line's instructions; share of the function's %s\n",
			cost_title, cost_text(a, buf, a->total));
}

/* Where the source is: its DWARF name, read as given (absolute, or from here). */
/*
 * The function's source file, NULL when it is not a regular file that can
 * be read; *why then says so in the line annotate prints.
 */
static FILE *open_source(const struct zp_node *n, const char **why)
{
	*why = "not found";
	FILE *f = *n->file ? fopen(n->file, "r") : NULL;
	struct stat st;
	if (f && (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))) {
		*why = "not a regular file";
		fclose(f);
		f = NULL;
	}
	return f;
}

/* 1 when the source was changed after the program was built: its lines may have moved. */
static int newer_than_module(FILE *src, const struct zp_node *n)
{
	struct stat s, m;
	return fstat(fileno(src), &s) == 0 && *n->module && stat(n->module, &m) == 0 &&
	       s.st_mtime > m.st_mtime;
}

/* Rows with costs at lines from `from` on, with no text: what the source cannot show. */
static void put_costed_rows(FILE *out, const struct annotation *a, int width, int from)
{
	for (size_t i = 0; i < a->n; i++)
		if (!a->lines[i].file && a->lines[i].line >= from)
			put_line(out, a, width, NULL, a->lines[i].line, "");
}

static void put_source(FILE *out, const struct annotation *a, int first, int last, int width)
{
	const struct zp_node *n = &a->p->nodes[a->func];
	const char *why;
	FILE *src = open_source(n, &why);
	if (!src && *n->file) {
		put_between(out, "(source file ", n->file, " ");
		fprintf(out, "%s: lines with costs only)\n", why);
	} else if (!src) {
		put_between(out, "(no source file known for ", n->name,
			    ": its module has no line information)\n");
	} else if (newer_than_module(src, n)) {
		put_between(out, "(source file ", n->file, " is newer than ");
		put_between(out, "", n->module, ": the lines may have moved since the build)\n");
	}
	char *text = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0;
	while (src && line < last && (len = getline(&text, &cap, src)) >= 0) {
		line++;
		if (len > 0 && text[len - 1] == '\n')
			text[len - 1] = 0;
		if (line >= first)
			put_line(out, a, width, NULL, line, text);
	}
	if (src && line < last) {
		put_between(out, "(source file ", n->file, " ");
		fprintf(out, "ends at line %d: it changed since the build? lines with costs past "
			     "it follow)\n",
			line);
	}
	put_costed_rows(out, a, width, src ? line + 1 : 1);
	free(text);
	if (src)
		fclose(src);
}

/* The function's own lines first, then inlined ones by file; by line. */
static int compare_lines(const void *x, const void *y)
{
	const struct line_cost *a = x, *b = y;
	if (!same_file(a->file, b->file))
		return !a->file ? -1 : !b->file ? 1 : strcmp(a->file, b->file);
	return (a->line > b->line) - (a->line < b->line);
}

/* Lines of code inlined from other files, after the function's own source. */
static void put_inlined(FILE *out, const struct annotation *a, int width)
{
	for (size_t i = 0; i < a->n; i++) {
		if (!a->lines[i].file)
			continue;
		char text[512];
		snprintf(text, sizeof text, "(inlined from %s)", a->lines[i].file);
		put_line(out, a, width, a->lines[i].file, a->lines[i].line, text);
	}
}

static void annotate(FILE *out, struct annotation *a)
{
	const struct zp_node *n = &a->p->nodes[a->func];
	a->syms = symbols_new();
	if (a->p->ninstrs && a->metric >= 0)
		add_instructions(a);
	else
		add_call_sites(a);
	zp_sort(a->lines, a->n, sizeof *a->lines, compare_lines);
	const struct zp_event *ev = metric_event(a->p, a->metric);
	char title[64];
	snprintf(title, sizeof title, "%s", ev ? ev->name : "calls");
	if (ev && (a->raw || !format_is_time(ev)))
		snprintf(title, sizeof title, "%s (%s)", ev->name, ev->unit);
	int width = cost_width(a, title);
	int first = n->line, last = last_line(n);
	for (size_t i = 0; i < a->n && !a->lines[i].file; i++) {
		if (a->lines[i].line && (!first || a->lines[i].line < first))
			first = a->lines[i].line;
		if (a->lines[i].line > last)
			last = a->lines[i].line;
	}
	put_title(out, a, title);
	fprintf(out, "\n  %*s %8s %6s  %s\n", width, title, "share", "line", "source");
	if (find_line(a, NULL, 0))
		put_line(out, a, width, NULL, 0, "(no line known)");
	put_source(out, a, first ? first : 1, last, width);
	put_inlined(out, a, width);
	symbols_free(a->syms);
}

/* The functions named name (several: static functions of different files). */
/*
 * The functions name names, max at most into ids, and how many it names in
 * all: those of that very name, else those the glob matches as the reports'
 * --match does (symbols_name_matches: a C++ name also without its parameters,
 * QA s16 X1 F2: only the whole signature was taken).
 */
static size_t find_functions(const struct zp_profile *p, const char *name, uint32_t *ids,
			     size_t max)
{
	size_t n = 0;
	for (int loose = 0; loose < 2 && !n; loose++)
		for (uint32_t i = 0; i < p->nnodes; i++) {
			const char *it = p->nodes[i].name;
			if (p->nodes[i].kind != ZP_FUNCTION ||
			    !(loose ? symbols_name_matches(name, it) : strcmp(it, name) == 0))
				continue;
			if (n < max)
				ids[n] = i;
			n++;
		}
	return n;
}

static void annotate_all(const struct zp_profile *p, const uint32_t *ids, size_t n, int metric,
			 int raw, uint32_t thread, FILE *out)
{
	report_header(p, out);
	for (size_t i = 0; i < n; i++) {
		struct annotation a = {.p = p, .func = ids[i], .thread = thread,
				       .metric = metric, .raw = raw};
		if (i)
			putc('\n', out);
		annotate(out, &a);
		free(a.lines);
	}
}

/* -o, which must not be a source file annotate reads (the functions' files). */
static FILE *open_output(const struct zp_profile *p, const uint32_t *ids, size_t n,
			 struct read_options *ro)
{
	const char *sources[17];
	for (size_t i = 0; i < n && i < 16; i++)
		sources[i] = p->nodes[ids[i]].file;
	sources[n < 16 ? n : 16] = NULL;
	return read_output_open_reading("annotate", ro, sources);
}

int cmd_annotate(int argc, char **argv)
{
	int raw = 0;
	const struct read_cmd cmd = {"annotate", usage_text, NULL,
				     READ_RUN_CHOICE | READ_EVENT | READ_OUTPUT, "", options,
				     own_option, &raw, NULL};
	struct read_options ro;
	int status = read_parse(&cmd, argc, argv, &ro);
	if (status >= 0)
		return status;
	if (optind != argc - 1)
		return cmd_usage_error("annotate", "give one function name");

	struct zerr err;
	uint32_t thread;
	struct zp_profile *p = run_choice_load(&ro.rc, &thread, &err);
	if (!p)
		return cmd_error("annotate", "%s", err.msg);
	int event = 0;
	uint32_t ids[16];
	size_t named = find_functions(p, argv[optind], ids, 16), n = named < 16 ? named : 16;
	FILE *out = NULL;
	if (read_event("annotate", &ro, p, &event))
		status = 1;
	else if (!n)
		status = cmd_error("annotate", "no function '%s' in run %lld", argv[optind],
				   (long long)p->run.id);
	else if (named > n)
		status = cmd_error("annotate", "'%s' names %zu functions of run %lld: give "
					       "one name, or a glob of 16 at most",
				   argv[optind], named, (long long)p->run.id);
	else if (!(out = open_output(p, ids, n, &ro)))
		status = 1;
	if (out) {
		annotate_all(p, ids, n, metric_pick(p, event), raw, thread, out);
		status = read_output_close("annotate", &ro, out);
	}
	profile_free(p);
	return status;
}
