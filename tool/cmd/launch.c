/* launch.c - running a program under a collector and reading what it left (launch.h). */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

static int64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void launch_init(struct launch *l, const char *cmd)
{
	*l = (struct launch){.cmd = cmd, .opt = {.store = STORE_DEFAULT_PATH, .top = 10}};
}

static const char *const pool_vars[4] = {"ZOND_THREADS", "ZOND_FUNCS", "ZOND_EDGES",
					 "ZOND_DEPTH"};
static const char *const pool_options[4] = {"threads", "funcs", "edges", "depth"};

/* Takes opt if it is a shared option: 0, else LAUNCH_NOT_MINE or a usage error's status. */
static int shared_option(struct launch *l, int opt, const char *arg)
{
	long v;
	switch (opt) {
	case 'o': l->opt.store = arg; break;
	case LAUNCH_OPT_NO_TIME: l->opt.no_time = 1; break;
	case LAUNCH_OPT_FAST_CLOCK: l->opt.fast_clock = 1; break;
	case 'c': l->opt.campaign = arg; break;
	case LAUNCH_OPT_THREADS:
	case LAUNCH_OPT_FUNCS:
	case LAUNCH_OPT_EDGES:
	case LAUNCH_OPT_DEPTH:
		if (parse_count(arg) < 1)
			return cmd_usage_error(l->cmd, "--%s wants a positive number",
					       pool_options[opt - LAUNCH_OPT_THREADS]);
		l->opt.pool[opt - LAUNCH_OPT_THREADS] = arg;
		break;
	case 'n':
		if ((v = parse_count(arg)) < 0)
			return cmd_usage_error(l->cmd, "--top wants a number, not '%s'", arg);
		l->opt.top = v;
		break;
	case 'q': l->opt.quiet = 1; break;
	case LAUNCH_OPT_KEEP_RAW: l->keep_raw = 1; break;
	default: return LAUNCH_NOT_MINE;
	}
	return 0;
}

