/*
 * record.c - `zond record`: run a program under the runtime and store its run.
 *
 * The program runs as our child with libzond preloaded and ZOND_* variables
 * telling the runtime where to write (a fresh directory) and what to record.
 * Every process image it becomes (fork, exec) leaves one raw file there;
 * once the program has ended they are read into one profile, stored as one
 * run, and the directory is removed.  The program's stdin, stdout and stderr
 * are its own; our summary goes to stderr after it ended.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"
#include "ingest/raw_reader.h"
#include "report/report.h"
#include "store/store.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond record [options] -- PROG [ARGS]\n"
	"Run PROG (built with -finstrument-functions) and store its profile as a run:\n"
	"per function and thread the calls, total and self time, min and max.\n\n"
	"  -o, --output FILE     profile store (default ./zond.db)\n"
	"      --no-time         count calls and call edges only (fastest)\n"
	"      --fast-clock      unfenced clock reads: cheaper, but up to some tens of ns\n"
	"                        of a function's time may land in its caller\n"
	"  -T, --trigger FUNC    record only while FUNC is running\n"
	"      --manual          record only between zond_start() and zond_stop()\n"
	"  -F, --filter GLOB     record only functions matching GLOB (repeatable)\n"
	"  -N, --exclude GLOB    do not record functions matching GLOB (repeatable)\n"
	"  -c, --campaign NAME   file the run under campaign NAME\n"
	"      --threads N       thread slots (default 64)\n"
	"      --funcs N         functions per thread (default 16384)\n"
	"      --edges N         call edges per thread (default 65536)\n"
	"      --depth N         shadow stack depth (default 4096)\n"
	"  -n, --top N           functions in the summary (default 10, 0: none)\n"
	"  -q, --quiet           no summary\n"
	"      --keep-raw        keep the raw data directory and print its path\n"
	"  -h, --help            this help\n\n"
	"zond exits with PROG's exit status (128+N when PROG was killed by signal N).\n";

enum { OPT_NO_TIME = 256, OPT_FAST_CLOCK, OPT_MANUAL, OPT_THREADS, OPT_FUNCS, OPT_EDGES, OPT_DEPTH, OPT_KEEP };

static const struct option options[] = {
	{"output", required_argument, NULL, 'o'},
	{"no-time", no_argument, NULL, OPT_NO_TIME},
	{"fast-clock", no_argument, NULL, OPT_FAST_CLOCK},
	{"trigger", required_argument, NULL, 'T'},
	{"manual", no_argument, NULL, OPT_MANUAL},
	{"filter", required_argument, NULL, 'F'},
	{"exclude", required_argument, NULL, 'N'},
	{"campaign", required_argument, NULL, 'c'},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"funcs", required_argument, NULL, OPT_FUNCS},
	{"edges", required_argument, NULL, OPT_EDGES},
	{"depth", required_argument, NULL, OPT_DEPTH},
	{"top", required_argument, NULL, 'n'},
	{"quiet", no_argument, NULL, 'q'},
	{"keep-raw", no_argument, NULL, OPT_KEEP},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct record {
	const char *store;
	const char *trigger;
	const char *campaign;
	struct name_filter names;
	int no_time, fast_clock, manual, quiet;
	long top;
	const char *pool[4]; /* ZOND_THREADS, ZOND_FUNCS, ZOND_EDGES, ZOND_DEPTH */

	struct launch l;
	/* what set_runtime_env passes on */
	const char *runtime, *trigger_env, *filter_file;
};

static const char *const pool_vars[4] = {"ZOND_THREADS", "ZOND_FUNCS", "ZOND_EDGES",
					 "ZOND_DEPTH"};
static const char *const pool_options[4] = {"threads", "funcs", "edges", "depth"};

