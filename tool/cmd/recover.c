/*
 * recover.c - `zond recover DIR`: store the raw data of a run that zond
 * could not store itself (zond was killed, the store failed: "raw data kept
 * in DIR").
 *
 * DIR is the directory `zond record` or `zond libcalls` made for the run;
 * its run.info (launch.h) says what was known before and after the program
 * ran: command, collector, store, campaign, times and status.  Without it
 * the run is stored as a record run of unknown command and status.  The raw
 * files are read as launch_collect reads them; once stored, the files zond
 * put in DIR are removed (unless --keep-raw).  A DIR whose zond still runs
 * (its run goes on, or is being stored), or that another recover is at, is
 * refused: DIR's lock (runinfo.h) says so and names that zond.  So is a DIR
 * whose program still runs (its zond killed): its raw headers name the
 * processes, still writing their files (still_running).  A DIR whose
 * run its store holds already (run.info's token, run meta run_token) is
 * refused too: a run is never stored twice.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"
#include "output.h"
#include "raw.h"
#include "runinfo.h"
#include "store/store.h"

static const char usage_text[] =
	"usage: zond recover [options] DIR\n"
	"Store the raw data a run left in DIR (\"raw data kept in DIR\": zond was killed,\n"
	"or the store could not be written) as a run, with what is known of it.  A DIR\n"
	"whose zond or program is still alive (its run goes on), or whose run is\n"
	"stored already (kept with --keep-raw, or zond killed after storing it), is\n"
	"refused.  A run whose zond was killed takes its status and end from the\n"
	"program's raw files.\n\n"
	"  -o, --output FILE     profile store (default: the run's own, else ./zond.db)\n"
	"  -c, --campaign NAME   file the run under campaign NAME\n"
	"  -n, --top N           functions in the summary (default 10, 0: none)\n"
	"  -q, --quiet           no summary\n"
	"      --keep-raw        keep DIR's raw files once stored\n"
	"  -h, --help            this help\n";

enum { OPT_KEEP_RAW = 256 };

static const struct option options[] = {
	{"output", required_argument, NULL, 'o'},
	{"campaign", required_argument, NULL, 'c'},
	{"top", required_argument, NULL, 'n'},
	{"quiet", no_argument, NULL, 'q'},
	{"keep-raw", no_argument, NULL, OPT_KEEP_RAW},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/*
 * Takes DIR's lock, for as long as recover runs: 0, or the status of the
 * error said (its zond alive, or another recover at it).
 */
static int lock_dir(struct launch *l)
{
	struct zerr err;
	pid_t holder;
	l->lock_fd = runinfo_lock(l->dir, 0, &holder, &err);
	if (l->lock_fd >= 0 || l->lock_fd == -2) /* -2: an older zond's, or none of zond's */
		return 0;
	if (holder > 0)
		return cmd_error("recover",
				 "%s: in use by zond (pid %ld): its run is still being recorded or "
				 "stored; recover it once that zond has ended",
				 l->dir, (long)holder);
	return cmd_error("recover", "%s", err.msg);
}

/* 1 when DIR's run was stored before its raw data was kept (said), else 0. */
static int already_stored(const char *dir)
{
	char path[PATH_MAX], store[PATH_MAX] = "";
	if (launch_join_path(path, sizeof path, dir, RUNINFO_STORED) < 0)
		return 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(store, sizeof store, f))
		store[0] = 0;
	fclose(f);
	store[strcspn(store, "\n")] = 0;
	cmd_error("recover", "%s: its run was stored already (in %s) before its raw data was kept: "
			     "nothing to recover", dir, *store ? store : "its store");
	return 1;
}

/* The header of each raw file of a directory (what its processes said of themselves). */
struct raw_heads {
	struct zr_header *h;
	size_t n;
};

