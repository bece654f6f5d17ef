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
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
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
	int no_time, fast_clock, manual, quiet, keep_raw;
	long top;
	const char *pool[4]; /* ZOND_THREADS, ZOND_FUNCS, ZOND_EDGES, ZOND_DEPTH */

	char prog[PATH_MAX]; /* the program's resolved path */
	char dir[PATH_MAX];  /* where the raw files go */
	char **argv;
	int exit_status, term_signal;
	int64_t start_ns, duration_ns;
};

static const char *const pool_vars[4] = {"ZOND_THREADS", "ZOND_FUNCS", "ZOND_EDGES",
					 "ZOND_DEPTH"};
static const char *const pool_options[4] = {"threads", "funcs", "edges", "depth"};

static int64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* dir/name into out; -1 if it does not fit. */
static int join_path(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Finds prog the way execvp will: a name with a slash as is, else along PATH. */
static int find_program(const char *prog, char out[PATH_MAX])
{
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) != 0)
			return -1;
		return realpath(prog, out) ? 0 : -1;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char dir[PATH_MAX], cand[PATH_MAX];
		snprintf(dir, sizeof dir, "%.*s", (int)(n ? n : 1), n ? path : ".");
		struct stat st;
		if (join_path(cand, sizeof cand, dir, prog) == 0 && stat(cand, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return realpath(cand, out) ? 0 : -1;
		path += n + (path[n] == ':');
	}
	return -1;
}

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
			if (join_path(beside, sizeof beside, self, "../lib/libzond.so") == 0 &&
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
	int found = find_function(syms, r->prog, r->trigger, &addr, err);
	if (found <= 0)
		return found < 0 ? -1 : zerr_set(err, "%s: no function '%s' to trigger on",
						 r->prog, r->trigger);
	snprintf(out, len, "%llx:%s", (unsigned long long)addr, r->prog);
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
	if (!symbols_is_elf(r->prog, &not_elf))
		return 0;
	int linked = find_function(syms, r->prog, "zond_start", &addr, err);
	if (linked < 0)
		return -1;
	if (linked) {
		*runtime = NULL;
		return 0;
	}
	int dynamic = symbols_interpreter(r->prog, interp, sizeof interp, err);
	if (dynamic < 0)
		return -1;
	if (dynamic == 1)
		return zerr_set(err, "%s is statically linked without zond's runtime: "
				     "link it with -lzond",
				r->prog);
	struct stat st;
	if (stat(r->prog, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) && getuid() != 0)
		return zerr_set(err, "%s is setuid or setgid: the loader ignores LD_PRELOAD for it",
				r->prog);
	return 0;
}

static int make_raw_dir(struct record *r, struct zerr *err)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(r->dir, sizeof r->dir, "%s/zond-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(r->dir))
		return zerr_set(err, "%s: cannot create a directory for raw data: %s", r->dir,
				strerror(errno));
	return 0;
}

static void prepend_env(const char *var, const char *value)
{
	const char *old = getenv(var);
	if (!old || !*old) {
		setenv(var, value, 1);
		return;
	}
	char *both = zp_xmalloc(strlen(value) + strlen(old) + 2);
	sprintf(both, "%s:%s", value, old);
	setenv(var, both, 1);
	free(both);
}

/* In the child: set what the runtime reads, then become the program. */
static void exec_program(struct record *r, const char *runtime, const char *trigger,
			 const char *filter_file)
{
	setenv("ZOND_DIR", r->dir, 1);
	if (runtime)
		prepend_env("LD_PRELOAD", runtime);
	if (r->no_time)
		setenv("ZOND_NO_TIME", "1", 1);
	if (r->fast_clock)
		setenv("ZOND_FAST_CLOCK", "1", 1);
	if (r->manual)
		setenv("ZOND_MANUAL", "1", 1);
	if (trigger)
		setenv("ZOND_TRIGGER", trigger, 1);
	if (filter_file)
		setenv("ZOND_FILTER", filter_file, 1);
	for (int i = 0; i < 4; i++)
		if (r->pool[i])
			setenv(pool_vars[i], r->pool[i], 1);
	execv(r->prog, r->argv);
	fprintf(stderr, "zond record: %s: cannot run: %s\n", r->prog, strerror(errno));
	_exit(127);
}

/* Runs the program and waits for it, letting ^C and ^\ reach it alone. */
static int run_program(struct record *r, const char *runtime, const char *trigger,
		       const char *filter_file, struct zerr *err)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	r->start_ns = now_ns(CLOCK_REALTIME);
	int64_t t0 = now_ns(CLOCK_MONOTONIC);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return zerr_set(err, "cannot start %s: %s", r->prog, strerror(errno));
	if (pid == 0)
		exec_program(r, runtime, trigger, filter_file);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	r->duration_ns = now_ns(CLOCK_MONOTONIC) - t0;
	r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads every raw file in r->dir into p, oldest process first. */
