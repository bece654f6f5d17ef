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
	int no_progress;      /* --no-progress (progress.h); -q turns it off too */
	long top;             /* -n, default 10 */
	const char *pool[5];  /* ZOND_THREADS, ZOND_FUNCS, ZOND_EDGES, ZOND_DEPTH, ZOND_CONTEXTS;
				 NULL: default */
	const char *time;     /* --time: ZOND_TIME, "sampled" or "exact"; the command's default */
	const char *sample_period; /* --sample-period: ZOND_SAMPLE_PERIOD (ns), NULL: default */
	long timeline; /* --timeline[-size]: ZOND_TIMELINE, events per thread; 0: none */
	const char *timeline_keep; /* --timeline-keep: ZOND_TIMELINE_KEEP, "oldest" or "newest" */
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
	LAUNCH_OPT_NO_PROGRESS,
	LAUNCH_OPT_TIMELINE,
	LAUNCH_OPT_TIMELINE_SIZE,
	LAUNCH_OPT_TIMELINE_KEEP,
};
/* The timeline's ring, events per thread, when --timeline gives no size: 16 MiB of a slot. */
#define LAUNCH_TIMELINE_DEFAULT 1048576L
#define LAUNCH_TIMELINE_MAX     (1L << 26) /* the runtime's limit (runtime/linux/port.c) */

#define LAUNCH_SHORT_OPTIONS "o:c:n:q"
#define LAUNCH_LONG_OPTIONS                                                                        \
	{"output", required_argument, NULL, 'o'},                                                  \
		{"no-time", no_argument, NULL, LAUNCH_OPT_NO_TIME},                                \
		{"fast-clock", no_argument, NULL, LAUNCH_OPT_FAST_CLOCK},                          \
		{"campaign", required_argument, NULL, 'c'},                                        \
		{"threads", required_argument, NULL, LAUNCH_OPT_THREADS},                          \
		{"funcs", required_argument, NULL, LAUNCH_OPT_FUNCS},                              \
		{"edges", required_argument, NULL, LAUNCH_OPT_EDGES},                              \
		{"depth", required_argument, NULL, LAUNCH_OPT_DEPTH},                              \
		{"contexts", required_argument, NULL, LAUNCH_OPT_CONTEXTS},                        \
		{"time", required_argument, NULL, LAUNCH_OPT_TIME},                                \
		{"sample-period", required_argument, NULL, LAUNCH_OPT_SAMPLE_PERIOD},              \
		{"top", required_argument, NULL, 'n'}, {"quiet", no_argument, NULL, 'q'},          \
		{"no-progress", no_argument, NULL, LAUNCH_OPT_NO_PROGRESS},                        \
		{"keep-raw", no_argument, NULL, LAUNCH_OPT_KEEP_RAW},                              \
		{"timeline", no_argument, NULL, LAUNCH_OPT_TIMELINE},                              \
		{"timeline-size", required_argument, NULL, LAUNCH_OPT_TIMELINE_SIZE},              \
	{                                                                                          \
		"timeline-keep", required_argument, NULL, LAUNCH_OPT_TIMELINE_KEEP                 \
	}

/*
 * From -c on; -o, --time, --sample-period, --no-time and --fast-clock, worded
 * for each command, are its own.
 */
#define LAUNCH_OPTIONS_HELP                                                                        \
	"  -c, --campaign NAME   file the run under campaign NAME\n"                               \
	"      --threads N       thread slots (default 64)\n"                                      \
	"      --funcs N         functions per thread (default 16384)\n"                           \
	"      --edges N         call edges per thread (default 65536)\n"                          \
	"      --depth N         shadow stack depth (default 4096)\n"                              \
	"      --contexts N      calling contexts per thread (default 1048576)\n"                  \
	"  -n, --top N           functions in the summary (default 10, 0: none)\n"                 \
	"  -q, --quiet           no summary, no progress line\n"                                   \
	"      --no-progress     no progress line (on a terminal, one line on stderr says\n"       \
	"                        the time, calls and raw data so far while PROG runs)\n"           \
	"      --keep-raw        keep the raw data directory and print its path\n"                 \
	"      --timeline        keep every enter and exit of the recorded functions, per\n"       \
	"                        thread, with its time ('zond export -f chrome', --time)\n"        \
	"      --timeline-size N events kept per thread (default 1048576; implies --timeline)\n"   \
	"      --timeline-keep oldest|newest  which events a full timeline keeps (default\n"       \
	"                        oldest); the others are counted as dropped\n"

