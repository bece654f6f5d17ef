/*
 * diff.c - `zond diff [A] [B]`: what changed per function between two runs,
 * or two campaigns of repeated runs.
 *
 * Each side is one run or the runs of a campaign.  A function (matched by
 * kind and name, so that a rebuilt program still matches) has per run its
 * calls, self and inclusive cost in the metric (summed over threads and over
 * nodes of the same name); a side's figure is the mean over its runs (a run
 * without the function counts 0), with the smallest and largest run's
 * figure as its spread.  Rows are sorted by impact: |delta self|, then
 * |delta inclusive|, then name.
 *
 * The gate (--fail-above PCT): a function "got slower" when its self cost
 * grew by more than PCT percent (or it is new), it holds at least
 * --min-share of either side's total self cost, and the growth is larger
 * than the noise: the wider of the two sides' spreads of its self cost.
 * Then exit status 3, with one line on stderr per such function.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "export/export.h"
#include "report/format.h"
#include "report/rows.h"
#include "store/store.h"
#include "util/strtab.h"

static const char usage_text[] =
	"usage: zond diff [options] [A] [B]\n"
	"Compare two runs per function: calls, self and total (inclusive) cost of B\n"
	"and their change from A, absolute and relative, biggest change of self cost\n"
	"first.  A and B are each a run (id, -N for the Nth newest, 'last'), given as\n"
	"an argument or with -r, or a campaign (-C NAME: its runs' mean, with the\n"
	"spread of the runs shown so that noise is not read as change); the first\n"
	"given is A.  Default: A = the second newest run (-2), B = the newest; with\n"
	"only A given, B = the newest.\n\n"
	"  -r, --run RUN         the next side is run RUN\n"
	"  -C, --campaign NAME   the next side is campaign NAME's runs\n"
	"  -n, --limit N         show the N functions of biggest change only (0: all)\n"
	"      --fail-above PCT  exit 3 when a function's self cost grew by more than\n"
	"                        PCT percent (beyond the runs' spread) or is new\n"
	"      --min-share PCT   ... counting functions of at least PCT percent of a\n"
	"                        side's total self cost only (default 1)\n"
	"      --json            JSON instead of text (doc/json-schema.md)\n"
	"      --raw             numbers in the event's own unit, not scaled\n";

static const char after_text[] =
	"-e: the event compared (default: B's first); 'calls': calls.\n"
	"Exit status: 0, 3 when --fail-above found a slower function, 1 on error, 2 on\na usage error.\n";

enum { OPT_FAIL_ABOVE = 256, OPT_MIN_SHARE, OPT_JSON, OPT_RAW };

static const struct option options[] = {
	{"run", required_argument, NULL, 'r'},
	{"campaign", required_argument, NULL, 'C'},
	{"limit", required_argument, NULL, 'n'},
	{"fail-above", required_argument, NULL, OPT_FAIL_ABOVE},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{"json", no_argument, NULL, OPT_JSON},
	{"raw", no_argument, NULL, OPT_RAW},
	{NULL, 0, NULL, 0},
};

enum { CALLS, SELF, INCL, NFIGURES };
static const char *const figure_names[NFIGURES] = {"calls", "self", "incl"};

/* One figure of one function on one side, over the side's runs. */
struct figure {
	double sum, min, max;
	size_t nruns; /* runs that had the function */
};

struct side {
	struct run_choice rc;
	int64_t *ids;
	size_t nruns;
	char *command;       /* of its newest run */
	/* a campaign whose runs measured different functions: its runs (ids), combined into
	   one profile, the side's one run (nruns 1); 0 otherwise */
	size_t combined;
	struct figure total; /* self cost of the whole run */
};

struct func {
	struct figure f[2][NFIGURES]; /* [side][figure] */
};

struct diff {
	struct side side[2]; /* A, B */
	const char *event;   /* NULL: the first event of B's first run */
	int metric_calls;    /* the metric is calls */
	struct zp_event ev;  /* the event compared (copies), name NULL for calls */
	struct strtab keys;  /* kind digit + name */
	struct func *funcs;
	size_t cap;
	double *run_values; /* per run scratch: keys.n * NFIGURES */
	size_t nrun_values;
};

