/* launch.c - running a program under a collector and reading what it left (launch.h). */
#include "launch.h"

#include <dirent.h>
#include <inttypes.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "output.h"
#include "progress.h"
#include "runinfo.h"
#include "ingest/raw_reader.h"
#include "raw.h"
#include "report/report.h"
#include "store/store.h"
#include "symbols/symbols.h"
#include "util/clock.h"
#include "util/fds.h"
#include "util/forward.h"

void launch_init(struct launch *l, const char *cmd)
{
	*l = (struct launch){.cmd = cmd, .opt = {.store = STORE_DEFAULT_PATH, .top = 10},
			     .lock_fd = -1};
}

static const char *const pool_vars[5] = {"ZOND_THREADS", "ZOND_FUNCS", "ZOND_EDGES",
					 "ZOND_DEPTH", "ZOND_CONTEXTS"};
static const char *const pool_options[5] = {"threads", "funcs", "edges", "depth", "contexts"};
/* The runtime's limits (runtime/linux/port.c): above them it would use its default. */
static const long pool_max[5] = {1L << 16, 1L << 24, 1L << 26, 1L << 20, 1L << 26};
static const long pool_default[5] = {64, 16384, 65536, 4096, 1L << 20};

/* Takes opt if it is a shared option: 0, else LAUNCH_NOT_MINE or a usage error's status. */
static int shared_option(struct launch *l, int opt, const char *arg)
{
	long v;
	switch (opt) {
	case 'o': l->opt.store = arg; break;
	case LAUNCH_OPT_NO_TIME: l->opt.no_time = 1; break;
	case LAUNCH_OPT_FAST_CLOCK: l->opt.fast_clock = 1; break;
	case 'c':
		if (!*arg)
			return cmd_usage_error(l->cmd, "-c wants a campaign name, not ''");
		l->opt.campaign = arg;
		break;
	case LAUNCH_OPT_THREADS:
	case LAUNCH_OPT_FUNCS:
	case LAUNCH_OPT_EDGES:
	case LAUNCH_OPT_DEPTH:
	case LAUNCH_OPT_CONTEXTS:
		v = parse_count(arg);
		if (v < 1 || v > pool_max[opt - LAUNCH_OPT_THREADS])
			return cmd_usage_error(l->cmd, "--%s wants a number from 1 to %ld, not '%s'",
					       pool_options[opt - LAUNCH_OPT_THREADS],
					       pool_max[opt - LAUNCH_OPT_THREADS], arg);
		l->opt.pool[opt - LAUNCH_OPT_THREADS] = arg;
		break;
	case 'n':
		if ((v = parse_count(arg)) < 0)
			return cmd_usage_error(l->cmd, "--top wants a number, not '%s'", arg);
		l->opt.top = v;
		break;
	case LAUNCH_OPT_TIME:
		if (strcmp(arg, "sampled") != 0 && strcmp(arg, "exact") != 0)
			return cmd_usage_error(l->cmd, "--time wants sampled or exact, not '%s'", arg);
		l->opt.time = arg;
		break;
	case LAUNCH_OPT_SAMPLE_PERIOD:
		/* the runtime's bounds: 10 us to 10 s */
		if ((v = parse_count(arg)) < 10000 || v > 10000000000L)
			return cmd_usage_error(l->cmd,
					       "--sample-period wants a number of ns from 10000 to "
					       "10000000000, not '%s'",
					       arg);
		l->opt.sample_period = arg;
		break;
	case LAUNCH_OPT_TIMELINE:
		if (!l->opt.timeline)
			l->opt.timeline = LAUNCH_TIMELINE_DEFAULT;
		break;
	case LAUNCH_OPT_TIMELINE_SIZE:
		if ((v = parse_count(arg)) < 1 || v > LAUNCH_TIMELINE_MAX)
			return cmd_usage_error(
				l->cmd, "--timeline-size wants a number from 1 to %ld, not '%s'",
				LAUNCH_TIMELINE_MAX, arg);
		l->opt.timeline = v;
		break;
	case LAUNCH_OPT_TIMELINE_KEEP:
		if (strcmp(arg, "oldest") != 0 && strcmp(arg, "newest") != 0)
			return cmd_usage_error(
				l->cmd, "--timeline-keep wants oldest or newest, not '%s'", arg);
		l->opt.timeline_keep = arg;
		break;
	case 'q': l->opt.quiet = 1; break;
	case LAUNCH_OPT_NO_PROGRESS: l->opt.no_progress = 1; break;
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
			return opt == '?' || opt == ':'
				       ? cmd_bad_option(l->cmd, argv, short_options)
				       : cmd_usage_error(l->cmd, "bad option");
		if (status)
			return status;
	}
	if (l->opt.timeline && l->opt.no_time)
		return cmd_usage_error(l->cmd,
				       "--timeline needs the calls' frames: not with --no-time");
	if (l->opt.no_time && l->opt.time)
		return cmd_usage_error(l->cmd, "--no-time and --time %s: one or the other",
				       l->opt.time);
	if (l->opt.fast_clock && (l->opt.no_time || (l->opt.time && strcmp(l->opt.time, "exact"))))
		return cmd_usage_error(l->cmd, "--fast-clock goes with --time exact");
	if (l->opt.timeline_keep && !l->opt.timeline)
		l->opt.timeline = LAUNCH_TIMELINE_DEFAULT;
	l->argv = argv + optind;
	if (optind >= argc && !l->program_optional)
		return cmd_usage_error(l->cmd, "no program to run (zond %s -- PROG ARGS)", l->cmd);
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

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__riscv)
#define HOST_MACHINE EM_RISCV
#else
#define HOST_MACHINE EM_NONE
#endif

/*
 * Whether the file at path is a program this machine runs natively: an ELF
 * file of our architecture and class, or a script (#!).  0, or -1 with err.
 */
