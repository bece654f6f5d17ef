/*
 * readopts.c - the one command line of the reading commands (cmd.h,
 * "The command line of the reading commands").
 *
 * The common options live in one table with their help lines; a command's
 * getopt tables are that table's entries it takes followed by its own, and
 * its --help prints its own text followed by the common lines it takes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "store/store.h"

static const struct common_option {
	unsigned bit;
	struct option opt;
	const char *help;
} common[] = {
	{READ_INPUT,
	 {"input", required_argument, NULL, 'i'},
	 "  -i, --input FILE      profile store read (default ./zond.db)\n"},
	{READ_RUN,
	 {"run", required_argument, NULL, 'r'},
	 "  -r, --run RUN         run id, -N for the Nth newest, or 'last' (default)\n"},
	{READ_CAMPAIGN,
	 {"campaign", required_argument, NULL, 'C'},
	 "  -C, --campaign NAME   all runs of campaign NAME combined\n"},
	{READ_TID,
	 {"tid", required_argument, NULL, OPT_TID},
	 "      --tid THREAD      one thread only: TID, PID/TID or its name, as\n"
	 "                        'zond report --per-thread' prints them\n"},
	{READ_TIME,
	 {"time", required_argument, NULL, OPT_TIME},
	 "      --time FROM~TO    only what ran in that window of the run's timeline\n"
	 "                        (record --timeline): 100ms~200ms, ~1s, 5ms~; units\n"
	 "                        ns, us, ms, s; a trace's timeline (trace report\n"
	 "                        --timeline) in instructions, without units: 1000~5000\n"},
	{READ_MATCH,
	 {"match", required_argument, NULL, 'm'},
	 "  -m, --match GLOB      only functions whose name matches GLOB (a C++ name\n"
	 "                        also without parameters and template arguments);\n"
	 "                        repeatable: those matching any of them\n"},
	{READ_EVENT,
	 {"event", required_argument, NULL, 'e'},
	 "  -e, --event NAME      event shown (default: the first)\n"},
	{READ_OUTPUT,
	 {"output", required_argument, NULL, 'o'},
	 "  -o, --output FILE     file written (default, or -: standard output)\n"},
};
#define NCOMMON (sizeof common / sizeof common[0])

static size_t count_own(const struct read_cmd *cmd)
{
	size_t n = 0;
	while (cmd->own_long && cmd->own_long[n].name)
		n++;
	return n;
}

/* The getopt tables of cmd: *longs malloc'ed, short options into shorts. */
static struct option *build_tables(const struct read_cmd *cmd, char *shorts, size_t len)
{
	size_t nown = count_own(cmd), n = 0;
	struct option *longs = zp_xcalloc(NCOMMON + nown + 2, sizeof *longs);
	const char *own = cmd->own_short ? cmd->own_short : "";
	size_t at = 0;
	if (*own == '-' || *own == '+')
		shorts[at++] = *own++;
	for (size_t i = 0; i < NCOMMON; i++) {
		if (!(cmd->takes & common[i].bit))
			continue;
		longs[n++] = common[i].opt;
		if (common[i].opt.val < 256) {
			shorts[at++] = (char)common[i].opt.val;
			shorts[at++] = ':';
		}
	}
	snprintf(shorts + at, len - at, "%sh", own);
	for (size_t i = 0; i < nown; i++)
		longs[n++] = cmd->own_long[i];
	longs[n] = (struct option){"help", no_argument, NULL, 'h'};
	return longs;
}

static void print_help(const struct read_cmd *cmd)
{
	fputs(cmd->usage, stdout);
	for (size_t i = 0; i < NCOMMON; i++)
		if (cmd->takes & common[i].bit)
			fputs(common[i].help, stdout);
	fputs("  -h, --help            this help\n", stdout);
	if (cmd->after) {
		putchar('\n');
		fputs(cmd->after, stdout);
	}
}

/* Where o keeps common option c's one value; NULL for -m (several) and unknown ones. */
static const char **slot(struct read_options *o, int c)
{
	switch (c) {
	case 'i': return &o->rc.store;
	case 'r': return &o->rc.run;
	case 'C': return &o->rc.campaign;
	case OPT_TID: return &o->rc.tid;
	case OPT_TIME: return &o->rc.time;
	case 'e': return &o->event;
	case 'o': return &o->output;
	}
	return NULL;
}

/* The option's name as the user may have written it: "-r" or "--tid". */
static void option_name(char *buf, size_t len, int c)
{
	for (size_t i = 0; i < NCOMMON; i++)
		if (common[i].opt.val == c) {
			if (c < 256)
				snprintf(buf, len, "-%c/--%s", c, common[i].opt.name);
			else
				snprintf(buf, len, "--%s", common[i].opt.name);
			return;
		}
	snprintf(buf, len, "?");
}