static void figure_add(struct figure *f, double v)
{
	if (!f->nruns || v < f->min)
		f->min = v;
	if (!f->nruns || v > f->max)
		f->max = v;
	f->sum += v;
	f->nruns++;
}

/* A side's mean, min and max over all its runs (runs without it count 0). */
static double figure_mean(const struct figure *f, size_t nruns)
{
	return nruns ? f->sum / (double)nruns : 0;
}
static double figure_min(const struct figure *f, size_t nruns)
{
	return f->nruns < nruns ? 0 : f->min;
}
static double figure_spread(const struct figure *f, size_t nruns)
{
	return f->nruns ? f->max - figure_min(f, nruns) : 0;
}

static size_t func_of(struct diff *d, const struct zp_node *n)
{
	char kind[2] = {(char)('0' + n->kind), 0};
	size_t len = strlen(n->name) + 2;
	char *key = zp_xmalloc(len);
	snprintf(key, len, "%s%s", kind, n->name);
	size_t i = strtab_intern(&d->keys, key);
	free(key);
	if (d->keys.n > d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		d->funcs = zp_xrealloc(d->funcs, cap * sizeof *d->funcs);
		memset(d->funcs + d->cap, 0, (cap - d->cap) * sizeof *d->funcs);
		d->cap = cap;
	}
	return i;
}

/*
 * The metric of run p: the index there of the event compared, or
 * METRIC_CALLS.  The first run seen settles which: -e, else its first event,
 * else calls.
 */
static int pick_metric(struct diff *d, const struct zp_profile *p, int *metric, struct zerr *err)
{
	const char *want = d->ev.name;
	if (!want && !d->metric_calls) {
		want = d->event ? d->event : p->nevents ? p->events[0].name : NULL;
		d->metric_calls =
			!want || (strcmp(want, "calls") == 0 && profile_find_event(p, want) < 0);
	}
	*metric = METRIC_CALLS;
	if (d->metric_calls)
		return 0;
	if ((*metric = profile_find_event(p, want)) < 0) {
		char has[256] = "";
		for (size_t i = 0; i < p->nevents && strlen(has) + 40 < sizeof has; i++)
			snprintf(has + strlen(has), sizeof has - strlen(has), "%s'%s'",
				 i ? ", " : "", p->events[i].name);
		if (!p->nevents)
			return zerr_set(err,
					"run %" PRId64 " has no event '%s': a counts-only run "
					"(compare calls with -e calls)",
					p->run.id, want);
		return zerr_set(err,
				"run %" PRId64 " has no event '%s' (it has %s; calls compare "
				"with -e calls)",
				p->run.id, want, has);
	}
	if (!d->ev.name) {
		d->ev.name = zp_xstrdup(p->events[*metric].name);
		d->ev.unit = zp_xstrdup(p->events[*metric].unit);
	}
	return 0;
}

/* Adds run p's figures to side s. */
static int add_run(struct diff *d, int s, const struct zp_profile *p, struct zerr *err)
{
	int metric = METRIC_CALLS;
	if (pick_metric(d, p, &metric, err) < 0)
		return -1;
	struct zp_view *v = profile_view(p, ZP_NONE);
	for (uint32_t n = 0; n < p->nnodes; n++)
		func_of(d, &p->nodes[n]);
	if (d->nrun_values < d->keys.n * NFIGURES) {
		d->nrun_values = d->keys.n * NFIGURES;
		d->run_values = zp_xrealloc(d->run_values, d->nrun_values * sizeof *d->run_values);
	}
	memset(d->run_values, 0, d->keys.n * NFIGURES * sizeof *d->run_values);
	unsigned char *seen = zp_xcalloc(d->keys.n, 1);
	for (uint32_t n = 0; n < p->nnodes; n++) {
		const struct zp_stat *st = &v->nodes[n];
		if (!st->calls && !metric_self(st, metric) && !metric_incl(st, metric))
			continue;
		size_t f = func_of(d, &p->nodes[n]);
		double *val = &d->run_values[f * NFIGURES];
		val[CALLS] += (double)st->calls;
		val[SELF] += (double)metric_self(st, metric);
		val[INCL] += (double)metric_incl(st, metric);
		seen[f] = 1;
	}
	for (size_t f = 0; f < d->keys.n; f++)
		for (int k = 0; seen[f] && k < NFIGURES; k++)
			figure_add(&d->funcs[f].f[s][k], d->run_values[f * NFIGURES + k]);
	figure_add(&d->side[s].total, (double)metric_total(v, metric));
	free(seen);
	profile_view_free(v);
	return 0;
}

