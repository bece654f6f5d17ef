/*
 * dump.c - `zond dump`: a run as stable, sorted text.
 *
 * Made for tests and diffs: no times unless asked, no thread ids, no
 * addresses; every line sorted, so the same program gives the same text.
 * Functions and edges are the flat sums; context lines are the real stacks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "export/export.h"
#include "report/report.h"
#include "report/rows.h"
#include "util/path.h"

static const char usage_text[] =
	"usage: zond dump [options]\n"
	"Print a run as sorted text without times: the number of threads, a line\n"
	"'lost_X N' per table the collector found full (the run is then incomplete), a line\n"
	"'unstacked_calls N' when signal handlers made calls counted on their functions\n"
	"but on no edge or context, a line per function 'function NAME calls=N'\n"
	"(blocks: 'block NAME FILE:LINE calls=N')\n"
	"a line per call edge 'call CALLER -> CALLEE calls=N' (CALLER '-' for a\n"
	"thread's root) and a line per calling context 'context ROOT;...;FUNC calls=N'\n"
	"(threads folded by path; none for a run whose collector kept no contexts).\n"
	"Without --times, what holds time only (no call: samples where no function\n"
	"was open) is left out.\n"
	"Names are written alike in every line: control characters (a newline) as '?',\n"
	"';' as ':'.\n\n"
	"      --times           add self.EVENT= and total.EVENT= of every event\n";

enum { OPT_TIMES = 256 };

static const struct option options[] = {
	{"times", no_argument, NULL, OPT_TIMES},
	{NULL, 0, NULL, 0},
};

static int own_option(void *arg, int c, const char *value)
{
	(void)value;
	if (c != OPT_TIMES)
		return cmd_usage_error("dump", "bad option");
	*(int *)arg = 1;
	return 0;
}

struct lines {
	char **line;
	size_t n, cap;
};

static void add_line(struct lines *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->line = zp_xrealloc(l->line, l->cap * sizeof *l->line);
	}
	l->line[l->n++] = s;
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A name in any of dump's lines, written one way: on one line (control
 * characters as '?', as the reports write them) and ';' as ':' (the context
 * lines join names by ';').
 */
static void put_name(FILE *out, const char *name)
{
	report_put_text(out, name, 1);
}

static char *node_line(const struct zp_view *v, uint32_t i, int times)
{
	const struct zp_profile *p = v->p;
	const struct zp_node *n = &p->nodes[i];
	const struct zp_stat *s = &v->nodes[i];
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	fputs(n->kind == ZP_BLOCK ? "block " : n->kind == ZP_FUNCTION ? "function " : "basic-block ",
	      f);
	put_name(f, n->name);
	if (n->kind == ZP_BLOCK) {
		putc(' ', f);
		put_name(f, path_base(n->file));
		fprintf(f, ":%d", n->line);
	}
	fprintf(f, " calls=%" PRIu64, s->calls);
	for (size_t e = 0; times && e < p->nevents; e++)
		fprintf(f, " self.%s=%" PRIu64 " total.%s=%" PRIu64, p->events[e].name, s->self[e],
			p->events[e].name, s->incl[e]);
	fclose(f);
	return buf;
}

static char *edge_line(const struct zp_view *v, const struct zp_edge *e, int times)
{
	const struct zp_profile *p = v->p;
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	fputs(e->kind == ZP_CALL ? "call " : "jump ", f);
	put_name(f, e->caller == ZP_NONE ? "-" : p->nodes[e->caller].name);
	fputs(" -> ", f);
	put_name(f, p->nodes[e->callee].name);
	fprintf(f, " calls=%" PRIu64, e->calls);
	for (size_t k = 0; times && k < p->nevents; k++)
		fprintf(f, " total.%s=%" PRIu64, p->events[k].name, e->incl[k]);
	fclose(f);
	return buf;
}