/* The runtime library: $ZOND_RUNTIME, the build tree, next to us, or installed. */
static const char *find_runtime(void)
{
	static char beside[PATH_MAX];
	const char *env = getenv("ZOND_RUNTIME");
	if (env && *env)
		return env;
	if (access(ZOND_RUNTIME_BUILD_PATH, R_OK) == 0)
		return ZOND_RUNTIME_BUILD_PATH;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			if (launch_join_path(beside, sizeof beside, self, "../lib/libzond.so") == 0 &&
			    access(beside, R_OK) == 0)
				return beside;
		}
	}
	return ZOND_RUNTIME_INSTALL_PATH;
}

struct function_search {
	const char *name;
	uint64_t addr;
	int found;
};

static void match_function(void *arg, const struct symbol *sym)
{
	struct function_search *f = arg;
	if (!f->found && strcmp(sym->name, f->name) == 0) {
		f->addr = sym->start;
		f->found = 1;
	}
}

/* The link-time address of prog's function name: 1 found, 0 not there, -1 error. */
static int find_function(struct symbols *syms, const char *prog, const char *name,
			 uint64_t *addr, struct zerr *err)
{
	struct function_search f = {.name = name};
	if (symbols_each_function(syms, prog, match_function, &f, err) < 0)
		return -1;
	*addr = f.addr;
	return f.found;
}

/* ZOND_TRIGGER=<hex link-time address>:<module path> for the runtime. */
static int trigger_env(struct record *r, struct symbols *syms, char *out, size_t len,
		       struct zerr *err)
{
	uint64_t addr;
	int found = find_function(syms, r->l.prog, r->trigger, &addr, err);
	if (found <= 0)
		return found < 0 ? -1 : zerr_set(err, "%s: no function '%s' to trigger on",
						 r->l.prog, r->trigger);
	snprintf(out, len, "%llx:%s", (unsigned long long)addr, r->l.prog);
	return 0;
}

/*
 * How the runtime gets into the program: preloaded (*runtime = its path), or
 * already linked in with -lzond (*runtime = NULL).  A script is preloaded too:
 * the programs it starts inherit LD_PRELOAD.  A static or setuid program
 * ignores LD_PRELOAD, which would silently record nothing: that is an error.
 */
static int choose_runtime(struct record *r, struct symbols *syms, const char **runtime,
			  struct zerr *err)
{
	struct zerr not_elf;
	char interp[PATH_MAX];
	uint64_t addr;
	*runtime = find_runtime();
	if (!symbols_is_elf(r->l.prog, &not_elf))
		return 0;
	int linked = find_function(syms, r->l.prog, "zond_start", &addr, err);
	if (linked < 0)
		return -1;
	if (linked) {
		*runtime = NULL;
		return 0;
	}
	int dynamic = symbols_interpreter(r->l.prog, interp, sizeof interp, err);
	if (dynamic < 0)
		return -1;
	if (dynamic == 1)
		return zerr_set(err, "%s is statically linked without zond's runtime: "
				     "link it with -lzond",
				r->l.prog);
	struct stat st;
	if (stat(r->l.prog, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) && getuid() != 0)
		return zerr_set(err, "%s is setuid or setgid: the loader ignores LD_PRELOAD for it",
				r->l.prog);
	return 0;
}

/* In the child: set what the runtime reads (launch_run then runs the program). */
static void set_runtime_env(void *arg)
{
	const struct record *r = arg;
	if (r->runtime)
		launch_prepend_env("LD_PRELOAD", r->runtime);
	if (r->no_time)
		setenv("ZOND_NO_TIME", "1", 1);
	if (r->fast_clock)
		setenv("ZOND_FAST_CLOCK", "1", 1);
	if (r->manual)
		setenv("ZOND_MANUAL", "1", 1);
	if (r->trigger_env)
		setenv("ZOND_TRIGGER", r->trigger_env, 1);
	if (r->filter_file)
		setenv("ZOND_FILTER", r->filter_file, 1);
	for (int i = 0; i < 4; i++)
		if (r->pool[i])
			setenv(pool_vars[i], r->pool[i], 1);
}