/* Side s's runs (resolved by resolve_sides) loaded from st and added. */
static int load_side(struct diff *d, struct store *st, int s, struct zerr *err)
{
	struct side *sd = &d->side[s];
	int rc = 0;
	if (sd->rc.campaign && sd->nruns > 1) {
		/* runs that measured different functions (inject --per-run, --descend) are parts
		   of one measurement, not repetitions: one profile, as report -C reads it */
		struct zp_profile *all = runs_combined(st, sd->ids, sd->nruns, sd->rc.campaign, err);
		if (!all || profile_meta(all, "self_from_graph") ||
		    profile_meta(all, "functions_in_some_runs")) {
			if (all) {
				sd->combined = sd->nruns;
				sd->nruns = 1;
				sd->command = zp_xstrdup(all->run.command ? all->run.command : "");
				rc = add_run(d, s, all, err);
			}
			profile_free(all);
			return all ? rc : -1;
		}
		profile_free(all);
	}
	for (size_t i = 0; rc == 0 && i < sd->nruns; i++) {
		struct zp_profile *p = store_load_run(st, sd->ids[i], err);
		rc = p ? add_run(d, s, p, err) : -1;
		if (p && i + 1 == sd->nruns)
			sd->command = zp_xstrdup(p->run.command ? p->run.command : "");
		profile_free(p);
	}
	return rc;
}

/*
 * Both sides chosen and loaded in one read transaction of the store: the
 * runs compared are those named (the newest is still the newest), even
 * when runs are deleted or added meanwhile (QA s13 S F1).  B first: its
 * first run names the default event.
 */
static int load_sides(struct diff *d, const char *path, struct zerr *err)
{
	struct store *st = store_open(path ? path : STORE_DEFAULT_PATH, STORE_READ, err);
	if (!st)
		return -1;
	int rc = store_read_begin(st, err);
	for (int s = 1; rc == 0 && s >= 0; s--)
		rc = run_choice_ids(st, &d->side[s].rc, &d->side[s].ids, &d->side[s].nruns, err);
	for (int s = 1; rc == 0 && s >= 0; s--)
		rc = load_side(d, st, s, err);
	store_close(st);
	return rc;
}

/* ---- output ------------------------------------------------------------ */

static double mean(const struct diff *d, size_t f, int s, int k)
{
	return figure_mean(&d->funcs[f].f[s][k], d->side[s].nruns);
}
static double delta(const struct diff *d, size_t f, int k)
{
	return mean(d, f, 1, k) - mean(d, f, 0, k);
}
/* The noise of a figure: the wider of the two sides' spreads. */
static double noise(const struct diff *d, size_t f, int k)
{
	double a = figure_spread(&d->funcs[f].f[0][k], d->side[0].nruns);
	double b = figure_spread(&d->funcs[f].f[1][k], d->side[1].nruns);
	return a > b ? a : b;
}
static double share(const struct diff *d, size_t f, int s)
{
	double total = figure_mean(&d->side[s].total, d->side[s].nruns);
	return total > 0 ? 100.0 * mean(d, f, s, SELF) / total : 0;
}

static const struct diff *sort_diff;
static int by_impact(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const struct diff *d = sort_diff;
	for (int k = SELF; k <= INCL; k++) {
		double da = fabs(delta(d, a, k)), db = fabs(delta(d, b, k));
		if (da != db)
			return da > db ? -1 : 1;
	}
	int c = strcmp(d->keys.s[a] + 1, d->keys.s[b] + 1);
	return c ? c : strcmp(d->keys.s[a], d->keys.s[b]);
}

