/* common.c - what the subcommands share: error lines and choosing a run. */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

static void vprint_error(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "zond %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cmd_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprint_error(cmd, fmt, ap);
	va_end(ap);
	return 1;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "zond %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'zond %s --help')\n", cmd);
	return 2;
}

long parse_count(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return -1;
	return v;
}

/* Does thread th answer to want: "TID", "PID/TID" or its name? */
static int thread_is(const struct zp_thread *th, const char *want)
{
	const char *slash = strchr(want, '/');
	if (!slash)
		return parse_count(want) == th->tid || (th->name && strcmp(th->name, want) == 0);
	char pid[32];
	size_t len = (size_t)(slash - want);
	if (len >= sizeof pid)
		return 0;
	memcpy(pid, want, len);
	pid[len] = 0;
	return parse_count(pid) == th->pid && parse_count(slash + 1) == th->tid;
}

/*
 * A name shared by several threads is ambiguous: the user gets told, not one
 * picked.  campaign: p is that campaign's runs combined (their threads all
 * p's), else NULL.
 */
static int find_thread(const struct zp_profile *p, const char *campaign, const char *want,
		       uint32_t *thread, struct zerr *err)
{
	char what[300];
	if (campaign)
		snprintf(what, sizeof what, "campaign %s", campaign);
	else
		snprintf(what, sizeof what, "run %lld", (long long)p->run.id);
	size_t found = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		if (!thread_is(&p->threads[i], want))
			continue;
		if (found++ == 0)
			*thread = (uint32_t)i;
	}
	if (found == 1)
		return 0;
	if (found > 1)
		return zerr_set(err, "%s has %zu threads '%s': give PID/TID", what, found, want);
	return zerr_set(err, "%s has no thread '%s' (see 'zond report --per-thread')", what, want);
}

int run_choice_ids(struct store *s, const struct run_choice *c, int64_t **ids, size_t *n,
		   struct zerr *err)
{
	if (c->campaign && c->run)
		return zerr_set(err, "choose a run or a campaign, not both");
	if (c->campaign)
		return store_campaign_runs(s, c->campaign, ids, n, err);
	*ids = zp_xmalloc(sizeof **ids);
	*n = 1;
	if (store_find_run(s, c->run, *ids, err) < 0) {
		free(*ids);
		*ids = NULL;
		return -1;
	}
	return 0;
}

struct store *run_choice_open(const struct run_choice *c, int64_t **ids, size_t *n,
			      struct zerr *err)
{
	const char *path = c->store ? c->store : STORE_DEFAULT_PATH;
	if (c->campaign && c->run) {
		zerr_set(err, "choose a run or a campaign, not both");
		return NULL;
	}
	struct store *s = store_open(path, STORE_READ, err);
	if (!s)
		return NULL;
	/* the runs chosen and their loading in one snapshot: a run deleted
	   meanwhile is still read, never "no run N" (QA s13 S F1) */
	if (store_read_begin(s, err) < 0 || run_choice_ids(s, c, ids, n, err) < 0) {
		store_close(s);
		return NULL;
	}
	return s;
}

/* The profile of the window of p's timeline that spec says (cmd.h, time_window), or NULL. */
static struct zp_profile *window_of(struct zp_profile *p, const char *spec, struct zerr *err)
{
	struct time_window w;
	const char *unit = profile_meta(p, "timeline_unit");
	struct zp_profile *win = NULL;
	if (time_window_parse(spec, &w, err) < 0)
		;
	else if (!unit)
		zerr_set(err, "run %lld has no timeline: %s to use --time", (long long)p->run.id,
			 profile_timeline_howto(p));
	else if (w.units && strcmp(unit, "ns") != 0)
		zerr_set(err, "run %lld's timeline counts %s: give --time without units",
			 (long long)p->run.id, unit);
	else
		win = profile_window(p, w.from, w.to);
	if (win)
		profile_add_meta(win, "time_window", spec);
	profile_free(p);
	return win;
}

/*
 * Notes in all the events that only some of the n runs combined measured
 * (runs[e]: how many had the event e of all): their costs are those runs',
 * while calls count every run, so an average over calls would mislead.
 */