/* Every calling context of the thread (or of all, folded by path) as a line. */
static void add_context_lines(struct lines *l, const struct zp_profile *p, uint32_t thread,
			      int times)
{
	struct zp_context_view *cv = profile_context_view(p, thread);
	uint32_t *path = zp_xcalloc(cv->ncontexts ? cv->ncontexts : 1, sizeof *path);
	char *parent = zp_xcalloc(cv->ncontexts ? cv->ncontexts : 1, 1);
	for (uint32_t c = 0; c < cv->ncontexts; c++)
		if (cv->contexts[c].parent != ZP_NONE && cv->contexts[c].parent < cv->ncontexts)
			parent[cv->contexts[c].parent] = 1;
	for (uint32_t c = 0; c < cv->ncontexts; c++) {
		const struct zp_context *ctx = &cv->contexts[c];
		/* a leaf with no call (samples where no function was open: "[no
		   function]") holds time only */
		if (!times && !ctx->calls && !parent[c])
			continue;
		char *buf;
		size_t len;
		FILE *f = open_memstream(&buf, &len);
		fputs("context ", f);
		export_context_path(f, cv, c, path, put_name);
		fprintf(f, " calls=%" PRIu64, ctx->calls);
		for (size_t e = 0; times && e < p->nevents; e++)
			fprintf(f, " self.%s=%" PRIu64 " total.%s=%" PRIu64, p->events[e].name,
				ctx->self[e], p->events[e].name, ctx->incl[e]);
		fclose(f);
		add_line(l, buf);
	}
	free(path);
	free(parent);
	profile_context_view_free(cv);
}

static void dump(const struct zp_profile *p, uint32_t thread, int times, FILE *out)
{
	struct zp_view *v = profile_view(p, thread);
	struct lines l = {0};
	/* without times, a function with no call (only samples) says nothing */
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (v->nodes[i].calls || (times && v->nodes[i].incl[0]))
			add_line(&l, node_line(v, i, times));
	for (size_t i = 0; i < v->nedges; i++)
		add_line(&l, edge_line(v, &v->edges[i], times));
	add_context_lines(&l, p, thread, times);
	zp_sort(l.line, l.n, sizeof *l.line, compare_lines);

	fprintf(out, "threads %zu\n", thread == ZP_NONE ? p->nthreads : (size_t)1);
	/* what the collector dropped: a dump without these lines is complete */
	for (size_t i = 0; i < p->run.nmeta; i++)
		if (strncmp(p->run.meta[i].key, "lost_", 5) == 0 ||
		    (strcmp(p->run.meta[i].key, "unstacked_calls") == 0 &&
		     strcmp(p->run.meta[i].value, "0") != 0))
			fprintf(out, "%s %s\n", p->run.meta[i].key, p->run.meta[i].value);
	for (size_t i = 0; i < l.n; i++) {
		fprintf(out, "%s\n", l.line[i]);
		free(l.line[i]);
	}
	free(l.line);
	profile_view_free(v);
}

int cmd_dump(int argc, char **argv)
{
	int times = 0;
	const struct read_cmd cmd = {"dump", usage_text, NULL, READ_RUN_CHOICE | READ_OUTPUT, "",
				     options, own_option, &times, NULL};
	struct read_options ro;
	int status = read_parse(&cmd, argc, argv, &ro);
	if (status >= 0)
		return status;
	if (optind < argc)
		return cmd_usage_error("dump", "unexpected argument '%s'", argv[optind]);
	struct zerr err;
	uint32_t thread;
	struct zp_profile *p = run_choice_load(&ro.rc, &thread, &err);
	if (!p)
		return cmd_error("dump", "%s", err.msg);
	FILE *out = read_output_open("dump", &ro);
	status = 1;
	if (out) {
		dump(p, thread, times, out);
		status = read_output_close("dump", &ro, out);
	}
	char note[512]; /* no context lines for such a campaign: its edges are the truth */
	if (status == 0 && report_contexts_note(p, note, sizeof note))
		fprintf(stderr, "zond dump: %s\n", note);
	profile_free(p);
	return status;
}
