/*
 * libcalls.c - `zond libcalls`: time every call an unmodified, dynamically
 * linked program makes into shared libraries, and store it as a run.
 *
 * The program runs with libzond-audit.so as its rtld-audit library
 * (LD_AUDIT): the dynamic loader asks it for every function it binds and
 * it hands back redirectors that count and time the calls in the same raw
 * files libzond writes (runtime/audit/audit.h, doc/libcalls.md).  From
 * there on it is `zond record`'s path (launch.h): one run, collector
 * "libcalls", for every report and export.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"
#include "store/store.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond libcalls [options] -- PROG [ARGS]\n"
	"Run PROG (any dynamically linked program, as installed) and store a run of its\n"
	"calls into shared libraries: per function the calls, total and self time, min\n"
	"and max, its callers (a library function or the calling code) and threads.\n"
	"No root, no ptrace, no recompilation: the dynamic loader's audit interface.\n\n"
	"  -o, --output FILE     profile store (default ./zond.db)\n"
	"      --no-time         count calls only (cheapest)\n"
	"  -l, --lib GLOB        profile only functions of libraries matching GLOB, by\n"
	"                        file name or path (repeatable; e.g. 'libz.so*')\n"
	"  -f, --func GLOB       profile only functions matching GLOB (repeatable)\n"
	"      --dlsym           also profile calls through pointers from dlsym() (these\n"
	"                        pointers then differ from the functions' addresses)\n"
	"  -c, --campaign NAME   file the run under campaign NAME\n"
	"      --threads N       thread slots (default 64)\n"
	"      --funcs N         functions per thread (default 16384)\n"
	"      --edges N         call edges per thread (default 65536)\n"
	"      --depth N         shadow stack depth (default 4096)\n"
	"  -n, --top N           functions in the summary (default 10, 0: none)\n"
	"  -q, --quiet           no summary\n"
	"      --keep-raw        keep the raw data directory and print its path\n"
	"  -h, --help            this help\n\n"
	"Calls that never pass through the PLT are not seen: see doc/libcalls.md.\n"
	"zond exits with PROG's exit status (128+N when PROG was killed by signal N).\n";

enum { OPT_NO_TIME = 256, OPT_DLSYM, OPT_THREADS, OPT_FUNCS, OPT_EDGES, OPT_DEPTH, OPT_KEEP };

static const struct option options[] = {
	{"output", required_argument, NULL, 'o'},
	{"no-time", no_argument, NULL, OPT_NO_TIME},
	{"lib", required_argument, NULL, 'l'},
	{"func", required_argument, NULL, 'f'},
	{"dlsym", no_argument, NULL, OPT_DLSYM},
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

static const char *const pool_vars[4] = {"ZOND_THREADS", "ZOND_FUNCS", "ZOND_EDGES",
					 "ZOND_DEPTH"};
static const char *const pool_options[4] = {"threads", "funcs", "edges", "depth"};

struct libcalls {
	struct launch l;
	const char *store, *campaign;
	char *libs, *funcs; /* newline-separated globs, NULL: all */
	int no_time, dlsym, quiet;
	long top;
	const char *pool[4];
	char audit[PATH_MAX];
};

/* Adds glob to a newline-separated list. */
static void add_glob(char **list, const char *glob)
{
	size_t old = *list ? strlen(*list) + 1 : 0;
	*list = zp_xrealloc(*list, old + strlen(glob) + 1);
	if (old)
		(*list)[old - 1] = '\n';
	strcpy(*list + old, glob);
}