static void note_partial_events(struct zp_profile *all, const size_t *runs, size_t n)
{
	char text[512] = "";
	size_t len = 0;
	for (size_t e = 0; e < all->nevents && len < sizeof text; e++)
		if (runs[e] < n)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%s in %zu of %zu runs",
						len ? ", " : "", all->events[e].name, runs[e], n);
	if (len)
		profile_add_meta(all, "events_in_some_runs", text);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The functions p measured (called at least once), as "module\tname", sorted; *n of them. */
static char **measured_functions(const struct zp_profile *p, size_t *n)
{
	char **names = zp_xcalloc(p->nstats + 1, sizeof *names);
	*n = 0;
	for (size_t i = 0; i < p->nstats; i++) {
		const struct zp_node *node = &p->nodes[p->stats[i].node];
		if (!p->stats[i].calls)
			continue;
		size_t len = strlen(node->module) + strlen(node->name) + 2;
		names[*n] = zp_xmalloc(len);
		snprintf(names[(*n)++], len, "%s\t%s", node->module, node->name);
	}
	qsort(names, *n, sizeof *names, by_string);
	size_t kept = 0; /* one per function: threads have a stat each */
	for (size_t i = 0; i < *n; i++) {
		if (kept && strcmp(names[kept - 1], names[i]) == 0) {
			free(names[i]);
			continue;
		}
		names[kept++] = names[i];
	}
	*n = kept;
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * 1 when two runs measured different functions (a, na and b, nb, as
 * measured_functions gives them): a function's self time in a run holds the
 * time of the callees that run did not measure, so combining runs that
 * measured different functions (inject --per-run, --descend) counts those
 * callees in their caller's self as well as in their own.
 */
static int differ(char **a, size_t na, char **b, size_t nb)
{
	if (na != nb)
		return 1;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 1;
	return 0;
}

/*
 * 1 when p's collector measures the functions it was told to (zond inject:
 * -f, --per-run, --descend), so that runs of one campaign may have measured
 * different ones; record, libcalls and trace measure every function they
 * see, and a function one run did not call is no sign of that (QA s15 W2
 * F1: a campaign of repeated record runs, one of which never called light,
 * was summed as parts, main called twice, and diff's gate failed).
 */
static int chooses_functions(const struct zp_profile *p)
{
	return p->run.collector && strcmp(p->run.collector, "inject") == 0;
}

/* 1 when p made calls but kept no calling contexts (a schema 1 store's run). */
static int lacks_contexts(const struct zp_profile *p)
{
	if (p->ncontexts)
		return 0;
	for (size_t i = 0; i < p->nstats; i++)
		if (p->stats[i].calls)
			return 1;
	return p->nedges > 0;
}

/*
 * The runs without calling contexts of a campaign whose other runs have
 * them, in meta "runs_without_contexts" ("1, 3": ids, oldest first, at
 * most 8 and then "..."), the contexts dropped: trees, call edges and stacks
 * from contexts would leave those runs' calls out while the flat profile
 * counts them, so the whole campaign is read from its call edges (QA s13 S
 * F8; doc/reports.md, "Calling contexts").
 */
static void note_runs_without_contexts(struct zp_profile *all, const int64_t *ids,
				       const unsigned char *lacks, size_t n)
{
	char text[256] = "";
	size_t len = 0, shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (!lacks[i])
			continue;
		if (shown++ == 8) {
			snprintf(text + len, sizeof text - len, ", ...");
			break;
		}
		len += (size_t)snprintf(text + len, sizeof text - len, "%s%" PRId64,
					len ? ", " : "", ids[i]);
	}
	profile_drop_contexts(all);
	profile_add_meta(all, "runs_without_contexts", text);
}

static struct zp_profile *load_combined(struct store *s, const int64_t *ids, size_t n,
					const char *time, const char *campaign, struct zerr *err);

/* The node of p named "module\tname" (as measured_functions names them), or ZP_NONE. */
static uint32_t named_node(const struct zp_profile *p, const char *name)
{
	const char *tab = strchr(name, '\t');
	size_t mlen = (size_t)(tab - name);
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (strlen(p->nodes[i].module) == mlen &&
		    !strncmp(p->nodes[i].module, name, mlen) && !strcmp(p->nodes[i].name, tab + 1))
			return i;
	return ZP_NONE;
}