int launch_parse(struct launch *l, int argc, char **argv, const char *short_options,
		 const struct option *options, const char *usage,
		 int (*own)(void *arg, int opt, const char *optarg), void *arg)
{
	int opt, status;
	optind = 1;
	while ((opt = getopt_long(argc, argv, short_options, options, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		status = shared_option(l, opt, optarg);
		if (status == LAUNCH_NOT_MINE)
			status = own(arg, opt, optarg);
		if (status == LAUNCH_NOT_MINE)
			return cmd_usage_error(l->cmd, "bad option");
		if (status)
			return status;
	}
	if (optind >= argc)
		return cmd_usage_error(l->cmd, "no program to run (zond %s -- PROG ARGS)", l->cmd);
	l->argv = argv + optind;
	return -1;
}

int launch_join_path(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int launch_find_part(char out[PATH_MAX], const char *env_var, const char *build_path,
		     const char *beside_bin, const char *install_path)
{
	const char *env = getenv(env_var);
	if (env && *env)
		return realpath(env, out) ? 0 : -1;
	if (build_path && *build_path && access(build_path, R_OK) == 0)
		return realpath(build_path, out) ? 0 : -1;
	char self[PATH_MAX], cand[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0)
		self[n] = 0;
	char *slash = n > 0 ? strrchr(self, '/') : NULL;
	if (slash) {
		*slash = 0;
		if (launch_join_path(cand, sizeof cand, self, beside_bin) == 0 &&
		    access(cand, R_OK) == 0 && realpath(cand, out))
			return 0;
	}
	snprintf(out, PATH_MAX, "%s", install_path);
	return access(install_path, R_OK) == 0 ? 0 : -1;
}

/* "\tlibm.so.6 => /lib/.../libm.so.6 (0x...)" or "\t/lib64/ld-linux-x86-64.so.2 (0x...)" */
static void each_listed_path(FILE *in, void (*fn)(void *arg, const char *path), void *arg)
{
	char line[PATH_MAX + 64];
	while (fgets(line, sizeof line, in)) {
		char *arrow = strstr(line, "=> "), *path = arrow ? arrow + 3 : line;
		path += strspn(path, " \t");
		if (*path != '/')
			continue;
		char *end = strstr(path, " (");
		if (end)
			*end = 0;
		path[strcspn(path, "\n")] = 0;
		fn(arg, path);
	}
}

int launch_each_library(const char *prog, void (*fn)(void *arg, const char *path), void *arg,
			struct zerr *err)
{
	char loader[PATH_MAX];
	int rc = symbols_interpreter(prog, loader, sizeof loader, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	int fds[2];
	if (pipe(fds) < 0)
		return zerr_set(err, "cannot list the libraries of %s: %s", prog, strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		unsetenv("LD_AUDIT");
		unsetenv("LD_PRELOAD");
		execl(loader, loader, "--list", prog, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	FILE *in = pid > 0 ? fdopen(fds[0], "r") : NULL;
	if (in) {
		each_listed_path(in, fn, arg);
		fclose(in);
	} else {
		close(fds[0]);
	}
	int status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return zerr_set(err, "%s: the loader %s could not list its libraries", prog, loader);
	return 0;
}

int launch_find_program(const char *prog, char out[PATH_MAX])
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
		if (launch_join_path(cand, sizeof cand, dir, prog) == 0 && stat(cand, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return realpath(cand, out) ? 0 : -1;
		path += n + (path[n] == ':');
	}
	return -1;
}

int launch_make_dir(struct launch *l, struct zerr *err)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(l->dir, sizeof l->dir, "%s/zond-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(l->dir))
		return zerr_set(err, "%s: cannot create a directory for raw data: %s", l->dir,
				strerror(errno));
	return 0;
}

void launch_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (launch_join_path(path, sizeof path, dir, e->d_name) == 0)
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

void launch_prepend_env(const char *var, const char *value)
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

static volatile sig_atomic_t stop_waiting;

static void on_stop_waiting(int sig)
{
	(void)sig;
	stop_waiting = 1;
}

/*
 * Processes the program left running when it ended (a daemon, an orphan):
 * zond is their subreaper (launch_run), so they are its children now; their
 * raw files are complete only once they have ended.  Ctrl-C (SIGINT) ends
 * the wait: the run then has what they recorded so far.
 */
static void wait_descendants(const struct launch *l)
{
	struct sigaction stop = {.sa_handler = on_stop_waiting}, old;
	sigemptyset(&stop.sa_mask);
	int said = 0;
	stop_waiting = 0;
	for (;;) {
		pid_t pid = waitpid(-1, NULL, said ? 0 : WNOHANG);
		if (pid > 0 || (pid < 0 && errno == EINTR && !stop_waiting))
			continue;
		if (pid < 0) /* ECHILD: none left, or Ctrl-C */
			break;
		fprintf(stderr,
			"zond %s: waiting for the processes %s left running (Ctrl-C: stop waiting, "
			"keep what they recorded so far)\n",
			l->cmd, l->prog);
		said = 1;
		sigaction(SIGINT, &stop, &old); /* no SA_RESTART: waitpid returns */
	}
	if (said)
		sigaction(SIGINT, &old, NULL);
}

int launch_run(struct launch *l, void (*setup)(void *arg), void *arg, struct zerr *err)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	l->start_ns = now_ns(CLOCK_REALTIME);
	int64_t t0 = now_ns(CLOCK_MONOTONIC);
	fflush(NULL);
	/* what the program leaves running is reparented to zond, not lost (wait_descendants) */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid_t pid = fork();
	if (pid < 0)
		return zerr_set(err, "cannot start %s: %s", l->prog, strerror(errno));
	if (pid == 0) {
		setenv("ZOND_DIR", l->dir, 1);
		if (l->opt.no_time)
			setenv("ZOND_NO_TIME", "1", 1);
		if (l->opt.fast_clock)
			setenv("ZOND_FAST_CLOCK", "1", 1);
		for (int i = 0; i < 4; i++)
			if (l->opt.pool[i])
				setenv(pool_vars[i], l->opt.pool[i], 1);
		setup(arg);
		execv(l->prog, l->argv);
		fprintf(stderr, "zond %s: %s: cannot run: %s\n", l->cmd, l->prog, strerror(errno));
		_exit(127);
	}
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	wait_descendants(l);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	l->duration_ns = now_ns(CLOCK_MONOTONIC) - t0;
	l->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	l->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads every raw file of l->dir into p, oldest process first (launch_collect). */
static int launch_read_raw(struct launch *l, struct zp_profile *p, const char *none,
			   struct zerr *err)
{
	DIR *d = opendir(l->dir);
	if (!d)
		return zerr_set(err, "%s: %s", l->dir, strerror(errno));
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
	if (n)
		qsort(names, n, sizeof *names, compare_names);

	struct symbols *syms = symbols_new();
	int rc = n ? 0 : zerr_set(err, "%s %s", l->prog, none);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct zerr one;
		int bad = launch_join_path(path, sizeof path, l->dir, names[i]) < 0
				  ? zerr_set(&one, "%s/%s: path too long", l->dir, names[i])
				  : raw_read_into(p, path, syms, &one);
		if (bad < 0) {
			fprintf(stderr, "zond %s: %s\n", l->cmd, one.msg);
			rc = zerr_set(err, "some raw data could not be read; kept in %s", l->dir);
			l->keep_raw = 1;
		}
		free(names[i]);
	}
	free(names);
	symbols_free(syms);
	return rc;
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

/* The run's command, collector, campaign, host, times and status. */
static void launch_describe(const struct launch *l, struct zp_profile *p, const char *collector)
{
	struct utsname u;
	char *cmd = join_command(l->argv);
	profile_set_str(&p->run.command, cmd);
	free(cmd);
	profile_set_str(&p->run.collector, collector);
	profile_set_str(&p->run.campaign, l->opt.campaign);
	if (uname(&u) == 0) {
		profile_set_str(&p->run.host, u.nodename);
		if (!p->run.arch)
			profile_set_str(&p->run.arch, u.machine);
	}
	p->run.start_ns = l->start_ns;
	p->run.duration_ns = l->duration_ns;
	p->run.exit_status = l->exit_status;
	p->run.term_signal = l->term_signal;
}

/* Stores p in the store at path; keeps the raw data when that fails. */
static int launch_store(struct launch *l, struct zp_profile *p, const char *path,
			struct zerr *err)
{
	struct store *s = store_open(path, STORE_CREATE, err);
	if (!s || store_add_run(s, p, err) < 0) {
		store_close(s);
		l->keep_raw = 1;
		return -1;
	}
	store_close(s);
	return 0;
}

/* "zond CMD: run N stored in STORE: ..." and the top functions by self time, on stderr. */
static void launch_summary(const struct launch *l, const struct zp_profile *p, const char *store,
			   long top)
{
	uint64_t calls = 0;
	for (size_t i = 0; i < p->nstats; i++)
		calls += p->stats[i].calls;
	fprintf(stderr, "zond %s: run %lld stored in %s: %zu functions, %llu calls, %zu threads\n",
		l->cmd, (long long)p->run.id, store, p->nnodes, (unsigned long long)calls,
		p->nthreads);
	if (top > 0) {
		struct report_options o = {.thread = ZP_NONE, .sort = SORT_SELF, .limit = (int)top};
		report_flat(p, &o, stderr);
	}
}

/* Removes the raw data (or says where it was kept); zond's exit status. */
static int launch_finish(struct launch *l, int failed)
{
	if (l->keep_raw)
		fprintf(stderr, "zond %s: raw data kept in %s\n", l->cmd, l->dir);
	else
		launch_remove_dir(l->dir);
	if (l->term_signal)
		return 128 + l->term_signal;
	/* The program's status is the user's; ours shows only when it had none. */
	return failed && l->exit_status == 0 ? 1 : l->exit_status;
}

int launch_collect(struct launch *l, const char *collector, const char *none)
{
	struct zerr err;
	struct zp_profile *p = profile_new();
	int failed = launch_read_raw(l, p, none, &err) < 0;
	if (failed)
		cmd_error(l->cmd, "%s", err.msg);
	if (p->nthreads) {
		launch_describe(l, p, collector);
		if (launch_store(l, p, l->opt.store, &err) < 0)
			failed = cmd_error(l->cmd, "%s", err.msg);
		else if (!l->opt.quiet)
			launch_summary(l, p, l->opt.store, l->opt.top);
	}
	profile_free(p);
	return launch_finish(l, failed);
}