/* Takes common option c: -1 to go on, else the exit status of a usage error. */
static int take_common(const struct read_cmd *cmd, struct read_options *o, int c, const char *arg)
{
	if (c == 'm') {
		if (o->nmatch == READ_MATCH_MAX)
			return cmd_usage_error(cmd->name, "at most %d patterns (-m)", READ_MATCH_MAX);
		o->match[o->nmatch++] = arg;
		return -1;
	}
	const char **at = slot(o, c);
	if (at && *at && strcmp(*at, arg) != 0) {
		char name[32];
		option_name(name, sizeof name, c);
		return cmd_usage_error(cmd->name, "%s given twice ('%s', '%s'): it takes one", name,
				       *at, arg);
	}
	if (at)
		*at = arg;
	return -1;
}

/* 1 if c is an own option of cmd that takes one value, not repeatable. */
static int own_single(const struct read_cmd *cmd, int c)
{
	if (c > 0 && c < 256 && cmd->repeatable && strchr(cmd->repeatable, c))
		return 0;
	const char *own = cmd->own_short ? cmd->own_short : "";
	const char *s = c > 1 && c < 256 ? strchr(own + (*own == '-' || *own == '+'), c) : NULL;
	if (s && s[1] == ':')
		return 1;
	for (size_t i = 0; cmd->own_long && cmd->own_long[i].name; i++)
		if (cmd->own_long[i].val == c)
			return cmd->own_long[i].has_arg == required_argument;
	return 0;
}

/* An own option's name as the user may have written it: "-f/--format" or "--fail-above". */
static void own_name(const struct read_cmd *cmd, char *buf, size_t len, int c)
{
	const char *name = "?";
	for (size_t i = 0; cmd->own_long && cmd->own_long[i].name; i++)
		if (cmd->own_long[i].val == c)
			name = cmd->own_long[i].name;
	if (c < 256)
		snprintf(buf, len, "-%c/--%s", c, name);
	else
		snprintf(buf, len, "--%s", name);
}

/* The values of cmd's own single-value options seen so far. */
struct own_seen {
	int c;
	const char *value;
};

/* Own option c with arg: -1 to go on, 2 when it was given before with another value. */
static int own_once(const struct read_cmd *cmd, struct own_seen *seen, size_t *n, int c,
		    const char *arg)
{
	if (!arg || !own_single(cmd, c))
		return -1;
	for (size_t i = 0; i < *n; i++) {
		if (seen[i].c != c)
			continue;
		if (strcmp(seen[i].value, arg) == 0)
			return -1;
		char name[64];
		own_name(cmd, name, sizeof name, c);
		return cmd_usage_error(cmd->name, "%s given twice ('%s', '%s'): it takes one",
				       name, seen[i].value, arg);
	}
	seen[(*n)++] = (struct own_seen){c, arg};
	return -1;
}

static int is_common(const struct read_cmd *cmd, int c)
{
	for (size_t i = 0; i < NCOMMON; i++)
		if (common[i].opt.val == c)
			return (cmd->takes & common[i].bit) != 0;
	return 0;
}

int read_parse(const struct read_cmd *cmd, int argc, char **argv, struct read_options *o)
{
	char shorts[128];
	struct option *longs = build_tables(cmd, shorts, sizeof shorts);
	int c, status = -1;
	size_t nseen = 0;
	size_t nown = count_own(cmd) + strlen(cmd->own_short ? cmd->own_short : "") + 1;
	struct own_seen *seen = zp_xcalloc(nown, sizeof *seen);
	*o = (struct read_options){0};
	optind = 1;
	while (status < 0 && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c == 'h') {
			print_help(cmd);
			status = 0;
		} else if (is_common(cmd, c)) {
			struct time_window w;
			struct zerr err;
			status = take_common(cmd, o, c, optarg);
			if (status < 0 && c == OPT_TIME && time_window_parse(optarg, &w, &err) < 0)
				status = cmd_usage_error(cmd->name, "%s", err.msg);
		} else if (c == '?' || c == ':' || !cmd->own) {
			status = c == '?' || c == ':' ? cmd_bad_option(cmd->name, argv, shorts)
						      : cmd_usage_error(cmd->name, "bad option");
		} else if ((status = own_once(cmd, seen, &nseen, c, optarg)) < 0) {
			int rc = cmd->own(cmd->arg, c, optarg);
			if (rc)
				status = rc;
		}
	}
	free(seen);
	/* a command taking its positional arguments in order (own_short "-...") takes
	 * those after "--" too: getopt stops there and leaves them at optind */
	const char *own = cmd->own_short ? cmd->own_short : "";
	while (status < 0 && *own == '-' && cmd->own && optind < argc) {
		int rc = cmd->own(cmd->arg, 1, argv[optind++]);
		if (rc)
			status = rc;
	}
	free(longs);
	/* -i "$UNSET" must not read ./zond.db behind the user's back (-o '' is refused too) */
	if (status < 0 && o->rc.store && !*o->rc.store)
		status = cmd_usage_error(cmd->name, "an empty store file name (-i)");
	if (status < 0 && o->rc.run && o->rc.campaign)
		status = cmd_usage_error(cmd->name, "choose a run (-r) or a campaign (-C), not both");
	return status;
}