static int read_raw_files(struct record *r, struct zp_profile *p, struct zerr *err)
{
	DIR *d = opendir(r->dir);
	if (!d)
		return zerr_set(err, "%s: %s", r->dir, strerror(errno));
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!fnmatch("*.zraw", e->d_name, 0)) {
			names = zp_xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = zp_xstrdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof *names, compare_names);

	struct symbols *syms = symbols_new();
	int rc = n ? 0 : zerr_set(err, "%s left no profile data: was it built with "
				       "-finstrument-functions (or is it static or setuid)?",
				  r->prog);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct zerr one;
		int bad = join_path(path, sizeof path, r->dir, names[i]) < 0
				  ? zerr_set(&one, "%s/%s: path too long", r->dir, names[i])
				  : raw_read_into(p, path, syms, &one);
		if (bad < 0) {
			fprintf(stderr, "zond record: %s\n", one.msg);
			rc = zerr_set(err, "some raw data could not be read; kept in %s", r->dir);
			r->keep_raw = 1;
		}
		free(names[i]);
	}
	free(names);
	symbols_free(syms);
	return rc;
}

static void remove_raw_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (join_path(path, sizeof path, dir, e->d_name) == 0)
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static char *join_command(char **argv)
{
	size_t len = 1;
	for (char **a = argv; *a; a++)
		len += strlen(*a) + 1;
	char *s = zp_xmalloc(len), *o = s;
	for (char **a = argv; *a; a++)
		o += sprintf(o, "%s%s", a == argv ? "" : " ", *a);
	*o = 0;
	return s;
}

static void describe_run(struct record *r, struct zp_profile *p)
{
	struct utsname u;
	char *cmd = join_command(r->argv);
	profile_set_str(&p->run.command, cmd);
	free(cmd);
	profile_set_str(&p->run.collector, "record");
	profile_set_str(&p->run.campaign, r->campaign);
	if (uname(&u) == 0) {
		profile_set_str(&p->run.host, u.nodename);
		if (!p->run.arch)
			profile_set_str(&p->run.arch, u.machine);
	}
	p->run.start_ns = r->start_ns;
	p->run.duration_ns = r->duration_ns;
	p->run.exit_status = r->exit_status;
	p->run.term_signal = r->term_signal;
}

static void print_summary(struct record *r, const struct zp_profile *p, const char *store)
{
	uint64_t calls = 0;
	for (size_t i = 0; i < p->nstats; i++)
		calls += p->stats[i].calls;
	fprintf(stderr, "zond record: run %lld stored in %s: %zu functions, %llu calls, %zu threads\n",
		(long long)p->run.id, store, p->nnodes, (unsigned long long)calls, p->nthreads);
	if (r->top > 0) {
		struct report_options o = {.thread = ZP_NONE, .sort = SORT_SELF, .limit = (int)r->top};
		report_flat(p, &o, stderr);
	}
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
		case OPT_KEEP: r->keep_raw = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("record", "bad option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("record", "no program to run (zond record -- PROG ARGS)");
	if (r->trigger && r->manual)
		return cmd_usage_error("record", "--trigger and --manual exclude each other");
	r->argv = argv + optind;
	return -1;
}

/* Stores the run; keeps the raw data if it could not be stored. */
static int store_run(struct record *r, struct zp_profile *p, struct zerr *err)
{
	struct store *s = store_open(r->store, STORE_CREATE, err);
	if (!s || store_add_run(s, p, err) < 0) {
		store_close(s);
		r->keep_raw = 1;
		return -1;
	}
	store_close(s);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record r = {.store = STORE_DEFAULT_PATH, .top = 10};
	int status = parse_args(&r, argc, argv);
	if (status >= 0)
		return status;
	if (find_program(r.argv[0], r.prog) < 0)
		return cmd_error("record", "%s: program not found", r.argv[0]);

	struct zerr err;
	char trigger[PATH_MAX + 32], filter_file[PATH_MAX];
	int filtered = r.names.ninclude || r.names.nexclude;
	if (make_raw_dir(&r, &err) < 0)
		return cmd_error("record", "%s", err.msg);
	const char *runtime;
	struct symbols *syms = symbols_new();
	status = choose_runtime(&r, syms, &runtime, &err);
	if (status == 0 && r.trigger)
		status = trigger_env(&r, syms, trigger, sizeof trigger, &err);
	symbols_free(syms);
	if (status == 0 && filtered) {
		status = join_path(filter_file, sizeof filter_file, r.dir, "filter") < 0
				 ? zerr_set(&err, "%s: path too long", r.dir)
				 : name_filter_write(&r.names, r.prog, filter_file, &err);
	}
	if (status == 0)
		status = run_program(&r, runtime, r.trigger ? trigger : NULL,
				     filtered ? filter_file : NULL, &err);
	if (status < 0) {
		remove_raw_dir(r.dir);
		return cmd_error("record", "%s", err.msg);
	}

	struct zp_profile *p = profile_new();
	int failed = read_raw_files(&r, p, &err) < 0;
	if (failed)
		cmd_error("record", "%s", err.msg);
	if (p->nthreads) {
		describe_run(&r, p);
		if (store_run(&r, p, &err) < 0)
			failed = cmd_error("record", "%s", err.msg);
		else if (!r.quiet)
			print_summary(&r, p, r.store);
	}
	profile_free(p);
	if (r.keep_raw)
		fprintf(stderr, "zond record: raw data kept in %s\n", r.dir);
	else
		remove_raw_dir(r.dir);
	if (r.term_signal)
		return 128 + r.term_signal;
	/* The program's status is the user's; ours shows only when it had none. */
	return failed && r.exit_status == 0 ? 1 : r.exit_status;
}