static int check_runnable(const char *path, struct zerr *err)
{
	char start[2] = {0};
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return zerr_set(err, "%s: cannot read: %s", path, strerror(errno));
	ssize_t n = read(fd, start, sizeof start);
	close(fd);
	if (n == 2 && memcmp(start, "#!", 2) == 0)
		return 0;
	struct symbols_elf h;
	int elf = symbols_elf_header(path, &h, err);
	if (elf < 0)
		return -1;
	if (elf == 0)
		return zerr_set(err, "%s: not a program: neither an ELF file nor a script (#!)",
				path);
	if (h.type != ET_EXEC && h.type != ET_DYN)
		return zerr_set(err, "%s: an ELF file but not a program (ELF type %u)", path, h.type);
	const char *name = symbols_machine_name(h.machine);
	if (HOST_MACHINE != EM_NONE && h.machine != HOST_MACHINE) {
		if (name)
			return zerr_set(err, "%s: an %s program; this machine runs %s (zond trace "
					     "record runs other architectures under QEMU)",
					path, name, symbols_machine_name(HOST_MACHINE));
		return zerr_set(err, "%s: a program for another architecture (ELF machine %u)",
				path, h.machine);
	}
	if (h.bits != 64)
		return zerr_set(err, "%s: a 32-bit program; zond's runtime is 64-bit", path);
	return 0;
}