/* The end of the --help of a command that runs a program. */
#define LAUNCH_EXIT_HELP                                                                          \
	"zond ends as PROG did: its exit status, or killed by the same signal (once the\n"       \
	"run is stored).  HUP, INT, QUIT, TERM, USR1, USR2 and ALRM sent to zond are passed\n"  \
	"on to PROG; once PROG has ended, the first of them is noted and the run stored,\n"    \
	"a second stops zond (its raw data kept).  If zond is killed, 'zond recover DIR'\n"    \
	"stores the raw data it left.\n"                                                         \
	"PROG and every program it runs are recorded: they see zond's library in\n"             \
	"LD_PRELOAD (record) or LD_AUDIT (libcalls) and ZOND_* variables (a 32-bit one\n"      \
	"among them makes the loader say it ignored the library).\n"

struct launch {
	const char *cmd;     /* the subcommand, for messages: "record" */
	char prog[PATH_MAX]; /* the program's resolved path */
	char dir[PATH_MAX];  /* where the raw files go */
	char **argv;         /* the program and its arguments */
	const char *command; /* the command line joined and quoted already (recover), or NULL: argv's */
	struct launch_options opt;
	int keep_raw;        /* keep dir (--keep-raw, set on errors too) */
	int recovering;      /* zond recover: no program ran, nothing to die of */
	int program_optional; /* launch_parse: no PROG is no error (l->argv[0] NULL) */
	int bare;            /* a bare-metal target (cmd/bare.c): pools fixed in its runtime */
	int host_clock;      /* bare: QEMU run without -icount (run meta host_clock, bare.h) */
	int exit_status, term_signal; /* -1 and 0 when unknown */
	int64_t start_ns, duration_ns;
	const char *end_unknown; /* why the status is unknown (run meta end_unknown), or NULL */
	int lock_fd; /* dir's lock (runinfo.h), held while zond lives; -1: none */
	char *knobs; /* the runtime's variables zond passed on as it found them (run meta zond_env) */
	char token[40]; /* the run's identity (run meta run_token, run.info token); "": none known */
	/* raw files that could not be read (damaged, another zond's): their names and why;
	   kept in dir when the rest of the run is stored (run meta lost_raw_files) */
	char **damaged, **damaged_why;
	size_t ndamaged;
	size_t nraw; /* the raw files found: none when no process's runtime started */
	/* what to add when the program died before any runtime started in it, or NULL */
	const char *early_death_hint;
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

/*
 * Finds prog the way execvp will (a name with a slash as is, else along PATH)
 * and checks that this machine can run it natively: not a directory, a
 * regular executable file, an ELF program of our architecture and class or
 * a script (#!).  0 with its real path in out, or -1 with err saying what
 * the file is instead.
 */
int launch_find_program(const char *prog, char out[PATH_MAX], struct zerr *err);

/*
 * As launch_find_program, for a program of any architecture (zond trace runs
 * it under QEMU): found along PATH, a regular executable file; its real path
 * in out.
 */
int launch_find_file(const char *prog, char out[PATH_MAX], struct zerr *err);

/*
 * As launch_find_file, with the path execvp would run in found (PATH's
 * directory joined to the name, a symbolic link not resolved: what the
 * program sees as AT_EXECFN).
 */
int launch_find_path(const char *prog, char found[PATH_MAX], struct zerr *err);

/*
 * 1 when the kernel would run prog for this process in secure mode
 * (AT_SECURE): its set-user-ID or set-group-ID bit gives it a user or group
 * other than our real one, on a file system that honours the bits.  The
 * loader then ignores LD_PRELOAD and LD_AUDIT, for root too when the file is
 * another user's or group's (Debian's chage, ssh-agent, unix_chkpwd).
 */
int launch_secure_exec(const char *prog);

/*
 * After launch_find_program or launch_find_file failed on prog with err:
 * says so in one line and gives the status a shell gives, 127 for a
 * program that is not there, 126 for one that cannot run.
 */
int launch_program_error(const char *cmd, const char *prog, const struct zerr *err);

/*
 * Dies of sig as the program did, so that shells, parents and wait(2) see
 * what they would have seen without zond; no core of zond's own (it would
 * take the name of the program's).  Returns only if sig did not kill us.
 */
void launch_die_as(int sig);

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

/*
 * Before the program runs: checks that l->opt.store can be written (a bad -o
 * must not cost a run), creates l->dir under $TMPDIR (or /tmp), takes its
 * lock and writes what is known of the run into it (runinfo.h: collector,
 * program, command, store, campaign; launch_run appends times and status),
 * for `zond recover`.
 */
int launch_prepare(struct launch *l, const char *collector, struct zerr *err);

/* The runtime's filter file in l->dir (record -F/-N). */
#define LAUNCH_FILTER_FILE "filter"
/* A bare-metal program's ELF copy in l->dir, told where to write its raw data (cmd/bare.c). */
#define LAUNCH_ELF_COPY "target.elf"

/* Removes the files zond put in dir (raw files, run.info, filter, ELF copy, lock) and dir if then empty. */
void launch_remove_dir(const char *dir);

struct runinfo;

/*
 * Reads l->dir/run.info (runinfo.h) into l (prog, times, status) and ri
 * (runinfo_free frees it): 1, or 0 when there is none, or -1 with err.
 */
int launch_read_info(struct launch *l, struct runinfo *ri, struct zerr *err);

/* All calls of a profile (the sum of its stats). */
uint64_t launch_total_calls(const struct zp_profile *p);

/*
 * Sets var to value for the program, or removes it when value is NULL: a
 * variable zond sets from an option says what the option said, never what
 * a shell's export or an enclosing zond left in zond's environment.
 */
void launch_set_env(const char *var, const char *value);
/* Sets var to "value:old value" (or value). */
void launch_prepend_env(const char *var, const char *value);
/* Sets var to "old value:value" (or value). */
void launch_append_env(const char *var, const char *value);

/*
 * Runs l->argv with ZOND_DIR=l->dir, the shared options' variables
 * (ZOND_NO_TIME, ZOND_FAST_CLOCK, the pool sizes...: set as the options
 * say, or removed) and whatever setup(arg) sets in the child's environment,
 * waits for it and notes its status and times.
 */
int launch_run(struct launch *l, void (*setup)(void *arg), void *arg, struct zerr *err);
/*
 * While it runs, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2 and
 * SIGALRM sent to zond are passed on to the program (not those a terminal
 * sends its whole process group, which the program gets anyway), and zond
 * waits for it: what it recorded is still stored.  Once it has ended they
 * are held (forward_hold) until the run is stored: the first is noted, a
 * second ends zond, its raw data kept for `zond recover`.  On a terminal, unless
 * -q or --no-progress, the progress line (progress.h) shows what its raw
 * files hold so far; it is erased before the program's end is dealt with.
 */

/*
 * After launch_run: reads every raw file of l->dir into one profile, stores
 * it as a run of collector in l->opt.store, prints the summary unless quiet
 * and one warning per overflowed table (lost_*), removes the raw data (or
 * says where it was kept) and gives zond's exit status: the program's; 1
 * when we failed and it had exited with 0.  A program killed by signal N is
 * died of again: zond raises N (128+N is returned only if that returns).
 * When nothing was recorded, no run is stored and one line says so: "PROG:
 * no run stored: " and none (or the address-space limit that kept the
 * runtime's tables out); a run lost is zond's failure as a store's is.
 * When recovering, 0 or 1.
 */
int launch_collect(struct launch *l, const char *collector, const char *none);

#endif
