/*
 * cmd.h - the subcommands of `zond` and what they share.
 *
 * Each subcommand lives in its own file and has the signature of cmd_fn:
 * argv[0] is the subcommand's name; it returns the process exit status.
 * Errors are printed as one line "zond CMD: message" (cmd_error) and give
 * exit status 1; usage errors give 2.
 */
#ifndef ZOND_CMD_H
#define ZOND_CMD_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"
#include "output.h"
#include "util/error.h"

struct symbols;

typedef int (*cmd_fn)(int argc, char **argv);

int cmd_record(int argc, char **argv);
int cmd_libcalls(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_config(int argc, char **argv);

/*
 * After getopt_long returned '?' or ':' (opterr is 0: getopt prints nothing):
 * one usage line naming the option, "unknown option '--x'" or "'-o' wants a
 * value", and exit status 2.  shorts is the short options getopt was given.
 */
int cmd_bad_option(const char *cmd, char **argv, const char *shorts);

/* The formats of 'zond export', "a, b or c", for summaries. */
const char *export_format_names(void);

/*
 * A run's command: argv as one line that a shell reads back as the same
 * words.  Words are joined by spaces; one that is empty or holds more than
 * letters, digits and -_./=:,+@%^ is single-quoted ('it'\''s'), and one with
 * control characters is written $'...' (\n, \t, \\, \', \xHH), so that a
 * newline in an argument never breaks a report's line.  malloc'ed.
 */
char *cmd_join_argv(char *const argv[]);

/* Prints "zond CMD: message" to stderr and returns 1. */
int cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "zond CMD: message (see 'zond CMD --help')" and returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A plain decimal number as users write percentages and seconds (digits
 * with at most one '.', at least one digit) into *out: 0, or -1 for
 * anything else: signs, spaces, exponents, hex, inf, nan (QA s15 W2:
 * --fail-above 0x10 was read as 16).
 */
int cmd_decimal(const char *text, double *out);

/* Which run a reading command works on: -i STORE, -r RUN or -C CAMPAIGN, --tid TID. */
struct run_choice {
	const char *store;    /* default STORE_DEFAULT_PATH */
	const char *run;      /* NULL: the last run */
	const char *campaign; /* all runs of this campaign combined, instead of one run */
	const char *tid;      /* NULL: all threads */
	const char *time;     /* --time FROM~TO: the profile of that window of the timeline */
};

/*
 * The command line of the reading commands (report, graph, annotate,
 * export, dump, runs, diff), parsed in one place (readopts.c) so that an
 * option means the same everywhere.  The common options, each command
 * taking the ones its `takes` bits name:
 *   -i, --input FILE     the profile store read (default ./zond.db)
 *   -r, --run RUN        the run: id, -N for the Nth newest, 'last'
 *   -C, --campaign NAME  all runs of campaign NAME combined
 *       --tid THREAD     one thread: TID, PID/TID or the thread's name, as
 *                        'zond report --per-thread' prints them
 *       --time FROM~TO   the profile of a window of the run's timeline
 *   -m, --match GLOB     only functions matching GLOB; repeatable: any of them
 *   -e, --event NAME     the event shown
 *   -o, --output FILE    the file written (default: standard output)
 *   -h, --help           the command's help
 * Options go before or after positional arguments (GNU getopt permutes);
 * "--" ends them.  An option of one value given twice with two values is a
 * usage error (none is dropped silently); -m adds a pattern each time.  doc/reports.md, "Common options", is the user's table.
 */
enum {
	READ_INPUT = 1,
	READ_RUN = 2,
	READ_CAMPAIGN = 4,
	READ_TID = 8,
	READ_EVENT = 16,
	READ_OUTPUT = 32,
	READ_TIME = 64,
	READ_MATCH = 128,
	READ_RUN_CHOICE = READ_INPUT | READ_RUN | READ_CAMPAIGN | READ_TID | READ_TIME,
};

/* The long option values of --tid and --time, shared; own options of commands start at 256. */
enum { OPT_TID = 200, OPT_TIME = 201 };

/*
 * A window of a run's timeline, --time FROM~TO as uftrace takes it: either
 * bound may be left out (~TO, FROM~), each a whole number with a unit (ns,
 * us, ms, s) or none (the timeline's own unit: ns, or instructions for
 * trace runs).  Bounds with a unit are in ns.
 */
struct time_window {
	int64_t from, to; /* [from, to), from the run's start; INT64_MIN/MAX when left out */
	int units;        /* a bound was given with a time unit */
};

/* Parses s into *w: 0, or -1 with err saying what a window looks like. */
int time_window_parse(const char *s, struct time_window *w, struct zerr *err);

#define READ_MATCH_MAX 64

struct read_options {
	struct run_choice rc;
	/* -m: the patterns, NULL-terminated, any of which a function's name matches */
	const char *match[READ_MATCH_MAX + 1];
	size_t nmatch;
	const char *event;  /* -e: NULL unless given */
	const char *output; /* -o: NULL for standard output */
	struct output out;  /* what read_output_open opened */
};

struct read_cmd {
	const char *name;  /* "report" */
	const char *usage; /* usage line, description and the command's own options */
	const char *after; /* printed after the common options (exit status...), or NULL */
	unsigned takes;    /* READ_* bits: the common options it accepts */
	/* its own options, in getopt_long(3) syntax; own_short may start with '-'
	 * (positional arguments come to `own` as option 1, in order) */
	const char *own_short;
	const struct option *own_long; /* NULL-terminated, or NULL */
	/* takes one of its own options: 0, or an exit status to stop with */
	int (*own)(void *arg, int c, const char *optarg);
	void *arg;
	/* its own options of a value that may be given more than once (diff's
	 * sides "rC"); every other one given twice with two values is refused,
	 * as the common ones are */
	const char *repeatable;
};

/*
 * Parses argv (argv[0] the command's name) into o and the command's own
 * options; then argv[optind..argc) are the positional arguments.  Returns
 * -1 to go on, else the exit status to return: 0 after --help (printed on
 * stdout), 2 after a usage error (one line on stderr).
 */
int read_parse(const struct read_cmd *cmd, int argc, char **argv, struct read_options *o);

/*
 * The index of o's -e event in p into *event (left alone without -e); 0,
 * or 1 after printing "zond CMD: run N has no event 'NAME'".
 */
int read_event(const char *cmd, const struct read_options *o, const struct zp_profile *p,
	       int *event);

/* 1 if arg is an option of cmd that takes its value from the next word. */
int read_takes_value(const struct read_cmd *cmd, const char *arg);

/*
 * The output stream of o: o->output checked (output_check: never the store
 * read, a program or a directory) and opened through a temporary file, or
 * stdout.  NULL after printing one line naming the file.
 */
FILE *read_output_open(const char *cmd, struct read_options *o);
/* The same for a command that reads more files (NULL-terminated): -o is none of them. */
FILE *read_output_open_reading(const char *cmd, struct read_options *o,
			       const char *const *reads);
/*
 * Closes what read_output_open gave, renaming the file into place; 0, or 1
 * after printing a write error (the old file, if any, is left as it was).
 */
int read_output_close(const char *cmd, struct read_options *o, FILE *out);

/*
 * Loads the chosen run, or the runs of the campaign combined into one profile
 * (its header is the newest run's, with meta "runs_combined"); NULL with err
 * set.  *thread gets ZP_NONE or the thread's index.  With c->time, each run
 * is the profile of that window of its timeline (profile_window, meta
 * "time_window"); a run without a timeline is an error.
 */
struct zp_profile *run_choice_load(const struct run_choice *c, uint32_t *thread,
				   struct zerr *err);

/*
 * Opens c's store for reading and gives the ids of the runs c chooses: the
 * one run (n = 1), or every run of the campaign, oldest first (*ids
 * malloc'ed).  The store, in one read transaction (store_read_begin) so
 * that the runs loaded from it are those chosen, to be closed by the
 * caller; NULL with err set.  c->tid is not looked at.
 */
struct store;
struct store *run_choice_open(const struct run_choice *c, int64_t **ids, size_t *n,
			      struct zerr *err);
/* The same in store s, already open (in the caller's read transaction, c->store not
 * looked at): 0, or -1. */
int run_choice_ids(struct store *s, const struct run_choice *c, int64_t **ids, size_t *n,
		   struct zerr *err);

/*
 * The runs ids[0..n) of the store s, of campaign (or NULL), combined into one
 * profile as run_choice_load combines a campaign's (no window of time): runs
 * that measured different functions get meta "self_from_graph" (their selves
 * corrected by the campaign's call graph, profile_combine_selves) or
 * "functions_in_some_runs" (no call graph stored).  NULL with err set.
 */
struct zp_profile *runs_combined(struct store *s, const int64_t *ids, size_t n,
				 const char *campaign, struct zerr *err);

/* Which functions to record, by name: globs as fnmatch(3) reads them. */
#define NAME_FILTER_MAX 64
struct name_filter {
	const char *include[NAME_FILTER_MAX]; /* none: every function */
	const char *exclude[NAME_FILTER_MAX];
	int ninclude, nexclude;
};

/* 1 if name matches an include pattern (or there are none) and no exclude one. */
int name_filter_wants(const struct name_filter *f, const char *name);

/*
 * Calls fn once for every function of the ELF file at path (address order;
 * [start, end) link-time), with whether f wants it: a function is one
 * piece of code whatever it is called (libc's close and __close, a C++
 * constructor's complete- and base-object names, alias attributes), so it
 * is wanted when one of its names matches an include pattern (or there are
 * none) and none matches an exclude one.  0, or -1 with err set.
 */
int name_filter_each_function(const struct name_filter *f, struct symbols *s, const char *path,
			      void (*fn)(void *arg, uint64_t start, uint64_t end, int wanted),
			      void *arg, struct zerr *err);

/*
 * Writes the runtime's filter file (doc/raw-format.md) at path: the address
 * ranges of every function of prog and of the libraries it loads at start-up
 * that f does not want.  0, or -1 with err set.
 */
int name_filter_write(const struct name_filter *f, const char *prog, const char *path,
		      struct zerr *err);

/*
 * The functions of p the filter file at path did not cover (their objects
 * were not the program or a library it loads at start-up: one it loaded
 * later with dlopen, a program it ran), *first the first one's object; 0
 * when there is no filter file.
 */
size_t name_filter_unapplied(const char *path, const struct zp_profile *p, const char **first);

/* Parses a whole non-negative number; -1 if s is not one. */
long parse_count(const char *s);

#endif