/* Every function of either side, by impact, then SIZE_MAX (always one, the end). */
static size_t *sorted_funcs(const struct diff *d)
{
	size_t *order = zp_xcalloc(d->keys.n + 1, sizeof *order);
	size_t n = 0;
	for (size_t f = 0; f < d->keys.n; f++)
		if (d->funcs[f].f[0][CALLS].nruns || d->funcs[f].f[1][CALLS].nruns)
			order[n++] = f;
	sort_diff = d;
	zp_sort(order, n, sizeof *order, by_impact);
	for (size_t i = n; i <= d->keys.n; i++)
		order[i] = SIZE_MAX;
	return order;
}

/* A value of the metric (calls: a count) for reading. */
static const char *put_value(char *buf, double v, const struct diff *d, int k, int raw)
{
	const struct zp_event *ev = k == CALLS || d->metric_calls ? NULL : &d->ev;
	/* figures are doubles (means): beyond 2^63 llround would saturate */
	double a = fabs(v) + 0.5;
	return format_cost(buf, a >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)a, ev, raw);
}

static const char *put_delta(char *buf, double v, const struct diff *d, int k, int raw)
{
	char num[FORMAT_LEN];
	put_value(num, v, d, k, raw);
	snprintf(buf, FORMAT_LEN, "%s%.30s", v >= 0.5 ? "+" : v <= -0.5 ? "-" : "", num);
	return buf;
}

static const char *put_relative(char *buf, double a, double b)
{
	if (a == 0)
		snprintf(buf, FORMAT_LEN, "%s", b == 0 ? "0.00%" : "new");
	else
		snprintf(buf, FORMAT_LEN, "%+.2f%%", 100.0 * (b - a) / a);
	return buf;
}

static const char *kind_mark(char kind)
{
	return kind == '0' + ZP_BLOCK ? " [block]" : kind == '0' + ZP_BASIC_BLOCK ? " [bb]" : "";
}

/* Side s's line: its runs, campaign and command (names' control characters as '?'). */
static void put_side_line(FILE *out, const struct diff *d, int s)
{
	const struct side *sd = &d->side[s];
	fprintf(out, "%s: ", s ? "B" : "A");
	if (sd->rc.campaign) {
		fputs("campaign ", out);
		report_put_text(out, sd->rc.campaign, 0);
		fputs(", ", out);
	}
	if (sd->combined)
		fprintf(out, "%zu runs (%" PRId64 "..%" PRId64 ") combined, each of other functions",
			sd->combined, sd->ids[0], sd->ids[sd->combined - 1]);
	else if (sd->rc.campaign && sd->nruns > 1)
		fprintf(out, "mean of %zu runs (%" PRId64 "..%" PRId64 ")", sd->nruns, sd->ids[0],
			sd->ids[sd->nruns - 1]);
	else if (sd->rc.campaign)
		fprintf(out, "1 run (%" PRId64 ")", sd->ids[0]);
	else
		fprintf(out, "run %" PRId64, sd->ids[0]);
	fputs(", ", out);
	report_put_text(out, sd->command, 0);
	putc('\n', out);
}

/* The cells of a row of the text table, in column order (the noise cell empty without spread). */
enum { C_CALLS, C_DCALLS, C_SELF, C_DSELF, C_RSELF, C_NOISE, C_TOTAL, C_DTOTAL, C_RTOTAL, NCELLS };
static const int default_width[NCELLS] = {10, 10, 11, 11, 10, 10, 11, 11, 10};
static const char *const headers[NCELLS] = {"calls", "+/-", "self", "+/-", "self %", "noise",
					    "total", "+/-", "total %"};

static void row_cells(const struct diff *d, size_t f, int raw, char c[NCELLS][FORMAT_LEN])
{
	put_value(c[C_CALLS], mean(d, f, 1, CALLS), d, CALLS, 0);
	put_delta(c[C_DCALLS], delta(d, f, CALLS), d, CALLS, 0);
	put_value(c[C_SELF], mean(d, f, 1, SELF), d, SELF, raw);
	put_delta(c[C_DSELF], delta(d, f, SELF), d, SELF, raw);
	put_relative(c[C_RSELF], mean(d, f, 0, SELF), mean(d, f, 1, SELF));
	put_value(c[C_NOISE], noise(d, f, SELF), d, SELF, raw);
	put_value(c[C_TOTAL], mean(d, f, 1, INCL), d, INCL, raw);
	put_delta(c[C_DTOTAL], delta(d, f, INCL), d, INCL, raw);
	put_relative(c[C_RTOTAL], mean(d, f, 0, INCL), mean(d, f, 1, INCL));
}

