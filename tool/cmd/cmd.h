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

#include <stdint.h>

#include "model/profile.h"
#include "util/error.h"

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
int cmd_config(int argc, char **argv);

/* Prints "zond CMD: message" to stderr and returns 1. */
int cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "zond CMD: message (see 'zond CMD --help')" and returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Which run a reading command works on: -i STORE, -r RUN or -C CAMPAIGN, --tid TID. */
struct run_choice {
	const char *store;    /* default STORE_DEFAULT_PATH */
	const char *run;      /* NULL: the last run */
	const char *campaign; /* all runs of this campaign combined, instead of one run */
	const char *tid;      /* NULL: all threads */
};

/*
 * Loads the chosen run, or the runs of the campaign combined into one profile
 * (its header is the newest run's, with meta "runs_combined"); NULL with err
 * set.  *thread gets ZP_NONE or the thread's index.
 */
struct zp_profile *run_choice_load(const struct run_choice *c, uint32_t *thread,
				   struct zerr *err);

/*
 * Opens c's store for reading and gives the ids of the runs c chooses: the
 * one run (n = 1), or every run of the campaign, oldest first (*ids
 * malloc'ed).  The store, to be closed by the caller; NULL with err set.
 * c->tid is not looked at.
 */
struct store;
struct store *run_choice_open(const struct run_choice *c, int64_t **ids, size_t *n,
			      struct zerr *err);

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
 * Writes the runtime's filter file (doc/raw-format.md) at path: the address
 * ranges of every function of prog and of the libraries it loads at start-up
 * that f does not want.  0, or -1 with err set.
 */
int name_filter_write(const struct name_filter *f, const char *prog, const char *path,
		      struct zerr *err);

/* Parses a whole non-negative number; -1 if s is not one. */
long parse_count(const char *s);

#endif