/* A file found for prog: a regular, executable file. */
static int check_program_file(const char *path, struct zerr *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return zerr_set(err, "%s: %s", path,
				errno == ENOENT ? "program not found" : strerror(errno));
	if (S_ISDIR(st.st_mode))
		return zerr_set(err, "%s: is a directory, not a program", path);
	if (!S_ISREG(st.st_mode))
		return zerr_set(err, "%s: not a regular file, not a program", path);
	if (access(path, X_OK) != 0 || !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		return zerr_set(err, "%s: not executable (no execute permission)", path);
	return 0;
}

int launch_find_path(const char *prog, char found[PATH_MAX], struct zerr *err)
{
	*found = 0;
	if (strchr(prog, '/')) {
		snprintf(found, PATH_MAX, "%s", prog);
	} else {
		const char *path = getenv("PATH");
		if (!path)
			path = "/usr/local/bin:/usr/bin:/bin";
		/* execvp's choice: the first executable regular file along PATH */
		while (*path) {
			size_t n = strcspn(path, ":");
			char dir[PATH_MAX], cand[PATH_MAX];
			snprintf(dir, sizeof dir, "%.*s", (int)(n ? n : 1), n ? path : ".");
			struct stat st;
			if (launch_join_path(cand, sizeof cand, dir, prog) == 0 &&
			    stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
				snprintf(found, PATH_MAX, "%s", cand);
				break;
			}
			path += n + (path[n] == ':');
		}
		if (!*found)
			return zerr_set(err, "%s: program not found in PATH", prog);
	}
	return check_program_file(found, err);
}

int launch_find_file(const char *prog, char out[PATH_MAX], struct zerr *err)
{
	char found[PATH_MAX];
	if (launch_find_path(prog, found, err) < 0)
		return -1;
	if (!realpath(found, out))
		return zerr_set(err, "%s: %s", found, strerror(errno));
	return 0;
}

int launch_secure_exec(const char *prog)
{
	struct stat st;
	struct statvfs fs;
	if (stat(prog, &st) != 0 || (statvfs(prog, &fs) == 0 && (fs.f_flag & ST_NOSUID)))
		return 0;
	/* set-group-ID without group execute is mandatory locking, not an id */
	int uid = (st.st_mode & S_ISUID) && st.st_uid != getuid();
	int gid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getgid();
	return uid || gid;
}

int launch_program_error(const char *cmd, const char *prog, const struct zerr *err)
{
	char found[PATH_MAX];
	struct zerr ignored;
	struct stat st;
	int there = strchr(prog, '/') ? stat(prog, &st) == 0
				     : launch_find_file(prog, found, &ignored) == 0;
	cmd_error(cmd, "%s", err->msg);
	return there ? 126 : 127;
}

int launch_find_program(const char *prog, char out[PATH_MAX], struct zerr *err)
{
	if (launch_find_file(prog, out, err) < 0)
		return -1;
	return check_runnable(out, err) < 0 ? -1 : 0;
}

/*
 * The runtime's variables that no option of zond's sets, passed on from
 * zond's environment as they are: expert knobs (doc/architecture.md).
 */
static const char *const knob_vars[] = {"ZOND_SAMPLER", "ZOND_SAMPLE_SIGNAL", "ZOND_SAMPLE_PCS",
					"ZOND_WRAPPER"};

/* The knobs set in zond's environment, "VAR=value" words quoted as a shell reads them, or NULL. */
static char *knobs_set(void)
{
	char *words[sizeof knob_vars / sizeof *knob_vars + 1];
	size_t n = 0;
	for (size_t i = 0; i < sizeof knob_vars / sizeof *knob_vars; i++) {
		const char *v = getenv(knob_vars[i]);
		if (!v)
			continue;
		words[n] = zp_xmalloc(strlen(knob_vars[i]) + strlen(v) + 2);
		sprintf(words[n++], "%s=%s", knob_vars[i], v);
	}
	words[n] = NULL;
	char *joined = n ? cmd_join_argv(words) : NULL;
	while (n > 0)
		free(words[--n]);
	return joined;
}

/* path made absolute against the working directory (allocated): recover may run elsewhere */
static char *absolute_path(const char *path)
{
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	if (!cwd)
		return zp_xstrdup(path);
	char *abs = zp_xmalloc(strlen(cwd) + strlen(path) + 2);
	sprintf(abs, "%s/%s", cwd, path);
	free(cwd);
	return abs;
}

/* What is known of the run before it starts, for `zond recover DIR` (runinfo.h). */
static int write_run_info(const struct launch *l, const char *collector, struct zerr *err)
{
	char *cmd = cmd_join_argv(l->argv), *store = absolute_path(l->opt.store);
	struct runinfo ri = {.collector = (char *)collector, .program = (char *)l->prog,
			     .command = cmd, .store = store, .campaign = (char *)l->opt.campaign,
			     .knobs = l->knobs, .token = (char *)l->token};
	int rc = runinfo_write(l->dir, &ri, err);
	free(cmd);
	free(store);
	return rc;
}

/*
 * The run's identity, noted in run.info before the program starts and stored
 * with the run (run meta run_token): a recover of a run its store holds
 * already (zond killed after the commit, before removing its directory) is
 * refused.  Random, else time and pid: unique enough for one store.
 */
static void make_token(struct launch *l)
{
	unsigned char b[16];
	if (getrandom(b, sizeof b, GRND_NONBLOCK) != (ssize_t)sizeof b) {
		int64_t t = clock_now_ns(CLOCK_REALTIME);
		pid_t pid = getpid();
		memcpy(b, &t, 8);
		memcpy(b + 8, &pid, sizeof pid);
		memset(b + 8 + sizeof pid, 0x5a, 8 - sizeof pid);
	}
	for (size_t i = 0; i < sizeof b; i++)
		sprintf(l->token + 2 * i, "%02x", b[i]);
}

int launch_prepare(struct launch *l, const char *collector, struct zerr *err)
{
	const char *inputs[] = {l->prog, NULL};
	forward_own_pipe(); /* before zond's first line: a closed stderr costs its lines alone */
	int busy = output_check(l->opt.store, OUTPUT_STORE, inputs, err);
	if (busy < 0)
		return -1;
	if (busy) /* the program need not wait for the store: only its run does */
		fprintf(stderr,
			"zond %s: %s: locked by another process: running %s all the same; its run "
			"is stored when the lock goes (zond waits up to 30 s once it ends), else its "
			"raw data is kept for 'zond recover'\n",
			l->cmd, l->opt.store, l->argv[0]);
	const char *tmp = getenv("TMPDIR");
	snprintf(l->dir, sizeof l->dir, "%s/zond-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	l->knobs = knobs_set();
	make_token(l);
	if (!mkdtemp(l->dir))
		return zerr_set(err, "%s: cannot create a directory for raw data: %s", l->dir,
				strerror(errno));
	pid_t holder;
	/* first: no recover takes the directory for a killed zond's while the run goes on */
	l->lock_fd = runinfo_lock(l->dir, 1, &holder, err);
	if (l->lock_fd < 0 || write_run_info(l, collector, err) < 0) {
		launch_remove_dir(l->dir);
		return -1;
	}
	return 0;
}

/*
 * Removes what zond put in dir but the n files named in keep (raw files not
 * stored); when any is kept, run.info and the lock stay too (a recover then
 * says the run is stored already) and so does dir.
 */
static void remove_dir_but(const char *dir, char *const *keep, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	while (d && (e = readdir(d))) {
		/* only what zond puts there: a directory given to recover may hold more */
		if (fnmatch("*.zraw", e->d_name, 0) && strcmp(e->d_name, RUNINFO_FILE) &&
		    strcmp(e->d_name, LAUNCH_FILTER_FILE) && strcmp(e->d_name, RUNINFO_STORED) &&
		    strcmp(e->d_name, LAUNCH_ELF_COPY))
			continue;
		int kept = n && !strcmp(e->d_name, RUNINFO_FILE);
		for (size_t i = 0; i < n && !kept; i++)
			kept = !strcmp(e->d_name, keep[i]);
		if (!kept && launch_join_path(path, sizeof path, dir, e->d_name) == 0)
			unlink(path);
	}
	if (d)
		closedir(d);
	if (n)
		return;
	/* the lock last: a recover that finds none finds nothing else either (runinfo.h) */
	if (launch_join_path(path, sizeof path, dir, RUNINFO_LOCK) == 0)
		unlink(path);
	rmdir(dir);
}

void launch_remove_dir(const char *dir)
{
	remove_dir_but(dir, NULL, 0);
}

/* Sets var to value joined to its old value by ':', value first or last. */
static void join_env(const char *var, const char *value, int first)
{
	const char *old = getenv(var);
	if (!old || !*old) {
		setenv(var, value, 1);
		return;
	}
	char *both = zp_xmalloc(strlen(value) + strlen(old) + 2);
	sprintf(both, "%s:%s", first ? value : old, first ? old : value);
	setenv(var, both, 1);
	free(both);
}

void launch_set_env(const char *var, const char *value)
{
	if (value)
		setenv(var, value, 1);
	else
		unsetenv(var);
}

void launch_prepend_env(const char *var, const char *value)
{
	join_env(var, value, 1);
}

void launch_append_env(const char *var, const char *value)
{
	join_env(var, value, 0);
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
		if (pid > 0 || (pid < 0 && errno == EINTR && !stop_waiting && !forward_held()))
			continue;
		if (pid < 0 || forward_held()) /* ECHILD: none left; Ctrl-C; asked to stop */
			break;
		/* even with -q: it says why zond has not ended although the program has */
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

static void run_child(struct launch *l, void (*setup)(void *arg), void *arg,
		      const struct forward *fw, const sigset_t *mask)
{
	char timeline[32];
	snprintf(timeline, sizeof timeline, "%ld", l->opt.timeline);
	setenv("ZOND_DIR", l->dir, 1);
	launch_set_env("ZOND_NO_TIME", l->opt.no_time ? "1" : NULL);
	launch_set_env("ZOND_FAST_CLOCK", l->opt.fast_clock ? "1" : NULL);
	launch_set_env("ZOND_TIME", l->opt.time);
	launch_set_env("ZOND_SAMPLE_PERIOD", l->opt.sample_period);
	for (int i = 0; i < 5; i++)
		launch_set_env(pool_vars[i], l->opt.pool[i]);
	launch_set_env("ZOND_TIMELINE", l->opt.timeline ? timeline : NULL);
	launch_set_env("ZOND_TIMELINE_KEEP",
		       !l->opt.timeline	       ? NULL
		       : l->opt.timeline_keep ? l->opt.timeline_keep
					      : "oldest");
	setup(arg);
	/* the program's own dispositions before anything pending is delivered */
	forward_restore(fw);
	sigprocmask(SIG_SETMASK, mask, NULL);
	/*
	 * As a shell would: the path as typed, or execvp's search (l->prog is
	 * the same file, its real path), so that the program's AT_EXECFN is
	 * what it is plainly.
	 */
	if (strchr(l->argv[0], '/'))
		execv(l->argv[0], l->argv);
	else
		execvp(l->argv[0], l->argv);
	fprintf(stderr, "zond %s: %s: cannot run: %s\n", l->cmd, l->prog, strerror(errno));
	_exit(127);
}

/*
 * Once the program has ended, a signal to zond (forward.h) is the user's
 * "stop": the first lets the run be stored, a second leaves its raw data for
 * `zond recover`.  The lines are static: a handler may run after launch's
 * callers have returned.
 */
static void hold_signals(const struct launch *l)
{
	static char head[64], again[2 * PATH_MAX + 128];
	static const char tail[] = " after the program ended: storing its run first (send it "
				   "again to stop and keep the raw data for 'zond recover')\n";
	snprintf(head, sizeof head, "zond %s: ", l->cmd);
	snprintf(again, sizeof again, "zond %s: raw data kept in %s ('zond recover %s' stores it)\n",
		 l->cmd, l->dir, l->dir);
	forward_hold(head, tail, again);
}

/* The progress line's figures: what the program's raw files hold so far. */
static void peek_raw(void *arg, struct progress_figures *f)
{
	const struct launch *l = arg;
	struct raw_peek pk = {0};
	raw_peek_dir(l->dir, &pk);
	*f = (struct progress_figures){.count_unit = "calls", .count = pk.calls,
				       .bytes_what = "raw", .bytes = pk.bytes, .lost = pk.lost};
}

int launch_run(struct launch *l, void (*setup)(void *arg), void *arg, struct zerr *err)
{
	struct forward fw;
	sigset_t block, mask;
	sigemptyset(&block);
	for (size_t i = 0; i < FORWARD_N; i++)
		sigaddset(&block, forward_signals[i]);
	l->start_ns = clock_now_ns(CLOCK_REALTIME);
	int64_t t0 = clock_now_ns(CLOCK_MONOTONIC);
	fflush(NULL);
	/* what the program leaves running is reparented to zond, not lost (wait_descendants) */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fds_keep_own();
	/* blocked until forward_to names the program: none is lost between fork and wait */
	sigprocmask(SIG_BLOCK, &block, &mask);
	forward_start(&fw);
	pid_t pid = fork();
	if (pid == 0)
		run_child(l, setup, arg, &fw, &mask);
	forward_to(pid);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (pid < 0) {
		forward_stop(&fw);
		return zerr_set(err, "cannot start %s: %s", l->prog, strerror(errno));
	}
	int status;
	struct progress pr;
	progress_start(&pr, l->cmd, !l->opt.quiet && !l->opt.no_progress);
	progress_wait(&pr, pid, &status, peek_raw, l);
	hold_signals(l);
	forward_stop(&fw);
	wait_descendants(l);
	l->duration_ns = clock_now_ns(CLOCK_MONOTONIC) - t0;
	l->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	l->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	struct runinfo end = {.start_ns = l->start_ns, .duration_ns = l->duration_ns,
			      .exit_status = l->exit_status, .term_signal = l->term_signal};
	struct zerr ignored; /* recover then stores the run with its end unknown */
	runinfo_append_end(l->dir, &end, &ignored);
	return 0;
}

/*
 * Raw files' names, <pid>.<n>.zraw, by pid then n as numbers: the images of
 * one process in the order they ran (an exec'ed image names the threads it
 * continues, raw_read_into), "5.10" after "5.9".  Other names after, by bytes.
 */
static int compare_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	unsigned long long px, nx, py, ny;
	int kx = sscanf(x, "%llu.%llu.zraw", &px, &nx) == 2,
	    ky = sscanf(y, "%llu.%llu.zraw", &py, &ny) == 2;
	if (kx != ky)
		return kx ? -1 : 1;
	if (kx && (px != py || nx != ny))
		return px != py ? (px < py ? -1 : 1) : (nx < ny ? -1 : 1);
	return strcmp(x, y);
}

/* Reads every raw file of l->dir into p, by pid, each process's images in the order they ran (launch_collect). */
static int launch_read_raw(struct launch *l, struct zp_profile *p, struct zerr *err)
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
	l->nraw = n;
	if (n)
		zp_sort(names, n, sizeof *names, compare_names);

	/* each process's pid first: two in pid namespaces of their own may share one */
	char **paths = zp_xcalloc(n ? n : 1, sizeof *paths);
	int64_t *pids = zp_xcalloc(n ? n : 1, sizeof *pids);
	for (size_t i = 0; i < n; i++) {
		paths[i] = zp_xmalloc(PATH_MAX);
		if (launch_join_path(paths[i], PATH_MAX, l->dir, names[i]) < 0)
			paths[i][0] = 0;
	}
	raw_process_ids((const char *const *)paths, n, pids);
	struct symbols *syms = symbols_new();
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		const char *path = paths[i];
		struct zerr one;
		int bad = !*path ? zerr_set(&one, "%s/%s: path too long", l->dir, names[i])
				 : raw_read_as(p, path, pids[i], syms, &one);
		if (bad < 0) { /* launch_collect says what becomes of it */
			l->damaged = zp_xrealloc(l->damaged, (l->ndamaged + 1) * sizeof *l->damaged);
			l->damaged_why = zp_xrealloc(l->damaged_why,
						     (l->ndamaged + 1) * sizeof *l->damaged_why);
			l->damaged[l->ndamaged] = names[i];
			l->damaged_why[l->ndamaged++] = zp_xstrdup(one.msg);
			continue;
		}
		free(names[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(pids);
	free(names);
	symbols_free(syms);
	return rc;
}

/* The run's command, collector, campaign, host, times and status. */
/*
 * record -F/-N: the functions the filter file did not cover (objects loaded
 * later, programs run), recorded as they ran: run meta unfiltered_functions
 * and unfiltered_module (the first one's object).
 */
static void note_unfiltered(const struct launch *l, struct zp_profile *p)
{
	char path[PATH_MAX], n[32];
	const char *first;
	if (launch_join_path(path, sizeof path, l->dir, LAUNCH_FILTER_FILE) < 0)
		return;
	size_t count = name_filter_unapplied(path, p, &first);
	if (!count)
		return;
	snprintf(n, sizeof n, "%zu", count);
	profile_add_meta(p, "unfiltered_functions", n);
	profile_add_meta(p, "unfiltered_module", first);
}

static void launch_describe(const struct launch *l, struct zp_profile *p, const char *collector)
{
	struct utsname u;
	char *cmd = l->command ? NULL : cmd_join_argv(l->argv);
	profile_set_str(&p->run.command, l->command ? l->command : cmd);
	free(cmd);
	profile_set_str(&p->run.collector, collector);
	profile_set_str(&p->run.campaign, l->opt.campaign);
	if (uname(&u) == 0) {
		profile_set_str(&p->run.host, u.nodename);
		if (!p->run.arch)
			profile_set_str(&p->run.arch, u.machine);
	}
	if (l->start_ns)
		p->run.start_ns = l->start_ns;
	p->run.duration_ns = l->duration_ns;
	p->run.exit_status = l->exit_status;
	p->run.term_signal = l->term_signal;
	if (l->end_unknown && l->exit_status < 0 && !l->term_signal)
		profile_add_meta(p, "end_unknown", l->end_unknown);
	if (l->host_clock) /* QEMU without -icount: the cycles are not instructions */
		profile_add_meta(p, "host_clock", "1");
	if (l->knobs) /* the runtime ran as no option of zond's says */
		profile_add_meta(p, "zond_env", l->knobs);
	if (*l->token)
		profile_add_meta(p, STORE_RUN_TOKEN, l->token);
	note_unfiltered(l, p);
}

/*
 * Stores p in the store at path; keeps the raw data when that fails.  0, 1
 * when the store held the run already (its id in p->run.id), or -1.
 */
static int launch_store(struct launch *l, struct zp_profile *p, const char *path,
			struct zerr *err)
{
	int rc = store_save_run(path, p, err);
	if (rc < 0)
		l->keep_raw = 1;
	return rc;
}

uint64_t launch_total_calls(const struct zp_profile *p)
{
	uint64_t calls = 0;
	for (size_t i = 0; i < p->nstats; i++)
		calls += p->stats[i].calls;
	return calls;
}

static const char *const lost_keys[5] = {"lost_threads", "lost_funcs", "lost_edges",
					 "lost_frames", "lost_contexts"};

/* The option that sizes the table whose overflow a lost_* fact counts, if any. */
static const char *lost_option(const char *key)
{
	for (int i = 0; i < 5; i++)
		if (strcmp(key, lost_keys[i]) == 0)
			return pool_options[i];
	return NULL;
}

/*
 * The same for a bare-metal target, whose pools are fixed when its runtime
 * is built (runtime/bare/bare.h, doc/bare-metal.md "memory"): the macro that
 * sizes it, if any (one hart: no thread table).
 */
static const char *lost_bare_macro(const char *key)
{
	static const char *const macros[5] = {NULL, "ZOND_BARE_FUNCS", "ZOND_BARE_EDGES",
					      "ZOND_BARE_DEPTH", "ZOND_BARE_CONTEXTS"};
	for (int i = 0; i < 5; i++)
		if (strcmp(key, lost_keys[i]) == 0)
			return macros[i];
	return strcmp(key, "lost_strings") == 0 ? "ZOND_BARE_STRINGS" : NULL;
}

/* The line for run meta fact key, as the report's header says it (report_warning_means). */
static void launch_warn_meta(const struct launch *l, const struct zp_profile *p, const char *key)
{
	const char *value = profile_meta(p, key);
	if (value && strcmp(value, "0") != 0)
		fprintf(stderr, "zond %s: warning: %s = %s (%s)\n", l->cmd, key, value,
			report_warning_means(p, key));
}

/* One line per lost_* fact: the profile is incomplete, and what to raise. */
static void launch_warn_lost(const struct launch *l, const struct zp_profile *p)
{
	for (size_t i = 0; i < p->run.nmeta; i++) {
		const char *key = p->run.meta[i].key, *opt = lost_option(key);
		if (strncmp(key, "lost_", 5) != 0 || !strcmp(key, "lost_raw_files"))
			continue; /* lost_raw_files: said per file (launch_collect) */
		/* the real cause (lost_causes); a context pool may end early for want of
		 * room or access too */
		const char *why = report_warning_means(p, key);
		if (strcmp(key, "lost_contexts") == 0 && profile_meta(p, "lost_room"))
			why = "a table was full or had no room to grow (see lost_room)";
		else if (strcmp(key, "lost_contexts") == 0 && profile_meta(p, "lost_access"))
			why = "a table was full or could not grow (see lost_access)";
		fprintf(stderr, "zond %s: warning: %s = %s: %s, the profile may be incomplete", l->cmd,
			key, p->run.meta[i].value, why);
		const char *macro = l->bare ? lost_bare_macro(key) : NULL;
		if (macro)
			fprintf(stderr, " (build zond's bare-metal runtime with a larger -D%s=N: "
					"cmake -DZOND_BARE_CFLAGS=-D%s=N, doc/bare-metal.md \"memory\")",
				macro, macro);
		else if (opt && !l->bare)
			fprintf(stderr, " (raise --%s)", opt);
		fputc('\n', stderr);
	}
	const char *ended = profile_meta(p, "timeline_ended_threads");
	if (ended)
		fprintf(stderr,
			"zond %s: warning: timeline_ended_threads = %s: the timeline events of "
			"threads that ended with their slots taken by new threads are not kept "
			"(raise --threads to as many threads as the run starts)\n",
			l->cmd, ended);
	const char *unfiltered = profile_meta(p, "unfiltered_functions");
	if (unfiltered)
		fprintf(stderr,
			"zond %s: warning: --filter/--exclude apply to the program and the "
			"libraries it loads at start-up: %s functions of objects loaded later or "
			"programs it ran (%s...) are recorded unfiltered\n",
			l->cmd, unfiltered, profile_meta(p, "unfiltered_module"));
	/* even with -q: figures are short, or estimates */
	static const char *const weakened[] = {"inexact_sites", "clamped_times"};
	for (size_t i = 0; i < sizeof weakened / sizeof weakened[0]; i++)
		launch_warn_meta(l, p, weakened[i]);
	uint64_t each;
	double pct;
	if (report_sampling_costly(p, &each, &pct)) /* even with -q: shares are skewed */
		fprintf(stderr,
			"zond %s: warning: zond's sampling took %" PRIu64 " ns a sample: %.0f%% of "
			"the samples were its own work's, counted as zond's (run meta "
			"samples_sampling), but the shares are less true; take a longer "
			"--sample-period\n",
			l->cmd, each, pct);
	launch_warn_meta(l, p, "unstacked_calls"); /* even with -q: stacks are incomplete */
}

/* The functions called at least once (not "[no function]", a module, a function only sampled). */
static size_t called_functions(const struct zp_profile *p)
{
	char *called = zp_xcalloc(p->nnodes + 1, 1);
	size_t n = 0;
	for (size_t i = 0; i < p->nstats; i++) {
		uint32_t node = p->stats[i].node;
		if (p->stats[i].calls && node < p->nnodes && !called[node]++)
			n++;
	}
	free(called);
	return n;
}

/* "zond CMD: run N stored in STORE: ..." and the top functions by self time, on stderr. */
static void launch_summary(const struct launch *l, const struct zp_profile *p, const char *store,
			   long top)
{
	size_t nfuncs = called_functions(p);
	unsigned long long calls = launch_total_calls(p);
	fprintf(stderr, "zond %s: run %lld stored in %s: %zu function%s, %llu call%s, %zu thread%s\n",
		l->cmd, (long long)p->run.id, store, nfuncs, nfuncs == 1 ? "" : "s", calls,
		calls == 1 ? "" : "s", p->nthreads, p->nthreads == 1 ? "" : "s");
	if (top > 0) {
		struct report_options o = {.thread = ZP_NONE, .sort = SORT_SELF, .limit = (int)top};
		report_flat(p, &o, stderr);
	}
}
/*
 * About how much address space the runtime's tables take in each process
 * (runtime/core/core.c lays them out): every thread slot of the raw file,
 * and one thread's private hash indexes.
 */
static uint64_t pool_bytes(const struct launch *l, uint64_t *per_thread)
{
	long v[5];
	for (int i = 0; i < 5; i++)
		v[i] = l->opt.pool[i] ? parse_count(l->opt.pool[i]) : pool_default[i];
	*per_thread = (uint64_t)v[1] * sizeof(struct zr_func) +
		      (uint64_t)v[2] * sizeof(struct zr_edge) +
		      (uint64_t)v[3] * sizeof(struct zr_frame) +
		      (uint64_t)v[4] * sizeof(struct zr_context) +
		      (uint64_t)l->opt.timeline * sizeof(struct zr_event);
	return (uint64_t)v[0] * *per_thread + 8 * ((uint64_t)v[1] + (uint64_t)v[2] + (uint64_t)v[4]);
}

/*
 * ": lower --X, --Y or --Z": the options that size the runtime's tables, the
 * largest share first, those given on the command line only when any is.
 */
static void put_lower_hint(const struct launch *l, char *buf, size_t len)
{
	static const size_t record[5] = {0, sizeof(struct zr_func), sizeof(struct zr_edge),
					 sizeof(struct zr_frame), sizeof(struct zr_context)};
	const char *name[6] = {"threads", "funcs", "edges", "depth", "contexts", "timeline-size"};
	uint64_t bytes[6], per_thread;
	int set[6], order[6], any = 0, n = 0;
	uint64_t total = pool_bytes(l, &per_thread);
	long threads = l->opt.pool[0] ? parse_count(l->opt.pool[0]) : pool_default[0];
	bytes[0] = total - per_thread; /* what the threads beyond the first take */
	for (int i = 1; i < 5; i++) {
		long v = l->opt.pool[i] ? parse_count(l->opt.pool[i]) : pool_default[i];
		bytes[i] = (uint64_t)threads * (uint64_t)v * record[i];
	}
	bytes[5] = (uint64_t)threads * (uint64_t)l->opt.timeline * sizeof(struct zr_event);
	for (int i = 0; i < 6; i++) {
		set[i] = i < 5 ? l->opt.pool[i] != NULL : l->opt.timeline != 0;
		any |= set[i];
	}
	for (int i = 0; i < 6; i++) {
		if (any ? !set[i] : !bytes[i])
			continue;
		int k = n++;
		for (; k > 0 && bytes[order[k - 1]] < bytes[i]; k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	int w = snprintf(buf, len, ": lower");
	for (int k = 0; k < n && w > 0 && (size_t)w < len; k++)
		w += snprintf(buf + w, len - (size_t)w, "%s--%s",
			      k == 0 ? " " : k == n - 1 ? " or " : ", ", name[order[k]]);
}

/*
 * Whether a file of bytes can be made and mapped as the runtime does
 * (runtime/linux/port.c: ftruncate, then a shared mapping); 0, or the
 * errno of the step that failed, named in *step.
 */
static int probe_mapping(const char *dir, uint64_t bytes, const char **step)
{
	char path[PATH_MAX];
	int e = 0;
	*step = "create";
	if (launch_join_path(path, sizeof path, dir, "probe.zraw") < 0)
		return ENAMETOOLONG;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return errno;
	void *map = MAP_FAILED;
	*step = "ftruncate";
	if (bytes > INT64_MAX || ftruncate(fd, (off_t)bytes) != 0) {
		e = bytes > INT64_MAX ? EFBIG : errno;
	} else {
		*step = "mmap";
		map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		e = map == MAP_FAILED ? errno : 0;
	}
	if (map != MAP_FAILED)
		munmap(map, bytes);
	close(fd);
	unlink(path);
	return e;
}

/*
 * Why a program left no raw data at all when zond can tell: the runtime's
 * tables, as the pool options size them, cannot be made or mapped (too
 * large for the file system, the address space, ulimit -f or -v), or they
 * can but the runtime's file was cut to its header (lost_room: a full file
 * system, which a sparse probe does not see).  NULL if not.
 */
static const char *no_room(const struct launch *l, const struct zp_profile *p, char *buf,
			   size_t len)
{
	struct rlimit as, fsize;
	const char *step;
	uint64_t per_thread, need = pool_bytes(l, &per_thread);
	int e = probe_mapping(l->dir, need + (16 << 20), &step);
	if (!e && !profile_meta(p, "lost_room"))
		return NULL;
	if (!e) {
		/* the runtime cut its file to a header where a sparse probe passes: a file
		   system that cannot hold the pages (a full tmpfs) */
		const char *slash = strrchr(l->dir, '/');
		int dir_len =
			slash && slash != l->dir ? (int)(slash - l->dir) : (int)strlen(l->dir);
		snprintf(buf, len,
			 "the raw data had no room in %.*s (a full file system?): free "
			 "some, or set TMPDIR to a directory with room",
			 dir_len, l->dir);
		return buf;
	}
	int n = snprintf(buf, len, "the runtime's tables need about %llu MB per process (%s "
				   "threads x %.1f MB) and cannot be made (%s: %s)",
			 (unsigned long long)(need >> 20), l->opt.pool[0] ? l->opt.pool[0] : "64",
			 (double)per_thread / (1 << 20), step, strerror(e));
	if (n > 0 && (size_t)n < len && getrlimit(RLIMIT_AS, &as) == 0 &&
	    as.rlim_cur != RLIM_INFINITY && need + (64 << 20) >= as.rlim_cur)
		n += snprintf(buf + n, len - (size_t)n,
			      ", more than the address-space limit (ulimit -v) of %llu MB allows",
			      (unsigned long long)(as.rlim_cur >> 20));
	if (n > 0 && (size_t)n < len && getrlimit(RLIMIT_FSIZE, &fsize) == 0 &&
	    fsize.rlim_cur != RLIM_INFINITY && need >= fsize.rlim_cur)
		n += snprintf(buf + n, len - (size_t)n,
			      ", more than the file-size limit (ulimit -f) of %llu KB allows",
			      (unsigned long long)(fsize.rlim_cur >> 10));
	if (n > 0 && (size_t)n < len)
		put_lower_hint(l, buf + n, len - (size_t)n);
	return buf;
}

/*
 * Dies of sig as the program did, so that shells, parents and wait(2) see
 * what they would have seen without zond; no core of zond's own (it would
 * take the name of the program's).  Returns only if sig did not kill us.
 */
void launch_die_as(int sig)
{
	struct rlimit none = {0, 0};
	sigset_t set;
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/*
 * Notes in the kept directory that its run is stored (RUNINFO_STORED), so
 * that a recover of it does not store the run twice.  0, or -1 (said).
 */
static int mark_stored(const struct launch *l)
{
	char path[PATH_MAX];
	FILE *f = launch_join_path(path, sizeof path, l->dir, RUNINFO_STORED) == 0
			  ? fopen(path, "w") : NULL;
	int ok = f && fprintf(f, "%s\n", l->opt.store) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, "zond %s: %s: cannot note that the run is stored: a recover of %s "
				"would store it again\n", l->cmd, path, l->dir);
	return ok ? 0 : -1;
}

/*
 * Removes the raw data (or says where it was kept: failed, for recover);
 * zond's exit status.  A run not stored is lost as surely as one whose
 * store failed: `zond record -- ./t && zond report` must not show the last.
 */
static int launch_finish(struct launch *l, int failed, int stored)
{
	if (l->keep_raw && failed && !l->recovering)
		fprintf(stderr, "zond %s: raw data kept in %s ('zond recover %s' stores it)\n",
			l->cmd, l->dir, l->dir);
	else if (l->keep_raw && stored && mark_stored(l) == 0)
		fprintf(stderr, "zond %s: raw data kept in %s (its run is stored in %s)\n", l->cmd,
			l->dir, l->opt.store);
	else if (l->keep_raw && !(l->recovering && failed)) /* recover keeps what it failed on */
		fprintf(stderr, "zond %s: raw data kept in %s\n", l->cmd, l->dir);
	else if (!l->keep_raw && !(l->recovering && failed))
		/* a directory recover could not store stays as it was; raw files not stored stay */
		remove_dir_but(l->dir, l->damaged, l->ndamaged);
	if (l->recovering)
		return failed || !stored || l->ndamaged;
	if (l->term_signal) {
		launch_die_as(l->term_signal);
		return 128 + l->term_signal;
	}
	/* The program's status is the user's; ours shows when it had none (or none known). */
	return (failed || !stored) && l->exit_status <= 0 ? 1 : l->exit_status;
}

int launch_read_info(struct launch *l, struct runinfo *ri, struct zerr *err)
{
	int found = runinfo_read(l->dir, ri, err);
	if (found <= 0)
		return found;
	if (ri->program && strlen(ri->program) >= sizeof l->prog) {
		runinfo_free(ri);
		return zerr_set(err, "%s/%s: the program's path is longer than a path can be",
				l->dir, RUNINFO_FILE);
	}
	if (ri->program)
		snprintf(l->prog, sizeof l->prog, "%s", ri->program);
	if (ri->token && strlen(ri->token) < sizeof l->token)
		snprintf(l->token, sizeof l->token, "%s", ri->token);
	l->knobs = ri->knobs ? zp_xstrdup(ri->knobs) : NULL; /* launch_collect frees it */
	l->start_ns = ri->start_ns;
	l->duration_ns = ri->duration_ns;
	l->exit_status = ri->exit_status;
	l->term_signal = ri->term_signal;
	return 1;
}

/*
 * Why nothing was recorded when the program ended (a signal, a status other
 * than 0) with no raw file written: no runtime started in any of its
 * processes, so whatever it was built with never came into it (a crash in
 * the C library's start-up, a loader's error); NULL otherwise, and for a
 * bare-metal target, whose runtime writes no raw file.
 */
static const char *early_death(const struct launch *l, char *buf, size_t len)
{
	if (l->bare || l->nraw || l->ndamaged || (l->term_signal <= 0 && l->exit_status <= 0))
		return NULL;
	int n = l->term_signal > 0
			? snprintf(buf, len, "the program was killed by signal %d (%s)",
				   l->term_signal, strsignal(l->term_signal))
			: snprintf(buf, len, "the program exited with status %d", l->exit_status);
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      " before zond's runtime started in it (before main): nothing of it "
			      "ran under zond%s%s",
			      l->early_death_hint ? "; " : "",
			      l->early_death_hint ? l->early_death_hint : "");
	return buf;
}

int launch_collect(struct launch *l, const char *collector, const char *none)
{
	struct zerr err;
	char why[PATH_MAX + 512];
	/* The program is over: a write of zond's past ulimit -f (the store, no_room's
	   probe) must fail with EFBIG and be reported, not kill zond with the run. */
	signal(SIGXFSZ, SIG_IGN);
	forward_own_pipe(); /* recover's: a closed stderr costs zond's lines, not the run */
	struct zp_profile *p = profile_new();
	int stored = 0, failed = launch_read_raw(l, p, &err) < 0;
	if (failed)
		cmd_error(l->cmd, "%s", err.msg);
	int some = p->nthreads && launch_total_calls(p);
	if (l->ndamaged && some) {
		/* what can be read is stored, the loss with it; the files not stored are kept */
		char n[32];
		snprintf(n, sizeof n, "%zu", l->ndamaged);
		profile_add_meta(p, "lost_raw_files", n);
	} else if (l->ndamaged) {
		/* nothing else to store: the files kept as they are, for a look */
		for (size_t i = 0; i < l->ndamaged; i++)
			fprintf(stderr, "zond %s: %s\n", l->cmd, l->damaged_why[i]);
		l->keep_raw = 1;
		failed = 1;
	}
	if (some) {
		launch_describe(l, p, collector);
		int rc = launch_store(l, p, l->opt.store, &err);
		stored = rc >= 0;
		forward_defer(); /* stored, or kept for recover: nothing a signal could save */
		if (!stored)
			failed = cmd_error(l->cmd, "%s", err.msg);
		else if (rc == 1) /* not twice: its zond stored it, then died before cleaning up */
			failed = cmd_error(l->cmd, "%s: already stored as run %lld in %s: not stored "
						   "again", l->dir, (long long)p->run.id, l->opt.store);
		else if (!l->opt.quiet)
			launch_summary(l, p, l->opt.store, l->opt.top);
		if (rc == 0)
			launch_warn_lost(l, p);
		for (size_t i = 0; rc == 0 && i < l->ndamaged; i++) /* even with -q */
			fprintf(stderr, "zond %s: %s: that process is not in run %lld (run meta "
					"lost_raw_files), its file is kept in %s\n",
				l->cmd, l->damaged_why[i], (long long)p->run.id, l->dir);
	} else if (!failed) {
		/* nothing to store: say why (the raw data is worth nothing to recover) */
		forward_defer();
		const char *room = p->nthreads ? NULL : no_room(l, p, why, sizeof why);
		if (!room)
			room = early_death(l, why, sizeof why);
		fprintf(stderr, "zond %s: %s: no run stored: %s\n", l->cmd, l->prog,
			room ? room : none);
		failed = l->recovering;
	}
	profile_free(p);
	int status = launch_finish(l, failed, stored);
	free(l->knobs);
	l->knobs = NULL;
	for (size_t i = 0; i < l->ndamaged; i++) {
		free(l->damaged[i]);
		free(l->damaged_why[i]);
	}
	free(l->damaged);
	free(l->damaged_why);
	l->damaged = l->damaged_why = NULL;
	l->ndamaged = 0;
	return status;
}