/* Columns as wide as their widest cell: wide numbers never break the table. */
static void column_widths(const struct diff *d, const size_t *order, size_t limit, int raw,
			  int w[NCELLS])
{
	char c[NCELLS][FORMAT_LEN];
	memcpy(w, default_width, sizeof default_width);
	for (size_t i = 0; i < limit && order[i] != SIZE_MAX; i++) {
		row_cells(d, order[i], raw, c);
		for (int k = 0; k < NCELLS; k++)
			w[k] = (int)strlen(c[k]) > w[k] ? (int)strlen(c[k]) : w[k];
	}
}

static void put_row(FILE *out, char c[NCELLS][FORMAT_LEN], const int w[NCELLS],
		    int spread, const char *noise_mark)
{
	for (int k = 0; k < NCELLS; k++) {
		if (k == C_NOISE && !spread)
			continue;
		fprintf(out, "%s%*s", k ? " " : "", w[k], c[k]);
		if (k == C_NOISE)
			fputs(noise_mark, out);
	}
}

static void put_text(FILE *out, const struct diff *d, const size_t *order, size_t limit, int raw)
{
	char t[4][FORMAT_LEN], c[NCELLS][FORMAT_LEN];
	int spread = d->side[0].nruns > 1 || d->side[1].nruns > 1, w[NCELLS];
	put_side_line(out, d, 0);
	put_side_line(out, d, 1);
	double ta = figure_mean(&d->side[0].total, d->side[0].nruns);
	double tb = figure_mean(&d->side[1].total, d->side[1].nruns);
	if (d->metric_calls)
		fprintf(out, "diff: calls, ");
	else if (raw || !format_is_time(&d->ev))
		fprintf(out, "diff: %s (%s), ", d->ev.name, d->ev.unit);
	else /* the unit named is the one the values are printed in */
		fprintf(out, "diff: %s (each value with its unit), ", d->ev.name);
	fprintf(out, "total A %s, B %s, %s (%s)\n", put_value(t[0], ta, d, SELF, raw),
		put_value(t[1], tb, d, SELF, raw), put_delta(t[2], tb - ta, d, SELF, raw),
		put_relative(t[3], ta, tb));
	column_widths(d, order, limit, raw, w);
	for (int k = 0; k < NCELLS; k++)
		snprintf(c[k], FORMAT_LEN, "%s", headers[k]);
	put_row(out, c, w, spread, " ");
	fputs("  name\n", out);
	for (size_t i = 0; i < limit && order[i] != SIZE_MAX; i++) {
		size_t f = order[i];
		row_cells(d, f, raw, c);
		int within = delta(d, f, SELF) != 0 && fabs(delta(d, f, SELF)) <= noise(d, f, SELF);
		put_row(out, c, w, spread, within ? "~" : " ");
		fputs("  ", out);
		report_put_text(out, d->keys.s[f] + 1, 0);
		fprintf(out, "%s\n", kind_mark(d->keys.s[f][0]));
	}
	size_t n = 0;
	while (n < d->keys.n && order[n] != SIZE_MAX)
		n++;
	if (n > limit)
		fprintf(out, "(%zu more not shown)\n", n - limit);
	if (spread)
		fputs("(noise: the wider spread of the runs' self cost; ~: change within it)\n",
		      out);
}

