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
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond libcalls [options] -- PROG [ARGS]\n"
	"Run PROG (any dynamically linked program, as installed) and store a run of its\n"
	"calls into shared libraries: per function the calls, total and self time, min\n"
	"and max, its callers (a library function or the calling code) and threads.\n"
	"No root, no ptrace, no recompilation: the dynamic loader's audit interface.\n\n"
	"  -o, --output FILE     profile store (default ./zond.db)\n"
	"      --time exact      (default) every call timed by the clock: min and max of\n"
	"                        single calls, the probes' estimated cost subtracted\n"
	"      --time sampled    CPU time sampled per calling context by a per-thread\n"
	"                        perf_event task clock, or a CPU-time timer where perf\n"
	"                        events are not allowed (statistical; time outside\n"
	"                        library calls shows as [no function])\n"
	"      --sample-period NS  CPU time between samples (default 1000000: 1 ms); each\n"
	"                        sample costs the thread some us of its CPU time (more\n"
	"                        in a virtual machine): samples that zond's own work\n"
	"                        filled are zond's, and a period under some 10x that\n"
	"                        cost is warned of (shares less true)\n"
	"      --no-time         count calls only (cheapest)\n"
	"      --fast-clock      unfenced clock reads: cheaper, but up to some tens of ns\n"
	"                        of a function's time may land in its caller\n"
	"  -l, --lib GLOB        profile only functions of libraries matching GLOB, by\n"
	"                        file name or path (repeatable; e.g. 'libz.so*')\n"
	"  -f, --func GLOB       profile only functions matching GLOB (repeatable)\n"
	"      --dlsym           also profile calls through pointers from dlsym() (these\n"
	"                        pointers then differ from the functions' addresses)\n"
	LAUNCH_OPTIONS_HELP
	"  -h, --help            this help\n\n"
	"Calls that never pass through the PLT are not seen: see doc/libcalls.md.\n"
	LAUNCH_EXIT_HELP;

enum { OPT_DLSYM = 256 };