/*
 * The runs of a campaign measured different functions (names[r], n[r] of
 * them, of each of nruns runs): each function's self, which holds the callees
 * measured in other runs, corrected by the call graph of the pass that
 * measured them all (campaign CAMPAIGN.graph, zond inject's), where the store
 * has it (profile_combine_selves); else said to hold them (report header).
 */
static void correct_selves(struct store *s, struct zp_profile *all, const char *campaign,
			   char ***names, const size_t *n, size_t nruns)
{
	struct zerr err;
	int64_t *ids = NULL;
	size_t ng = 0;
	char graph[512];
	struct zp_profile *g = NULL;
	snprintf(graph, sizeof graph, "%s.graph", campaign ? campaign : "");
	if (campaign && strlen(campaign) + 7 < sizeof graph &&
	    store_campaign_runs(s, graph, &ids, &ng, &err) == 0)
		g = load_combined(s, ids, ng, NULL, NULL, &err);
	free(ids);
	long changed = -1;
	size_t missing = 0;
	if (g) {
		unsigned char *measured = zp_xcalloc(nruns * all->nnodes + 1, 1);
		for (size_t r = 0; r < nruns; r++)
			for (size_t i = 0; i < n[r]; i++) {
				uint32_t node = named_node(all, names[r][i]);
				if (node != ZP_NONE)
					measured[r * all->nnodes + node] = 1;
			}
		changed = profile_combine_selves(all, measured, nruns, g, &missing);
		free(measured);
		profile_free(g);
	}
	if (changed < 0) {
		profile_add_meta(all, "functions_in_some_runs", "1");
		return;
	}
	profile_add_meta(all, "self_from_graph", graph);
	if (missing) {
		char count[32];
		snprintf(count, sizeof count, "%zu", missing);
		profile_add_meta(all, "self_not_in_graph", count);
	}
}

/*
 * The runs ids[0..n) combined, the newest (last) giving the header; each
 * run's window of time.  Runs of campaign that measured different functions
 * get their selves corrected (correct_selves).
 */
static struct zp_profile *load_combined(struct store *s, const int64_t *ids, size_t n,
					const char *time, const char *campaign, struct zerr *err)
{
	struct zp_profile *all = NULL;
	size_t runs[ZP_MAX_EVENTS] = {0};
	char ***names = zp_xcalloc(n + 1, sizeof *names);
	size_t *nnames = zp_xcalloc(n + 1, sizeof *nnames);
	int otherwise = 0;
	unsigned char *lacks = zp_xcalloc(n + 1, 1);
	size_t nlack = 0, last_chooser = SIZE_MAX;
	for (size_t i = n; i-- > 0;) {
		struct zp_profile *p = store_load_run(s, ids[i], err);
		if (p && time)
			p = window_of(p, time, err);
		if (!p) {
			profile_free(all);
			all = NULL;
			break;
		}
		if ((lacks[i] = (unsigned char)lacks_contexts(p)) != 0)
			nlack++;
		if (n > 1 && chooses_functions(p)) {
			names[i] = measured_functions(p, &nnames[i]);
			if (last_chooser == SIZE_MAX)
				last_chooser = i;
			else
				otherwise |= differ(names[i], nnames[i], names[last_chooser],
						    nnames[last_chooser]);
		}
		if (all)
			profile_merge(all, p);
		else
			all = p;
		for (size_t e = 0; e < all->nevents; e++)
			for (size_t k = 0; k < p->nevents; k++)
				if (strcmp(all->events[e].name, p->events[k].name) == 0) {
					runs[e]++;
					break;
				}
		if (p != all)
			profile_free(p);
	}
	if (all && n > 1)
		note_partial_events(all, runs, n);
	if (all && otherwise)
		correct_selves(s, all, campaign, names, nnames, n);
	if (all && nlack && all->ncontexts)
		note_runs_without_contexts(all, ids, lacks, n);
	for (size_t i = 0; i < n; i++)
		free_names(names[i], nnames[i]);
	free(names);
	free(nnames);
	free(lacks);
	return all;
}

