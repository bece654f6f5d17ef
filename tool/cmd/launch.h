/*
 * launch.h - what the commands that run a program under a collector share
 * (`zond record`, `zond libcalls`): finding the program, a fresh directory
 * for its raw files, running it with the collector's environment, reading
 * every raw file it left into one profile, describing and storing the run.
 *
 * The program's stdin, stdout and stderr are its own; while it runs, ^C and
 * ^\ reach it alone.  Messages name the command: "zond CMD: ...".
 */
#ifndef ZOND_LAUNCH_H
#define ZOND_LAUNCH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "util/error.h"

struct launch {
	const char *cmd;     /* the subcommand, for messages: "record" */
	char prog[PATH_MAX]; /* the program's resolved path */
	char dir[PATH_MAX];  /* where the raw files go */
	char **argv;         /* the program and its arguments */
	int keep_raw;        /* keep dir (set on errors too) */
	int exit_status, term_signal;
	int64_t start_ns, duration_ns;
};

/* Finds prog the way execvp will: a name with a slash as is, else along PATH.  0 or -1. */
int launch_find_program(const char *prog, char out[PATH_MAX]);

/* dir/name into out; -1 if it does not fit. */
int launch_join_path(char *out, size_t len, const char *dir, const char *name);

/* Creates l->dir under $TMPDIR (or /tmp). */
int launch_make_dir(struct launch *l, struct zerr *err);
void launch_remove_dir(const char *dir);

/* Sets var to "value:old value" (or value). */
void launch_prepend_env(const char *var, const char *value);

/*
 * Runs l->argv with ZOND_DIR=l->dir and whatever setup(arg) sets in the
 * child's environment, waits for it and notes its status and times.
 */
int launch_run(struct launch *l, void (*setup)(void *arg), void *arg, struct zerr *err);

/*
 * Reads every raw file of l->dir into p, oldest process first.  none: the
 * message when there is none.  A file that cannot be read is reported and
 * keeps the directory.
 */
int launch_read_raw(struct launch *l, struct zp_profile *p, const char *none, struct zerr *err);

/* The run's command, collector, campaign, host, times and status. */
void launch_describe(const struct launch *l, struct zp_profile *p, const char *collector,
		     const char *campaign);

/* Stores p in the store at path; keeps the raw data when that fails. */
int launch_store(struct launch *l, struct zp_profile *p, const char *path, struct zerr *err);

/* "zond CMD: run N stored in STORE: ..." and the top functions by self time, on stderr. */
void launch_summary(const struct launch *l, const struct zp_profile *p, const char *store,
		    long top);

/*
 * Removes the raw data (or says where it was kept) and gives zond's exit
 * status: the program's (128+N when killed by signal N); 1 when we failed
 * and it had exited with 0.
 */
int launch_finish(struct launch *l, int failed);

#endif