static const struct option options[] = {
	LAUNCH_LONG_OPTIONS,
	{"lib", required_argument, NULL, 'l'},
	{"func", required_argument, NULL, 'f'},
	{"dlsym", no_argument, NULL, OPT_DLSYM},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct libcalls {
	struct launch l;
	char *libs, *funcs; /* newline-separated globs, NULL: all */
	int dlsym;
	uint64_t static_tls; /* spare static TLS the program's libraries need (see below) */
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

/* The options of libcalls alone (launch_parse). */
static int libcalls_option(void *arg, int opt, const char *optarg)
{
	struct libcalls *c = arg;
	switch (opt) {
	case 'l':
	case 'f':
		if (!*optarg || strchr(optarg, '\n'))
			return cmd_usage_error("libcalls", "-%c wants a pattern", opt);
		add_glob(opt == 'l' ? &c->libs : &c->funcs, optarg);
		return 0;
	case OPT_DLSYM: c->dlsym = 1; return 0;
	default: return LAUNCH_NOT_MINE;
	}
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
	if (dynamic == 1 && symbols_is_library(prog))
		return zerr_set(err, "%s is a shared library, not a program: profile a program "
				     "that loads it",
				prog);
	if (dynamic == 1)
		return zerr_set(err, "%s is statically linked: it calls no shared library, "
				     "there is nothing to intercept",
				prog);
	if (launch_secure_exec(prog))
		return zerr_set(err, "%s is setuid or setgid to another user or group: the loader "
				     "ignores LD_AUDIT for it",
				prog);
	return 0;
}

/*
 * The loader lays out the process's static TLS before it loads an audit
 * library, so the program's own libraries whose code reaches their TLS at
 * fixed offsets (DF_STATIC_TLS: TSan's and LSan's runtimes hold hundreds of
 * KiB) must fit in the little it keeps spare ("cannot allocate memory in
 * static TLS block": the program would not start).  Their sizes, summed over
 * the libraries the loader lists for prog (`LOADER --list`, which runs no
 * code of the program's), make the spare room asked for with glibc's
 * tunable when they exceed its default (the C library's own, 144 bytes,
 * and AddressSanitizer's fit in that); 0 when they fit or the list cannot
 * be had.
 */
static uint64_t libraries_static_tls(const char *prog)
{
	char interp[PATH_MAX];
	struct zerr ignored;
	if (symbols_interpreter(prog, interp, sizeof interp, &ignored) != 0)
		return 0;
	int out[2];
	if (pipe(out) != 0)
		return 0;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(out[1], 1);
		dup2(null, 2);
		execl(interp, interp, "--list", prog, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	FILE *f = pid > 0 ? fdopen(out[0], "r") : NULL;
	if (!f)
		close(out[0]);
	uint64_t bytes = 0;
	char line[PATH_MAX + 64];
	while (f && fgets(line, sizeof line, f)) {
		/* "\tNAME => PATH (0x...)" or "\tPATH (0x...)" */
		char *path = strstr(line, "=> ");
		path = path ? path + 3 : line + strspn(line, " \t");
		char *end = strstr(path, " (0x");
		if (*path != '/' || !end)
			continue;
		*end = 0;
		bytes += symbols_static_tls(path);
	}
	if (f)
		fclose(f);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	/* the loader's default spare room (512) takes that much: the C library's own (144) */
	return bytes > 512 ? bytes : 0;
}

/* Adds item to the colon-separated list in the environment variable var. */
static void add_tunable(const char *var, const char *item)
{
	const char *old = getenv(var);
	char *joined = zp_xrealloc(NULL, (old ? strlen(old) + 1 : 0) + strlen(item) + 1);
	sprintf(joined, "%s%s%s", old ? old : "", old && *old ? ":" : "", item);
	setenv(var, joined, 1);
	free(joined);
}

/* In the child: what the audit library reads (audit.c). */
static void set_audit_env(void *arg)
{
	const struct libcalls *c = arg;
	launch_prepend_env("LD_AUDIT", c->audit);
	if (c->static_tls) {
		/* glibc's default spare room (512) on top of what the libraries need */
		char item[64];
		snprintf(item, sizeof item, "glibc.rtld.optional_static_tls=%llu",
			 (unsigned long long)(c->static_tls + 512));
		add_tunable("GLIBC_TUNABLES", item);
	}
	launch_set_env("ZOND_LIBCALLS_LIBS", c->libs);
	launch_set_env("ZOND_LIBCALLS_FUNCS", c->funcs);
	launch_set_env("ZOND_LIBCALLS_DLSYM", c->dlsym ? "1" : NULL);
}

static int run(struct libcalls *c)
{
	struct zerr err;
	if (launch_find_program(c->l.argv[0], c->l.prog, &err) < 0)
		return launch_program_error("libcalls", c->l.argv[0], &err);
	if (launch_find_part(c->audit, "ZOND_AUDIT", ZOND_AUDIT_BUILD_PATH, "../lib/libzond-audit.so",
			     ZOND_AUDIT_INSTALL_PATH) < 0)
		return cmd_error("libcalls", "libzond-audit.so not found (set ZOND_AUDIT to its path)");
	if (check_program(c->l.prog, &err) < 0)
		return cmd_error("libcalls", "%s", err.msg);
	c->static_tls = libraries_static_tls(c->l.prog);
	if (launch_prepare(&c->l, "libcalls", &err) < 0)
		return cmd_error("libcalls", "%s", err.msg);
	if (launch_run(&c->l, set_audit_env, c, &err) < 0) {
		launch_remove_dir(c->l.dir);
		return cmd_error("libcalls", "%s", err.msg);
	}
	return launch_collect(&c->l, "libcalls",
			      c->libs || c->funcs
				      ? "no library call was recorded: none matched -l/-f"
				      : "no call into a shared library was recorded");
}

int cmd_libcalls(int argc, char **argv)
{
	struct libcalls c = {0};
	launch_init(&c.l, "libcalls");
	int status = launch_parse(&c.l, argc, argv, "+" LAUNCH_SHORT_OPTIONS "l:f:h", options,
				  usage_text, libcalls_option, &c);
	if (status < 0)
		status = run(&c);
	free(c.libs);
	free(c.funcs);
	return status;
}