struct zp_profile *runs_combined(struct store *s, const int64_t *ids, size_t n,
				 const char *campaign, struct zerr *err)
{
	return load_combined(s, ids, n, NULL, campaign, err);
}

struct zp_profile *run_choice_load(const struct run_choice *c, uint32_t *thread,
				   struct zerr *err)
{
	int64_t *ids;
	size_t n;
	struct store *s = run_choice_open(c, &ids, &n, err);
	if (!s)
		return NULL;
	struct zp_profile *p = load_combined(s, ids, n, c->time, c->campaign, err);
	free(ids);
	store_close(s);
	if (!p)
		return NULL;
	if (c->campaign) {
		char count[32];
		snprintf(count, sizeof count, "%zu", n);
		profile_add_meta(p, "runs_combined", count);
	}
	*thread = ZP_NONE;
	if (c->tid && find_thread(p, c->campaign, c->tid, thread, err) < 0) {
		profile_free(p);
		return NULL;
	}
	return p;
}

/* One word of cmd_join_argv, quoted as it needs. */
static void put_word(FILE *out, const char *w)
{
	int plain = *w != 0, control = 0;
	for (const unsigned char *c = (const unsigned char *)w; *c; c++) {
		plain &= isalnum(*c) || strchr("-_./=:,+@%^", *c) != NULL;
		control |= *c < 0x20 || *c == 0x7f;
	}
	if (plain) {
		fputs(w, out);
	} else if (!control) {
		fputc('\'', out);
		for (const char *c = w; *c; c++)
			if (*c == '\'')
				fputs("'\\''", out);
			else
				fputc(*c, out);
		fputc('\'', out);
	} else {
		fputs("$'", out);
		for (const unsigned char *c = (const unsigned char *)w; *c; c++) {
			if (*c == '\n')
				fputs("\\n", out);
			else if (*c == '\t')
				fputs("\\t", out);
			else if (*c == '\\' || *c == '\'')
				fprintf(out, "\\%c", *c);
			else if (*c < 0x20 || *c == 0x7f)
				fprintf(out, "\\x%02x", *c);
			else
				fputc(*c, out);
		}
		fputc('\'', out);
	}
}

char *cmd_join_argv(char *const argv[])
{
	char *s = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&s, &len);
	if (!out)
		return zp_xstrdup("");
	for (char *const *a = argv; *a; a++) {
		if (a != argv)
			fputc(' ', out);
		put_word(out, *a);
	}
	fclose(out);
	return s;
}

int cmd_bad_option(const char *cmd, char **argv, const char *shorts)
{
	/* the word getopt stopped at, when it has moved past it (all but an unknown
	   letter inside a group: -qz) */
	const char *word = optind > 0 ? argv[optind - 1] : "";
	int len = (int)strcspn(word, "=");
	const char *known = optopt > 0 && optopt < 256 && optopt != ':' && optopt != '+'
				    ? strchr(shorts, optopt)
				    : NULL;
	if (!optopt)
		return cmd_usage_error(cmd, "unknown option '%.*s'", len, word);
	if (optopt >= 256 || (known && known[1] == ':'))
		return word[len] == '=' ? cmd_usage_error(cmd, "'%.*s' takes no value", len, word)
					: cmd_usage_error(cmd, "'%s' wants a value", word);
	if (known)
		return cmd_usage_error(cmd, "'%.*s' takes no value", len, word);
	/* a long option whose letter is no short one (getopt gives that letter) */
	if (word[0] == '-' && word[1] == '-')
		return word[len] == '=' ? cmd_usage_error(cmd, "'%.*s' takes no value", len, word)
					: cmd_usage_error(cmd, "'%s' wants a value", word);
	return cmd_usage_error(cmd, "unknown option '-%c'", optopt);
}

int cmd_decimal(const char *text, double *out)
{
	size_t digits = strspn(text, "0123456789"), len = digits;
	if (text[len] == '.') {
		size_t more = strspn(text + len + 1, "0123456789");
		digits += more;
		len += 1 + more;
	}
	if (!digits || text[len])
		return -1;
	*out = strtod(text, NULL);
	return 0;
}