int read_takes_value(const struct read_cmd *cmd, const char *arg)
{
	char shorts[128];
	struct option *longs = build_tables(cmd, shorts, sizeof shorts);
	int takes = 0;
	if (arg[0] == '-' && arg[1] && arg[1] != '-' && arg[1] != ':' && !arg[2]) {
		const char *s = strchr(shorts + (*shorts == '-' || *shorts == '+'), arg[1]);
		takes = s && s[1] == ':';
	}
	for (const struct option *l = longs; arg[0] == '-' && arg[1] == '-' && l->name; l++)
		if (strcmp(arg + 2, l->name) == 0)
			takes = l->has_arg == required_argument;
	free(longs);
	return takes;
}

FILE *read_output_open(const char *cmd, struct read_options *o)
{
	return read_output_open_reading(cmd, o, NULL);
}

FILE *read_output_open_reading(const char *cmd, struct read_options *o,
			       const char *const *reads)
{
	struct zerr err;
	size_t n = 0;
	while (reads && reads[n])
		n++;
	const char **inputs = zp_xcalloc(n + 2, sizeof *inputs);
	inputs[0] = o->rc.store ? o->rc.store : STORE_DEFAULT_PATH;
	for (size_t i = 0; i < n; i++)
		inputs[i + 1] = reads[i];
	int bad = o->output && output_check(o->output, OUTPUT_FILE, inputs, &err) < 0;
	free(inputs);
	if (bad) {
		cmd_error(cmd, "%s", err.msg);
		return NULL;
	}
	if (output_open(&o->out, o->output, &err) < 0) {
		cmd_error(cmd, "%s", err.msg);
		return NULL;
	}
	return o->out.f;
}

int read_output_close(const char *cmd, struct read_options *o, FILE *out)
{
	struct zerr err;
	(void)out; /* o->out.f */
	return output_close(&o->out, 1, &err) < 0 ? cmd_error(cmd, "%s", err.msg) : 0;
}

int read_event(const char *cmd, const struct read_options *o, const struct zp_profile *p,
	       int *event)
{
	if (!o->event)
		return 0;
	if ((*event = profile_find_event(p, o->event)) >= 0)
		return 0;
	return cmd_error(cmd, "run %lld has no event '%s'", (long long)p->run.id, o->event);
}

/* One bound: a whole number and an optional unit; *ns_per the unit's ns, 0 for none. */
static int parse_bound(const char *s, size_t len, int64_t *v, int64_t *ns_per)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	char buf[64];
	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	char *end;
	errno = 0;
	long long n = strtoll(buf, &end, 10);
	if (errno || end == buf || n < 0 || buf[0] == '-' || buf[0] == '+')
		return -1;
	*ns_per = 0;
	for (size_t i = 0; *end && i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].name) == 0)
			*ns_per = units[i].ns;
	if (*end && !*ns_per)
		return -1;
	if (*ns_per && n > INT64_MAX / *ns_per)
		return -1;
	*v = n * (*ns_per ? *ns_per : 1);
	return 0;
}

int time_window_parse(const char *s, struct time_window *w, struct zerr *err)
{
	const char *tilde = strchr(s, '~');
	int64_t from_unit = 0, to_unit = 0;
	*w = (struct time_window){INT64_MIN, INT64_MAX, 0};
	int ok = tilde && tilde[1] != '~' && (tilde > s || tilde[1]) &&
		 (tilde == s || parse_bound(s, (size_t)(tilde - s), &w->from, &from_unit) == 0) &&
		 (!tilde[1] || parse_bound(tilde + 1, strlen(tilde + 1), &w->to, &to_unit) == 0) &&
		 !strchr(tilde + 1, '~');
	if (!ok)
		return zerr_set(err,
				"--time wants FROM~TO, ~TO or FROM~ (as 100ms~200ms; units ns, "
				"us, ms, s), not '%s'",
				s);
	if (w->from >= w->to)
		return zerr_set(err, "--time '%s': the window ends before it starts", s);
	w->units = from_unit || to_unit;
	return 0;
}