/* Reads the header of every *.zraw in dir that has one (a damaged file is the reader's). */
static void read_heads(const char *dir, struct raw_heads *rh)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	*rh = (struct raw_heads){0};
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		struct zr_header h;
		if (fnmatch("*.zraw", e->d_name, 0) ||
		    launch_join_path(path, sizeof path, dir, e->d_name) < 0)
			continue;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t got = fd >= 0 ? pread(fd, &h, sizeof h, 0) : -1;
		if (fd >= 0)
			close(fd);
		if (got != (ssize_t)sizeof h || memcmp(h.magic, ZR_MAGIC, sizeof h.magic) ||
		    h.pid <= 0)
			continue;
		rh->h = zp_xrealloc(rh->h, (rh->n + 1) * sizeof *rh->h);
		rh->h[rh->n++] = h;
	}
	if (d)
		closedir(d);
}

/*
 * Whether process pid is one of the run's, still alive: it maps a file of
 * real_dir (its raw file), so a pid reused since is not taken for it.  A
 * process whose maps this user may not read is taken as alive if it exists.
 */
static int alive_in(pid_t pid, const char *real_dir)
{
	char path[64], *line = NULL;
	size_t cap = 0, len = strlen(real_dir);
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == EACCES && kill(pid, 0) == 0;
	int found = 0;
	while (!found && getline(&line, &cap, f) > 0) {
		char *file = strchr(line, '/');
		found = file && strncmp(file, real_dir, len) == 0 && file[len] == '/';
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * 1 when a process of DIR's run still runs (its zond was killed, the program
 * was not): it still writes its raw file, which a recover now would store
 * in part and remove.  Said in one line, naming it; nothing is touched.
 */
static int still_running(const char *dir, const struct raw_heads *rh)
{
	char real_dir[PATH_MAX];
	pid_t first = 0;
	size_t n = 0;
	if (!realpath(dir, real_dir))
		return 0;
	for (size_t i = 0; i < rh->n; i++) {
		if (rh->h[i].state != ZR_RUNNING || !alive_in(rh->h[i].pid, real_dir))
			continue;
		if (!n++)
			first = rh->h[i].pid;
	}
	if (!n)
		return 0;
	if (n == 1)
		cmd_error("recover", "%s: the run's process %ld still runs and writes its raw data: "
				     "recover it once it has ended (nothing done)", dir, (long)first);
	else
		cmd_error("recover", "%s: %zu of the run's processes (pid %ld...) still run and write "
				     "their raw data: recover it once they have ended (nothing done)",
			  dir, n, (long)first);
	return 1;
}

/*
 * A run whose zond was killed before the program ended has no end in
 * run.info; the program's first process says in its raw header how it
 * ended (its last image: exec makes a new one) and when.  Its start, status
 * and duration (to the last end of the run's processes) into l.
 */
static void end_from_heads(struct launch *l, const struct raw_heads *rh)
{
	const struct zr_header *first = NULL, *last = NULL;
	int64_t end = 0;
	for (size_t i = 0; i < rh->n; i++)
		if (rh->h[i].start_realtime_ns > 0 &&
		    (!first || rh->h[i].start_realtime_ns < first->start_realtime_ns))
			first = &rh->h[i];
	if (!first)
		return;
	for (size_t i = 0; i < rh->n; i++) {
		const struct zr_header *h = &rh->h[i];
		if (h->pid == first->pid && h->state != ZR_EXECED &&
		    (!last || h->start_realtime_ns > last->start_realtime_ns))
			last = h;
		if (h->end_realtime_ns > end)
			end = h->end_realtime_ns;
	}
	if (last && last->state == ZR_RUNNING) /* not alive (still_running): it ended unseen */
		l->end_unknown = "the program ended unseen after zond was killed (a signal or a "
				 "crash: the Linux runtime installs no signal handler to note "
				 "which)";
	if (!last || (last->state != ZR_EXITED && last->state != ZR_SIGNALED))
		return; /* killed without a word, as zond was: its end is unknown */
	l->start_ns = first->start_realtime_ns;
	if (end > first->start_realtime_ns)
		l->duration_ns = end - first->start_realtime_ns;
	l->exit_status = last->state == ZR_EXITED ? last->exit_status & 0xff : -1;
	l->term_signal = last->state == ZR_SIGNALED ? last->term_signal : 0;
}

/*
 * 1 when the store holds DIR's run already (said in one line): its zond
 * stored it, then was killed (or could not print) before it removed DIR.
 * store_add_run checks it again in its write.
 */
static int stored_as(const struct launch *l)
{
	char file[PATH_MAX];
	struct zerr err;
	int64_t run;
	if (!*l->token || store_target(l->opt.store, file, &err) != 1)
		return 0;
	struct store *s = store_open(l->opt.store, STORE_READ, &err);
	int found = s ? store_run_with_meta(s, STORE_RUN_TOKEN, l->token, &run, &err) : -1;
	if (s)
		store_close(s);
	if (found == 1)
		cmd_error("recover", "%s: already stored as run %lld in %s: nothing to recover "
				     "(remove the directory)", l->dir, (long long)run, l->opt.store);
	return found == 1; /* an unreadable store: launch_collect says why */
}

int cmd_recover(int argc, char **argv)
{
	struct launch l;
	struct runinfo info;
	struct zerr err;
	const char *store = NULL, *campaign = NULL;
	int c;
	launch_init(&l, "recover");
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:c:n:qh", options, NULL)) != -1) {
		switch (c) {
		case 'o': store = optarg; break;
		case 'c':
			if (!*optarg)
				return cmd_usage_error("recover", "-c wants a campaign name, not ''");
			campaign = optarg;
			break;
		case 'n':
			if ((l.opt.top = parse_count(optarg)) < 0)
				return cmd_usage_error("recover", "--top wants a number, not '%s'",
						       optarg);
			break;
		case 'q': l.opt.quiet = 1; break;
		case OPT_KEEP_RAW: l.keep_raw = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_bad_option("recover", argv, "o:c:n:qh");
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error("recover", "wants one directory (zond recover DIR)");
	struct stat st;
	if (strlen(argv[optind]) >= sizeof l.dir)
		return cmd_error("recover", "%s: path too long", argv[optind]);
	snprintf(l.dir, sizeof l.dir, "%s", argv[optind]);
	if (stat(l.dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return cmd_error("recover", "%s: not a directory", l.dir);
	if (lock_dir(&l))
		return 1;
	if (already_stored(l.dir))
		return 1;
	struct raw_heads heads;
	read_heads(l.dir, &heads);
	if (still_running(l.dir, &heads)) {
		free(heads.h);
		return 1;
	}
	l.recovering = 1;
	l.exit_status = -1;
	int found = launch_read_info(&l, &info, &err);
	if (found < 0)
		return cmd_error("recover", "%s", err.msg);
	if (!info.start_ns) /* no end in run.info: its zond was killed before the program ended */
		end_from_heads(&l, &heads);
	if (!*l.prog)
		snprintf(l.prog, sizeof l.prog, "%s", l.dir);
	/* run.info keeps the command line as stored: joined and quoted already */
	char *args[] = {l.prog, NULL};
	l.argv = args;
	l.command = info.command && *info.command ? info.command
						   : "(unknown: recovered from raw data)";
	l.opt.store = store ? store : info.store && *info.store ? info.store : STORE_DEFAULT_PATH;
	l.opt.campaign = campaign ? campaign : info.campaign && *info.campaign ? info.campaign : NULL;
	int status = output_check(l.opt.store, OUTPUT_STORE, NULL, &err) < 0
			     ? cmd_error("recover", "%s", err.msg)
		     : stored_as(&l)
			     ? 1
			     : launch_collect(&l, info.collector ? info.collector : "record",
					      found ? "its raw files hold no call"
						    : "no run.info and no raw file with a call: "
						      "is it a directory zond kept?");
	runinfo_free(&info);
	free(heads.h);
	return status;
}