static int parse_args(struct record *r, int argc, char **argv)
{
	int c;
	long v;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:T:F:N:c:n:qh", options, NULL)) != -1) {
		switch (c) {
		case 'o': r->store = optarg; break;
		case OPT_NO_TIME: r->no_time = 1; break;
		case OPT_FAST_CLOCK: r->fast_clock = 1; break;
		case 'T': r->trigger = optarg; break;
		case OPT_MANUAL: r->manual = 1; break;
		case 'F':
		case 'N':
			if ((c == 'F' ? r->names.ninclude : r->names.nexclude) == NAME_FILTER_MAX)
				return cmd_usage_error("record", "at most %d patterns",
						       NAME_FILTER_MAX);
			if (c == 'F')
				r->names.include[r->names.ninclude++] = optarg;
			else
				r->names.exclude[r->names.nexclude++] = optarg;
			break;
		case 'c': r->campaign = optarg; break;
		case OPT_THREADS:
		case OPT_FUNCS:
		case OPT_EDGES:
		case OPT_DEPTH:
			if (parse_count(optarg) < 1)
				return cmd_usage_error("record", "--%s wants a positive number",
						       pool_options[c - OPT_THREADS]);
			r->pool[c - OPT_THREADS] = optarg;
			break;
		case 'n':
			if ((v = parse_count(optarg)) < 0)
				return cmd_usage_error("record", "--top wants a number, not '%s'",
						       optarg);
			r->top = v;
			break;
		case 'q': r->quiet = 1; break;
		case OPT_KEEP: r->l.keep_raw = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("record", "bad option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("record", "no program to run (zond record -- PROG ARGS)");
	if (r->trigger && r->manual)
		return cmd_usage_error("record", "--trigger and --manual exclude each other");
	r->l.argv = argv + optind;
	return -1;
}

int cmd_record(int argc, char **argv)
{
	struct record r = {.store = STORE_DEFAULT_PATH, .top = 10, .l.cmd = "record"};
	int status = parse_args(&r, argc, argv);
	if (status >= 0)
		return status;
	if (launch_find_program(r.l.argv[0], r.l.prog) < 0)
		return cmd_error("record", "%s: program not found", r.l.argv[0]);

	struct zerr err;
	char trigger[PATH_MAX + 32], filter_file[PATH_MAX];
	int filtered = r.names.ninclude || r.names.nexclude;
	if (launch_make_dir(&r.l, &err) < 0)
		return cmd_error("record", "%s", err.msg);
	struct symbols *syms = symbols_new();
	status = choose_runtime(&r, syms, &r.runtime, &err);
	if (status == 0 && r.trigger)
		status = trigger_env(&r, syms, trigger, sizeof trigger, &err);
	symbols_free(syms);
	if (status == 0 && filtered) {
		status = launch_join_path(filter_file, sizeof filter_file, r.l.dir, "filter") < 0
				 ? zerr_set(&err, "%s: path too long", r.l.dir)
				 : name_filter_write(&r.names, r.l.prog, filter_file, &err);
	}
	r.trigger_env = r.trigger ? trigger : NULL;
	r.filter_file = filtered ? filter_file : NULL;
	if (status == 0)
		status = launch_run(&r.l, set_runtime_env, &r, &err);
	if (status < 0) {
		launch_remove_dir(r.l.dir);
		return cmd_error("record", "%s", err.msg);
	}

	struct zp_profile *p = profile_new();
	int failed = launch_read_raw(&r.l, p,
				     "left no profile data: was it built with "
				     "-finstrument-functions (or is it static or setuid)?",
				     &err) < 0;
	if (failed)
		cmd_error("record", "%s", err.msg);
	if (p->nthreads) {
		launch_describe(&r.l, p, "record", r.campaign);
		if (launch_store(&r.l, p, r.store, &err) < 0)
			failed = cmd_error("record", "%s", err.msg);
		else if (!r.quiet)
			launch_summary(&r.l, p, r.store, r.top);
	}
	profile_free(p);
	return launch_finish(&r.l, failed);
}