static void put_json_figure(FILE *out, const struct diff *d, size_t f, int k)
{
	fprintf(out, "\"%s\": {", figure_names[k]);
	for (int s = 0; s < 2; s++) {
		const struct figure *fg = &d->funcs[f].f[s][k];
		size_t nruns = d->side[s].nruns;
		fprintf(out, "\"%s\": {\"mean\": %.17g, \"min\": %.17g, \"max\": %.17g}, ",
			s ? "b" : "a", figure_mean(fg, nruns), figure_min(fg, nruns),
			fg->nruns ? fg->max : 0);
	}
	double a = mean(d, f, 0, k), b = mean(d, f, 1, k);
	fprintf(out, "\"delta\": %.17g, \"delta_pct\": ", b - a);
	if (a != 0)
		fprintf(out, "%.17g", 100.0 * (b - a) / a);
	else
		fputs("null", out);
	fprintf(out, ", \"noise\": %.17g}", noise(d, f, k));
}

static void put_json_side(FILE *out, const struct diff *d, int s)
{
	const struct side *sd = &d->side[s];
	fprintf(out, "  \"%s\": {\"campaign\": ", s ? "b" : "a");
	json_put_string(out, sd->rc.campaign);
	fputs(", \"runs\": [", out);
	for (size_t i = 0; i < (sd->combined ? sd->combined : sd->nruns); i++)
		fprintf(out, "%s%" PRId64, i ? ", " : "", sd->ids[i]);
	fputs("], \"command\": ", out);
	json_put_string(out, sd->command);
	fprintf(out, ", \"total\": {\"mean\": %.17g, \"min\": %.17g, \"max\": %.17g}},\n",
		figure_mean(&sd->total, sd->nruns), sd->total.min, sd->total.max);
}

static void put_json(FILE *out, const struct diff *d, const size_t *order, size_t limit)
{
	static const char *const kinds[] = {"function", "block", "basic_block"};
	fputs("{\"format\": \"zond-diff\", \"version\": 1,\n  \"event\": ", out);
	if (d->metric_calls) {
		fputs("null", out);
	} else {
		fputs("{\"name\": ", out);
		json_put_string(out, d->ev.name);
		fputs(", \"unit\": ", out);
		json_put_string(out, d->ev.unit);
		putc('}', out);
	}
	fputs(",\n", out);
	put_json_side(out, d, 0);
	put_json_side(out, d, 1);
	fputs("  \"functions\": [", out);
	for (size_t i = 0; i < limit && order[i] != SIZE_MAX; i++) {
		size_t f = order[i];
		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_put_string(out, d->keys.s[f] + 1);
		fprintf(out, ", \"kind\": \"%s\", \"share_a\": %.17g, \"share_b\": %.17g,\n     ",
			kinds[d->keys.s[f][0] - '0'], share(d, f, 0), share(d, f, 1));
		for (int k = 0; k < NFIGURES; k++) {
			put_json_figure(out, d, f, k);
			fputs(k + 1 < NFIGURES ? ",\n     " : "}", out);
		}
	}
	fputs("\n  ]\n}\n", out);
}

/* The functions that got slower by more than pct; 3 if any, else 0. */
static int gate(const struct diff *d, const size_t *order, double pct, double min_share)
{
	int status = 0;
	char t[3][FORMAT_LEN];
	for (size_t i = 0; i < d->keys.n && order[i] != SIZE_MAX; i++) {
		size_t f = order[i];
		double a = mean(d, f, 0, SELF), b = mean(d, f, 1, SELF);
		if (share(d, f, 0) < min_share && share(d, f, 1) < min_share)
			continue;
		if (b - a <= noise(d, f, SELF) || (a > 0 && 100.0 * (b - a) / a <= pct))
			continue;
		fprintf(stderr, "zond diff: %s%s: self %s -> %s (%s), above --fail-above %g%%\n",
			d->keys.s[f] + 1, kind_mark(d->keys.s[f][0]),
			put_value(t[0], a, d, SELF, 0), put_value(t[1], b, d, SELF, 0),
			put_relative(t[2], a, b), pct);
		status = 3;
	}
	return status;
}

static int is_run_offset(const char *arg)
{
	return arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9' &&
	       arg[1 + strspn(arg + 1, "0123456789")] == 0;
}

static void free_diff(struct diff *d)
{
	for (int s = 0; s < 2; s++) {
		free(d->side[s].ids);
		free(d->side[s].command);
	}
	free(d->ev.name);
	free(d->ev.unit);
	strtab_free(&d->keys);
	free(d->funcs);
	free(d->run_values);
}

