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

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "util/error.h"

/*
 * The options of every command that runs a program under a collector, and
 * their help lines (LAUNCH_OPTIONS_HELP, for the end of a command's list).
 * A command lists LAUNCH_LONG_OPTIONS in its getopt_long table and
 * LAUNCH_SHORT_OPTIONS in its short options; launch_parse() takes these
 * and hands it the rest.
 */
struct launch_options {
	const char *store;    /* -o, default STORE_DEFAULT_PATH */
	const char *campaign; /* -c */
	int no_time, fast_clock, quiet;
	long top;             /* -n, default 10 */
	const char *pool[5];  /* ZOND_THREADS, ZOND_FUNCS, ZOND_EDGES, ZOND_DEPTH, ZOND_CONTEXTS;
				 NULL: default */
	const char *time;     /* --time: ZOND_TIME, "sampled" or "exact"; the command's default */
	const char *sample_period; /* --sample-period: ZOND_SAMPLE_PERIOD (ns), NULL: default */
};

enum {
	LAUNCH_OPT_NO_TIME = 0x1000, /* above any command's own option values */
	LAUNCH_OPT_THREADS,
	LAUNCH_OPT_FUNCS,
	LAUNCH_OPT_EDGES,
	LAUNCH_OPT_DEPTH,
	LAUNCH_OPT_CONTEXTS,
	LAUNCH_OPT_KEEP_RAW,
	LAUNCH_OPT_FAST_CLOCK,
	LAUNCH_OPT_TIME,
	LAUNCH_OPT_SAMPLE_PERIOD,
};

#define LAUNCH_SHORT_OPTIONS "o:c:n:q"
#define LAUNCH_LONG_OPTIONS                                                                       \
	{"output", required_argument, NULL, 'o'},                                                 \
	{"no-time", no_argument, NULL, LAUNCH_OPT_NO_TIME},                                       \
	{"fast-clock", no_argument, NULL, LAUNCH_OPT_FAST_CLOCK},                                 \
	{"campaign", required_argument, NULL, 'c'},                                               \
	{"threads", required_argument, NULL, LAUNCH_OPT_THREADS},                                 \
	{"funcs", required_argument, NULL, LAUNCH_OPT_FUNCS},                                     \
	{"edges", required_argument, NULL, LAUNCH_OPT_EDGES},                                     \
	{"depth", required_argument, NULL, LAUNCH_OPT_DEPTH},                                     \
	{"contexts", required_argument, NULL, LAUNCH_OPT_CONTEXTS},                               \
	{"time", required_argument, NULL, LAUNCH_OPT_TIME},                                       \
	{"sample-period", required_argument, NULL, LAUNCH_OPT_SAMPLE_PERIOD},                     \
	{"top", required_argument, NULL, 'n'},                                                    \
	{"quiet", no_argument, NULL, 'q'},                                                        \
	{"keep-raw", no_argument, NULL, LAUNCH_OPT_KEEP_RAW}

/*
 * From -c on; -o, --time, --sample-period, --no-time and --fast-clock, worded
 * for each command, are its own.
 */
#define LAUNCH_OPTIONS_HELP                                                                       \
	"  -c, --campaign NAME   file the run under campaign NAME\n"                              \
	"      --threads N       thread slots (default 64)\n"                                     \
	"      --funcs N         functions per thread (default 16384)\n"                          \
	"      --edges N         call edges per thread (default 65536)\n"                         \
	"      --depth N         shadow stack depth (default 4096)\n"                             \
	"      --contexts N      calling contexts per thread (default 65536)\n"                   \
	"  -n, --top N           functions in the summary (default 10, 0: none)\n"                \
	"  -q, --quiet           no summary\n"                                                    \
	"      --keep-raw        keep the raw data directory and print its path\n"

struct launch {
	const char *cmd;     /* the subcommand, for messages: "record" */
	char prog[PATH_MAX]; /* the program's resolved path */
	char dir[PATH_MAX];  /* where the raw files go */
	char **argv;         /* the program and its arguments */
	struct launch_options opt;
	int keep_raw;        /* keep dir (--keep-raw, set on errors too) */
	int exit_status, term_signal;
	int64_t start_ns, duration_ns;
};

/* l's defaults: command name and options. */
void launch_init(struct launch *l, const char *cmd);

/*
 * Parses a command's arguments up to the program (getopt_long with
 * short_options, which should start with "+", and options): the shared
 * options into l->opt, -h/--help (prints usage), and the command's own
 * options through own(arg, opt, optarg), which returns 0 when it took opt,
 * LAUNCH_NOT_MINE when it does not know it (a usage error, "bad option"),
 * or the exit status of a usage error it printed.  -1 when the program is
 * to be run (l->argv set), else zond's exit status.
 */
#define LAUNCH_NOT_MINE (-1)
int launch_parse(struct launch *l, int argc, char **argv, const char *short_options,
		 const struct option *options, const char *usage,
		 int (*own)(void *arg, int opt, const char *optarg), void *arg);

/* Finds prog the way execvp will: a name with a slash as is, else along PATH.  0 or -1. */
int launch_find_program(const char *prog, char out[PATH_MAX]);

/* dir/name into out; -1 if it does not fit. */
int launch_join_path(char *out, size_t len, const char *dir, const char *name);

/*
 * Finds one of zond's own files (the runtime, the audit library, the QEMU
 * plugin) into out: $env_var if set, else the build tree's copy, else
 * beside_bin relative to the directory of the running zond (an installed
 * tree), else the configured install path.  0 when a readable file was
 * found, -1 (out holds the install path) when none was.
 */
int launch_find_part(char out[PATH_MAX], const char *env_var, const char *build_path,
		     const char *beside_bin, const char *install_path);

/*
 * Calls fn(arg, path) for every library the dynamic loader maps for prog at
 * start-up, asking the loader itself (`LOADER --list PROG`, which runs none
 * of prog, with LD_PRELOAD and LD_AUDIT left out so that only the program's
 * own libraries are listed).  A static program has none.  0, or -1 with err.
 */
int launch_each_library(const char *prog, void (*fn)(void *arg, const char *path), void *arg,
			struct zerr *err);

/* Creates l->dir under $TMPDIR (or /tmp). */
int launch_make_dir(struct launch *l, struct zerr *err);
void launch_remove_dir(const char *dir);

/* Sets var to "value:old value" (or value). */
void launch_prepend_env(const char *var, const char *value);

/*
 * Runs l->argv with ZOND_DIR=l->dir, the shared options' variables
 * (ZOND_NO_TIME, ZOND_FAST_CLOCK, the pool sizes) and whatever setup(arg) sets in the
 * child's environment, waits for it and notes its status and times.
 */
int launch_run(struct launch *l, void (*setup)(void *arg), void *arg, struct zerr *err);

/*
 * After launch_run: reads every raw file of l->dir into one profile (none:
 * the message when there is none), stores it as a run of collector in
 * l->opt.store, prints the summary unless quiet, removes the raw data (or
 * says where it was kept) and gives zond's exit status: the program's
 * (128+N when killed by signal N); 1 when we failed and it had exited
 * with 0.
 */
int launch_collect(struct launch *l, const char *collector, const char *none);

#endif