static int parse_args(struct libcalls *c, int argc, char **argv)
{
	int o;
	long v;
	optind = 1;
	while ((o = getopt_long(argc, argv, "+o:l:f:c:n:qh", options, NULL)) != -1) {
		switch (o) {
		case 'o': c->store = optarg; break;
		case OPT_NO_TIME: c->no_time = 1; break;
		case 'l':
		case 'f':
			if (!*optarg || strchr(optarg, '\n'))
				return cmd_usage_error("libcalls", "-%c wants a pattern", o);
			add_glob(o == 'l' ? &c->libs : &c->funcs, optarg);
			break;
		case OPT_DLSYM: c->dlsym = 1; break;
		case 'c': c->campaign = optarg; break;
		case OPT_THREADS:
		case OPT_FUNCS:
		case OPT_EDGES:
		case OPT_DEPTH:
			if (parse_count(optarg) < 1)
				return cmd_usage_error("libcalls", "--%s wants a positive number",
						       pool_options[o - OPT_THREADS]);
			c->pool[o - OPT_THREADS] = optarg;
			break;
		case 'n':
			if ((v = parse_count(optarg)) < 0)
				return cmd_usage_error("libcalls", "--top wants a number, not '%s'",
						       optarg);
			c->top = v;
			break;
		case 'q': c->quiet = 1; break;
		case OPT_KEEP: c->l.keep_raw = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("libcalls", "bad option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("libcalls", "no program to run (zond libcalls -- PROG ARGS)");
	c->l.argv = argv + optind;
	return -1;
}

/* libzond-audit.so beside the runtime libzond.so: $ZOND_AUDIT, build tree, ../lib, installed. */
static int find_audit(char out[PATH_MAX])
{
	const char *env = getenv("ZOND_AUDIT");
	if (env && *env)
		return realpath(env, out) ? 0 : -1;
	const char *beside_runtime[] = {ZOND_RUNTIME_BUILD_PATH, NULL, ZOND_RUNTIME_INSTALL_PATH};
	char self[PATH_MAX], dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			if (launch_join_path(dir, sizeof dir, self, "../lib/libzond.so") == 0)
				beside_runtime[1] = dir;
		}
	}
	for (int i = 0; i < 3; i++) {
		char cand[PATH_MAX];
		const char *lib = beside_runtime[i];
		const char *slash = lib ? strrchr(lib, '/') : NULL;
		if (!slash || (size_t)(slash - lib) + sizeof "/libzond-audit.so" > sizeof cand)
			continue;
		memcpy(cand, lib, (size_t)(slash - lib));
		strcpy(cand + (slash - lib), "/libzond-audit.so");
		if (access(cand, R_OK) == 0 && realpath(cand, out))
			return 0;
	}
	return -1;
}

/*
 * The loader ignores LD_AUDIT for static programs (no loader) and for
 * setuid or setgid ones: say so rather than record nothing.  A script's
 * interpreter inherits LD_AUDIT and is profiled.
 */
static int check_program(const char *prog, struct zerr *err)
{
	struct zerr not_elf;
	char interp[PATH_MAX];
	if (!symbols_is_elf(prog, &not_elf))
		return 0;
	int dynamic = symbols_interpreter(prog, interp, sizeof interp, err);
	if (dynamic < 0)
		return -1;
	if (dynamic == 1)
		return zerr_set(err, "%s is statically linked: it calls no shared library, "
				     "there is nothing to intercept",
				prog);
	struct stat st;
	if (stat(prog, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) && getuid() != 0)
		return zerr_set(err, "%s is setuid or setgid: the loader ignores LD_AUDIT for it",
				prog);
	return 0;
}

/* In the child: what the audit library reads (audit.c). */
static void set_audit_env(void *arg)
{
	const struct libcalls *c = arg;
	launch_prepend_env("LD_AUDIT", c->audit);
	if (c->no_time)
		setenv("ZOND_NO_TIME", "1", 1);
	if (c->libs)
		setenv("ZOND_LIBCALLS_LIBS", c->libs, 1);
	if (c->funcs)
		setenv("ZOND_LIBCALLS_FUNCS", c->funcs, 1);
	if (c->dlsym)
		setenv("ZOND_LIBCALLS_DLSYM", "1", 1);
	for (int i = 0; i < 4; i++)
		if (c->pool[i])
			setenv(pool_vars[i], c->pool[i], 1);
}

static int run(struct libcalls *c)
{
	struct zerr err;
	if (launch_find_program(c->l.argv[0], c->l.prog) < 0)
		return cmd_error("libcalls", "%s: program not found", c->l.argv[0]);
	if (find_audit(c->audit) < 0)
		return cmd_error("libcalls", "libzond-audit.so not found (set ZOND_AUDIT to its path)");
	if (check_program(c->l.prog, &err) < 0)
		return cmd_error("libcalls", "%s", err.msg);
	if (launch_make_dir(&c->l, &err) < 0)
		return cmd_error("libcalls", "%s", err.msg);
	if (launch_run(&c->l, set_audit_env, c, &err) < 0) {
		launch_remove_dir(c->l.dir);
		return cmd_error("libcalls", "%s", err.msg);
	}
	struct zp_profile *p = profile_new();
	int failed = launch_read_raw(&c->l, p,
				     "left no profile data: the loader did not run the audit "
				     "library (static, setuid, or LD_AUDIT removed)?",
				     &err) < 0;
	if (failed)
		cmd_error("libcalls", "%s", err.msg);
	if (p->nthreads) {
		launch_describe(&c->l, p, "libcalls", c->campaign);
		if (launch_store(&c->l, p, c->store, &err) < 0)
			failed = cmd_error("libcalls", "%s", err.msg);
		else if (!c->quiet)
			launch_summary(&c->l, p, c->store, c->top);
	}
	profile_free(p);
	return launch_finish(&c->l, failed);
}

int cmd_libcalls(int argc, char **argv)
{
	struct libcalls c = {.store = STORE_DEFAULT_PATH, .top = 10, .l.cmd = "libcalls"};
	int status = parse_args(&c, argc, argv);
	if (status < 0)
		status = run(&c);
	free(c.libs);
	free(c.funcs);
	return status;
}