static int parse_pct(const char *opt, const char *arg, double *v)
{
	if (cmd_decimal(arg, v) < 0)
		return cmd_usage_error("diff", "%s wants a percentage, not '%s'", opt, arg);
	return 0;
}

/* What the command line sets besides the common options. */
struct diff_args {
	struct diff *d;
	int nsides, json, raw;
	double fail_above, min_share;
	long limit;
};

static int take_side(struct diff_args *a, int c, const char *value)
{
	if (a->nsides == 2)
		return cmd_usage_error("diff", "more than two sides ('%s')", value);
	if (c == 'C')
		a->d->side[a->nsides++].rc.campaign = value;
	else
		a->d->side[a->nsides++].rc.run = value;
	return 0;
}

static int own_option(void *arg, int c, const char *value)
{
	struct diff_args *a = arg;
	int status;
	switch (c) {
	case 1:
	case 'r':
	case 'C': return take_side(a, c, value);
	case 'n':
		if ((a->limit = parse_count(value)) < 0)
			return cmd_usage_error("diff", "--limit wants a number, not '%s'", value);
		return 0;
	case OPT_FAIL_ABOVE: return parse_pct("--fail-above", value, &a->fail_above);
	case OPT_MIN_SHARE:
		status = parse_pct("--min-share", value, &a->min_share);
		if (status == 0 && a->min_share > 100)
			status = cmd_usage_error("diff", "--min-share wants 0..100, not '%s'",
						 value);
		return status;
	case OPT_JSON: a->json = 1; return 0;
	case OPT_RAW: a->raw = 1; return 0;
	}
	return cmd_usage_error("diff", "bad option");
}

static int print_diff(struct diff *d, const struct diff_args *a, struct read_options *ro)
{
	FILE *out = read_output_open("diff", ro);
	if (!out)
		return 1;
	size_t *order = sorted_funcs(d);
	size_t rows = a->limit > 0 ? (size_t)a->limit : d->keys.n; /* 0: all, as report's */
	if (a->json)
		put_json(out, d, order, rows);
	else
		put_text(out, d, order, rows, a->raw);
	int status = read_output_close("diff", ro, out);
	if (status == 0 && a->fail_above >= 0)
		status = gate(d, order, a->fail_above, a->min_share);
	free(order);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff d = {0};
	struct diff_args a = {.d = &d, .fail_above = -1, .min_share = 1, .limit = -1};
	const struct read_cmd cmd = {"diff", usage_text, after_text,
				     READ_INPUT | READ_EVENT | READ_OUTPUT, "-r:C:n:", options,
				     own_option, &a, "rC"};
	/* "-N" sides become "--run=-N" (a copy of argv; getopt permutes it): a lone
	 * "-2" is a side, while "-r -2" is a run */
	char **args = zp_xcalloc((size_t)argc + 1, sizeof *args);
	char **owned = zp_xcalloc((size_t)argc + 1, sizeof *owned);
	int ended = 0; /* past "--": words are sides as they are */
	for (int i = 0; i < argc; i++) {
		args[i] = argv[i];
		int value = i > 0 && read_takes_value(&cmd, argv[i - 1]);
		if (i > 0 && !ended && !value && strcmp(argv[i], "--") == 0)
			ended = 1;
		else if (i > 0 && !ended && is_run_offset(argv[i]) && !value) {
			size_t len = strlen(argv[i]) + 7;
			args[i] = owned[i] = zp_xmalloc(len);
			snprintf(args[i], len, "--run=%s", argv[i]);
		}
	}
	struct read_options ro;
	int status = read_parse(&cmd, argc, args, &ro);
	if (a.nsides == 0)
		d.side[0].rc.run = "-2";
	d.event = ro.event;

	struct zerr err;
	if (status < 0 && load_sides(&d, ro.rc.store, &err) < 0)
		status = cmd_error("diff", "%s", err.msg);
	if (status < 0)
		status = print_diff(&d, &a, &ro);
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(owned);
	free(args);
	free_diff(&d);
	return status;
}
