/*
 * trace.c - `zond trace`: exact profiles of AArch64 and RISC-V programs from
 * instruction traces.
 *
 *   zond trace record [-o FILE] [-L SYSROOT] -- PROG ARGS   run under qemu-ARCH + zond's plugin
 *   zond trace report [-o STORE] TRACE                      rebuild the profile, store a run
 *   zond trace import --format qemu-log|pcs --arch A [--elf PROG] FILE
 *   zond trace convert [-o FILE] TRACE                      a .ztrace as a plain PC list
 *
 * record picks qemu-ARCH from PROG's ELF header; report and import read the
 * trace in one pass (tool/trace/rebuild.h) and store the run with collector
 * "trace" and event Ir, so that report, graph and export work on it.
 */
#define _GNU_SOURCE /* memfd_create */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"
#include "output.h"
#include "progress.h"
#include "report/report.h"
#include "store/store.h"
#include "symbols/symbols.h"
#include "trace/isa.h"
#include "trace/tail.h"
#include "trace/trace.h"
#include "util/fds.h"
#include "util/forward.h"

static const char usage_text[] =
	"usage: zond trace record [options] -- PROG [ARGS]\n"
	"       zond trace report [options] TRACE\n"
	"       zond trace import --format FORMAT --arch ARCH [options] FILE\n"
	"       zond trace convert [-o FILE] TRACE\n"
	"Exact instruction-level profiles of AArch64 and RISC-V programs (x86-64 too when\nbuilt with Zydis) run under QEMU.\n\n"
	"record: run PROG under qemu-ARCH with zond's plugin and write a trace.  PROG runs as\n"
	"  plainly (argv[0], descriptors, status); signals sent to zond go to it; when it crashes,\n"
	"  is killed or execs, the trace keeps what ran.  Each process it forks writes its own\n"
	"  trace, TRACE.PID (with --online, processes it forks are not traced).\n"
	"  -o, --output FILE     trace file (default PROG's name + .ztrace)\n"
	"  -L, --sysroot DIR     libraries of a dynamic PROG (qemu -L)\n"
	"      --qemu PATH       the qemu-user binary (default qemu-ARCH from PROG's ELF)\n"
	"      --online          no trace: build the profile inside QEMU and store it as a run\n"
	"                        (-o is then the profile store, default ./zond.db)\n"
	"  -q, --quiet           no summary, no progress line (a trace cut short still says so)\n"
	"      --no-progress     no progress line (on a terminal, one line on stderr says the\n"
	"                        time and the trace's size so far while PROG runs)\n"
	"report: rebuild the profile of TRACE and store it as a run, with the traces\n"
	"  TRACE.PID of the processes it forked (one thread group per process, each starting\n"
	"  in the call stack of its fork; reads trace format versions 2 and 3).\n"
	"import: the same for traces zond did not write:\n"
	"  -f, --format FORMAT   qemu-log (qemu -d in_asm,exec,nochain) or pcs (one PC a line)\n"
	"  -a, --arch ARCH       aarch64, riscv64, riscv32 or x86_64 (built with Zydis)\n"
	"  -e, --elf PROG        the traced program (for names and lines)\n"
	"  -b, --bias ADDR       PROG's load bias (position-independent code)\n"
	"convert: write the instructions TRACE executed as a pcs file (-o, default stdout)\n"
	"report, import and record --online:\n"
	"      --timeline        keep every call's enter and exit, per thread, in instructions\n"
	"                        of that thread (doc/trace.md, \"Timeline\"); record without\n"
	"                        --online refuses it: the trace keeps every call already\n"
	"      --timeline-size N events kept per thread (default 1048576; implies --timeline)\n"
	"      --timeline-keep oldest|newest  which events a full timeline keeps (default\n"
	"                        oldest); the others are counted as timeline_dropped\n"
	"report and import:\n"
	"  -o, --output FILE     profile store (default ./zond.db)\n"
	"  -c, --campaign NAME   file the run under campaign NAME\n"
	"  -n, --top N           functions in the summary (default 10, 0: none)\n"
	"  -q, --quiet           no summary\n"
	"  -h, --help            this help\n";

static const struct option options[] = {
	{"output", required_argument, NULL, 'o'},
	{"sysroot", required_argument, NULL, 'L'},
	{"qemu", required_argument, NULL, 'Q'},
	{"online", no_argument, NULL, 'O'},
	{"format", required_argument, NULL, 'f'},
	{"arch", required_argument, NULL, 'a'},
	{"elf", required_argument, NULL, 'e'},
	{"bias", required_argument, NULL, 'b'},
	{"campaign", required_argument, NULL, 'c'},
	{"top", required_argument, NULL, 'n'},
	{"quiet", no_argument, NULL, 'q'},
	{"no-progress", no_argument, NULL, 'P'},
	{"timeline", no_argument, NULL, 'T'},
	{"timeline-size", required_argument, NULL, 'S'},
	{"timeline-keep", required_argument, NULL, 'K'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct trace_cmd {
	const char *output, *sysroot, *qemu, *format, *campaign;
	struct trace_import import; /* import.timeline: --timeline for every reader */
	long top;
	int quiet, online, no_progress;
};

/*
 * Each subcommand's own options (the usage text's sections): one that
 * belongs to another is refused, not ignored.  -1 when all are its own.
 */
static int check_options(const char *sub, const char seen[128])
{
	/* record's --timeline without --online has a line of its own (record) */
	const char *own = strcmp(sub, "record") == 0	  ? "oLQOqPTSK"
			  : strcmp(sub, "report") == 0	  ? "ocnqTSK"
			  : strcmp(sub, "import") == 0	  ? "ocnqTSKfaeb"
			  : strcmp(sub, "convert") == 0 ? "o"
							  : NULL;
	for (int c = 1; own && c < 128; c++) {
		if (!seen[c] || strchr(own, c))
			continue;
		const struct option *o = options;
		while (o->name && o->val != c)
			o++;
		return cmd_usage_error("trace", "--%s is not an option of 'trace %s'",
				       o->name ? o->name : "?", sub);
	}
	return -1;
}

static int parse(struct trace_cmd *t, int argc, char **argv, const char *sub)
{
	char seen[128] = {0};
	int c;
	long v;
	char *end;
	optind = 2;
	/* record stops at PROG (its own options follow); the others take options anywhere. */
	const char *spec = strcmp(sub, "record") == 0 ? "+o:L:f:a:e:b:c:n:qh" : "o:L:f:a:e:b:c:n:qh";
	while ((c = getopt_long(argc, argv, spec, options, NULL)) != -1) {
		switch (c) {
		case 'o': t->output = optarg; break;
		case 'L': t->sysroot = optarg; break;
		case 'Q': t->qemu = optarg; break;
		case 'O': t->online = 1; break;
		case 'f': t->format = optarg; break;
		case 'a': t->import.arch = optarg; break;
		case 'e': t->import.elf = optarg; break;
		case 'b':
			errno = 0;
			t->import.bias = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end)
				return cmd_usage_error("trace", "--bias wants an address, not '%s'",
						       optarg);
			break;
		case 'c':
			if (!*optarg)
				return cmd_usage_error("trace", "-c wants a campaign name, not ''");
			t->campaign = optarg;
			break;
		case 'n':
			if ((v = parse_count(optarg)) < 0)
				return cmd_usage_error("trace", "--top wants a number, not '%s'", optarg);
			t->top = v;
			break;
		case 'q': t->quiet = 1; break;
		case 'P': t->no_progress = 1; break;
		case 'T':
			if (!t->import.timeline.events)
				t->import.timeline.events = LAUNCH_TIMELINE_DEFAULT;
			break;
		case 'S':
			if ((v = parse_count(optarg)) < 1 || v > LAUNCH_TIMELINE_MAX)
				return cmd_usage_error(
					"trace", "--timeline-size wants a number from 1 to %ld, not '%s'",
					LAUNCH_TIMELINE_MAX, optarg);
			t->import.timeline.events = (uint64_t)v;
			break;
		case 'K':
			if (strcmp(optarg, "oldest") != 0 && strcmp(optarg, "newest") != 0)
				return cmd_usage_error(
					"trace", "--timeline-keep wants oldest or newest, not '%s'", optarg);
			t->import.timeline.keep_newest = strcmp(optarg, "newest") == 0;
			if (!t->import.timeline.events)
				t->import.timeline.events = LAUNCH_TIMELINE_DEFAULT;
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_bad_option("trace", argv, spec);
		}
		seen[c & 127] = 1;
	}
	return check_options(sub, seen);
}

/* ---- record ------------------------------------------------------------- */

/*
 * s as a value of QEMU's -plugin option into buf (n bytes, at least twice
 * s's length and one): QEMU splits the option at commas and reads ",," as
 * one, so a file name with a comma keeps it.
 */
static const char *qemu_opt_value(const char *s, char *buf, size_t n)
{
	size_t k = 0;
	for (; *s && k + 2 < n; s++) {
		if (*s == ',')
			buf[k++] = ',';
		buf[k++] = *s;
	}
	buf[k] = 0;
	return buf;
}

/* The plugin: $ZOND_QEMU_PLUGIN, the build tree, beside us, or installed. */
static const char *find_plugin(void)
{
	static char found[PATH_MAX];
	launch_find_part(found, "ZOND_QEMU_PLUGIN", ZOND_QEMU_PLUGIN_BUILD_PATH,
			 "../lib/zond/libzond_qemu.so", ZOND_QEMU_PLUGIN_INSTALL_PATH);
	return found;
}

/* QEMU's name of PROG's architecture, from its ELF header. */
static const char *elf_arch(const char *path, struct zerr *err)
{
	struct symbols_elf h;
	int elf = symbols_elf_header(path, &h, err);
	if (elf < 0)
		return NULL;
	if (elf == 0)
		return zerr_set(err, "%s: not an ELF file", path), NULL;
	if (h.machine == EM_AARCH64)
		return "aarch64";
	if (h.machine == EM_RISCV)
		return h.bits == 32 ? "riscv32" : "riscv64";
	if (h.machine == EM_X86_64 && isa_find("x86_64"))
		return "x86_64";
	return zerr_set(err, "%s: unknown architecture (ELF machine %u); zond trace knows %s",
			path, h.machine, isa_names()), NULL;
}

/*
 * Where the plugin says "ok" once the trace or profile is complete (QEMU
 * exits with the guest's status whatever the plugin did): a memory file of
 * zond's, close-on-exec, that the plugin opens by path as
 * /proc/ZOND/fd/N at the end.  No file in $TMPDIR: nothing to fill on a full
 * disk, nothing left behind when zond is killed (the plugin then finds no
 * one to tell).  Its descriptor, or -1.
 */
static int status_file(char *path, size_t size)
{
	int fd = memfd_create("zond-trace-status", MFD_CLOEXEC);
	if (fd >= 0)
		snprintf(path, size, "/proc/%ld/fd/%d", (long)getpid(), fd);
	return fd;
}

/*
 * Whether the plugin completed its trace; closes the status file.  The
 * online mode's summary line follows "ok" (the plugin never prints to the
 * program's stderr): shown unless quiet; then its warnings, shown always.
 */
static int plugin_said_ok(int fd, int quiet)
{
	char buf[4600] = "";
	FILE *f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "r") : NULL;
	int ok = f && fgets(buf, sizeof buf, f) && strcmp(buf, "ok\n") == 0;
	/* the summary line (not with -q), then warnings (with -q too, as report's) */
	for (int line = 0; ok && fgets(buf, sizeof buf, f); line++)
		if (line || !quiet)
			fputs(buf, stderr);
	if (f)
		fclose(f);
	else
		close(fd);
	return ok;
}

/*
 * The memory file of tail.h, inherited by QEMU (not close-on-exec; the
 * plugin closes it before the guest runs), with the command line for the
 * online run.  -1 if it cannot be made: then a trace cut short by a signal
 * loses what the plugin had not written yet.
 */
static int tail_errno; /* why make_tail could not */

static int make_tail(char **argv)
{
	int fd = memfd_create("zond-trace-tail", 0);
	if (fd < 0) {
		tail_errno = errno;
		return -1;
	}
	struct tail_head h = {.magic = TAIL_MAGIC};
	size_t len = 0;
	for (int i = 0; argv[i] && len + 2 < sizeof h.command; i++)
		len += (size_t)snprintf(h.command + len, sizeof h.command - len, "%s%s", i ? " " : "",
					argv[i]);
	if (ftruncate(fd, (off_t)tail_size()) != 0 || pwrite(fd, &h, sizeof h, 0) != sizeof h) {
		tail_errno = errno;
		close(fd);
		return -1;
	}
	return fd;
}

static struct tail_head tail_read(int fd)
{
	struct tail_head h = {.magic = ""};
	if (fd < 0 || pread(fd, &h, sizeof h, 0) != sizeof h)
		memset(&h, 0, sizeof h);
	return h;
}


/*
 * After QEMU ended without the plugin's "ok": completes the trace from the
 * memory file and says what happened (the plugin said why it could not
 * write, if that was it).  The exit status is the program's, once it ran.
 */
static int incomplete(struct trace_cmd *t, const char *qemu, const char *out, int tail,
		      int wstatus)
{
	struct tail_head h = tail_read(tail);
	struct zerr err;
	int sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
	/* without the memory file (`ulimit -f`), whether the program ran is not known */
	int ran = tail < 0 || h.started;
	/* the new image's status is not the traced program's */
	int64_t exit = sig ? 256 + sig : h.exec || !WIFEXITED(wstatus) ? -1 : WEXITSTATUS(wstatus);
	int got = t->online || tail < 0 ? 0 : tail_recover(tail, out, exit, &err);
	if (got < 0)
		cmd_error("trace", "%s", err.msg);
	else if (got && h.exec)
		fprintf(stderr, "zond trace: the program called execve: its new image is not "
				"traced; %s holds what ran before\n", out);
	else if (got && sig)
		fprintf(stderr, "zond trace: the program was killed by signal %d (%s): %s holds what "
				"it ran until then\n", sig, strsignal(sig), out);
	else if (got)
		fprintf(stderr, "zond trace: QEMU ended without completing the trace: %s holds what "
				"the program ran\n", out);
	else if (!ran)
		fprintf(stderr, "zond trace: %s ended (%s %d) before the program ran: no %s\n", qemu,
			sig ? "signal" : "status", sig ? sig : WEXITSTATUS(wstatus),
			t->online ? "profile" : "trace");
	else if (t->online && sig)
		fprintf(stderr, "zond trace: the program was killed by signal %d (%s): the online "
				"profile is lost (record a trace to keep what ran)\n", sig,
			strsignal(sig));
	else if (sig && tail < 0)
		fprintf(stderr, "zond trace: the program was killed by signal %d (%s): %s holds the "
				"chunks written before (zond had no memory file to complete it: %s%s)\n", sig,
			strsignal(sig), out, strerror(tail_errno),
			tail_errno == EFBIG ? ", ulimit -f" : "");
	if (sig)
		return 128 + sig; /* the caller dies of it once the trace is in place */
	if (ran)
		return WEXITSTATUS(wstatus);
	return WEXITSTATUS(wstatus) == 127 ? 127 : WEXITSTATUS(wstatus) ? WEXITSTATUS(wstatus) : 1;
}

/*
 * The program as QEMU must open it (file) and the ELF file to read (real):
 * a name with a slash as typed, else found along PATH as execvp would, a
 * symbolic link there kept as found (the guest's argv[0] and AT_EXECFN stay
 * what it sees when run plainly: a program that dispatches on the name it
 * was run by).
 */
static int find_program(const char *typed, char file[PATH_MAX], char real[PATH_MAX])
{
	struct zerr err;
	if (launch_find_path(typed, file, &err) < 0 || launch_find_file(file, real, &err) < 0)
		return launch_program_error("trace", typed, &err);
	return 0;
}

static int record(struct trace_cmd *t, char **argv)
{
	struct zerr err;
	char prog[PATH_MAX], out[PATH_MAX + 16], qemu[64], opt[4 * PATH_MAX + 200];
	char plugin_arg[2 * PATH_MAX], out_arg[2 * PATH_MAX + 32];
	char file[PATH_MAX];
	forward_own_pipe(); /* before zond's first line: a closed stderr costs its lines alone */
	int found = find_program(argv[0], file, prog);
	if (found != 0)
		return found;
	const char *arch = elf_arch(prog, &err);
	if (!arch)
		return cmd_error("trace", "%s", err.msg);
	struct stat st;
	if (t->sysroot && (stat(t->sysroot, &st) != 0 || !S_ISDIR(st.st_mode)))
		return cmd_error("trace", "%s: -L wants the guest's library directory: %s",
				 t->sysroot, errno && stat(t->sysroot, &st) != 0 ? strerror(errno)
										: "not a directory");
	if (t->output) {
		snprintf(out, sizeof out, "%s", t->output);
	} else if (t->online) {
		snprintf(out, sizeof out, "%s", STORE_DEFAULT_PATH);
	} else {
		const char *base = strrchr(prog, '/');
		snprintf(out, sizeof out, "%s.ztrace", base ? base + 1 : prog);
	}
	if (t->import.timeline.events && !t->online)
		return cmd_usage_error("trace", "--timeline is for the profile, and a trace keeps every "
						"call: give it to `zond trace report` (or record --online)");
	if (!t->online && strcmp(out, "-") == 0)
		return cmd_usage_error("trace", "-o -: a trace is not written to standard output (the "
						"program's own output goes there): give a file name");
	const char *inputs[] = {prog, t->sysroot, NULL};
	/*
	 * The plugin writes the trace in place, not through a temporary file: a
	 * trace is readable up to its last complete chunk, so what a killed zond
	 * or QEMU leaves under the name the user gave is worth keeping.
	 */
	if (output_check(out, t->online ? OUTPUT_STORE : OUTPUT_FILE, inputs, &err) < 0)
		return cmd_error("trace", "%s", err.msg);
	char status[64];
	int sfd = status_file(status, sizeof status);
	if (sfd < 0)
		return cmd_error("trace", "cannot create a memory file: %s", strerror(errno));
	fds_keep_own(); /* before the one zond means QEMU to have */
	/*
	 * A write of zond's past `ulimit -f` (the memory file, which counts against it, the
	 * trace completed) fails with EFBIG, said, instead of killing zond before the program
	 * starts; QEMU and the program get the disposition zond found.
	 */
	struct sigaction xfsz_ign = {.sa_handler = SIG_IGN}, xfsz;
	sigaction(SIGXFSZ, &xfsz_ign, &xfsz);
	int tail = make_tail(argv);
	char tailopt[32] = "";
	if (tail >= 0)
		snprintf(tailopt, sizeof tailopt, ",tail=%d", tail);
	snprintf(qemu, sizeof qemu, "qemu-%s", arch);
	char tlopt[64] = "";
	if (t->import.timeline.events)
		snprintf(tlopt, sizeof tlopt, ",timeline=%" PRIu64 ",timeline_keep=%s",
			 t->import.timeline.events, t->import.timeline.keep_newest ? "newest" : "oldest");
	snprintf(opt, sizeof opt, "%s,%s=%s,status=%s%s%s",
		 qemu_opt_value(find_plugin(), plugin_arg, sizeof plugin_arg),
		 t->online ? "online" : "out", qemu_opt_value(out, out_arg, sizeof out_arg), status,
		 tailopt, tlopt);
	int argc = 0;
	while (argv[argc])
		argc++;
	char **qargv = zp_xcalloc((size_t)argc + 10, sizeof *qargv);
	int k = 0;
	qargv[k++] = (char *)(t->qemu ? t->qemu : qemu);
	qargv[k++] = "-plugin";
	qargv[k++] = opt;
	if (t->sysroot) {
		qargv[k++] = "-L";
		qargv[k++] = (char *)t->sysroot;
	}
	qargv[k++] = "-0";
	qargv[k++] = argv[0];
	qargv[k++] = file;
	for (int i = 1; i < argc; i++)
		qargv[k++] = argv[i];
	fflush(NULL);
	/* a signal sent to zond (kill, timeout) goes to QEMU, which gives it to the program */
	struct forward fw;
	sigset_t block, mask;
	sigemptyset(&block);
	for (size_t i = 0; i < FORWARD_N; i++)
		sigaddset(&block, forward_signals[i]);
	/* blocked until forward_to names QEMU: one sent meanwhile is passed on, not lost */
	sigprocmask(SIG_BLOCK, &block, &mask);
	forward_start(&fw);
	pid_t pid = fork();
	if (pid == 0) {
		/*
		 * zond killed outright costs zond's data, not the program: QEMU
		 * runs on (no parent-death signal, which the program could see).
		 */
		forward_restore(&fw);
		sigaction(SIGXFSZ, &xfsz, NULL);
		sigprocmask(SIG_SETMASK, &mask, NULL);
		execvp(qargv[0], qargv);
		fprintf(stderr, "zond trace: %s: cannot run: %s\n", qargv[0], strerror(errno));
		_exit(127);
	}
	free(qargv);
	forward_to(pid > 0 ? pid : 0);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (pid < 0) {
		forward_stop(&fw);
		close(sfd);
		if (tail >= 0)
			close(tail);
		return cmd_error("trace", "cannot start %s: %s", qemu, strerror(errno));
	}
	int wstatus;
	struct progress pr;
	progress_start(&pr, "trace", !t->quiet && !t->no_progress);
	progress_wait(&pr, pid, &wstatus, progress_file_size, t->online ? NULL : out);
	forward_stop(&fw);
	int ok = plugin_said_ok(sfd, t->quiet);
	struct tail_head h = tail_read(tail);
	int rc = ok ? WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus)
		    : incomplete(t, t->qemu ? t->qemu : qemu, out, tail, wstatus);
	if (ok && !t->quiet && !t->online)
		fprintf(stderr, "zond trace: trace written to %s\n", out);
	if (h.traced > h.cut && !t->quiet)
		fprintf(stderr, "zond trace: the program started %" PRIu32 " process%s (fork), traced "
				"in %s.PID: `zond trace report %s` reads them with it\n",
			h.traced - h.cut, h.traced - h.cut == 1 ? "" : "es", out, out);
	if (h.cut && !t->quiet) /* each said why */
		fprintf(stderr, "zond trace: the program started %" PRIu32 " process%s (fork) whose "
				"trace %s.PID could not be written to the end: read as cut short\n",
			h.cut, h.cut == 1 ? "" : "es", out);
	if (h.children > h.traced)
		fprintf(stderr, "zond trace: the program started %" PRIu32 " process%s (fork): %s not "
				"traced\n", h.children - h.traced, h.children - h.traced == 1 ? "" : "es",
			h.children - h.traced == 1 ? "it is" : "they are");
	if (tail >= 0)
		close(tail);
	if (WIFSIGNALED(wstatus))
		launch_die_as(WTERMSIG(wstatus));
	return rc;
}

/* ---- report / import ---------------------------------------------------- */

static void print_summary(struct trace_cmd *t, const struct zp_profile *p,
			  const struct trace_info *info)
{
	fprintf(stderr, "zond trace: run %lld stored in %s: %" PRIu64 " instructions, %" PRIu64
			" block executions, %.3f trace bytes per instruction\n",
		(long long)p->run.id, t->output, info->insns, info->blocks,
		info->insns ? (double)info->bytes / (double)info->insns : 0.0);
	if (info->lost)
		fprintf(stderr, "zond trace: %" PRIu64 " block executions of other threads were not "
				"traced\n", info->lost);
	if (t->top > 0) {
		struct report_options o = {.thread = ZP_NONE, .sort = SORT_SELF, .limit = (int)t->top};
		report_flat(p, &o, stderr);
	}
}

/* What the reader guessed or left out: a damaged header, a trace cut short. */
static void warn_read(const char *path, const struct trace_info *info)
{
	for (const char *w = info->warning; *w;) { /* a line each */
		int n = (int)strcspn(w, "\n");
		fprintf(stderr, "zond trace: %s: warning: %.*s\n", path, n, w);
		w += n + (w[n] == '\n');
	}
	if (info->completed)
		fprintf(stderr, "zond trace: %s: the program was killed by signal %d (%s); the trace "
				"is complete: it holds everything the program ran\n", path,
			info->term_signal, strsignal(info->term_signal));
	if (info->cut)
		fprintf(stderr, "zond trace: %s: warning: the trace is cut short at offset %" PRIu64
				" (recording interrupted): read up to there, %" PRIu64
				" instructions\n", path, info->cut, info->insns);
}

static int store_trace(struct trace_cmd *t, const char *path, int import)
{
	struct zerr err;
	struct trace_info info;
	const char *inputs[] = {path, t->import.elf, NULL};
	if (output_check(t->output, OUTPUT_STORE, inputs, &err) < 0)
		return cmd_error("trace", "%s", err.msg);
	struct symbols *syms = symbols_new();
	struct zp_profile *p = profile_new();
	int rc;
	size_t children = 0;
	if (!import)
		rc = trace_read_ztrace_family(path, &t->import.timeline, syms, p, &info, &children,
					      &err);
	else if (strcmp(t->format, "qemu-log") == 0)
		rc = trace_read_qemu_log(path, &t->import, syms, p, &info, &err);
	else
		rc = trace_read_pcs(path, &t->import, syms, p, &info, &err);
	if (rc == 0)
		warn_read(path, &info);
	if (rc == 0) {
		char cmd[4200];
		snprintf(cmd, sizeof cmd, "%s",
			 *info.command ? info.command : *info.program ? info.program : path);
		profile_set_str(&p->run.command, cmd);
		profile_set_str(&p->run.campaign, t->campaign);
		struct utsname u;
		if (uname(&u) == 0)
			profile_set_str(&p->run.host, u.nodename);
		/* what the trace says (an imported log, an older trace: now, unknown) */
		p->run.start_ns = info.start_ns ? info.start_ns : (int64_t)time(NULL) * 1000000000;
		p->run.exit_status = info.exit_status;
		p->run.term_signal = info.term_signal;
		char v[32];
		snprintf(v, sizeof v, "%" PRIu64, info.insns);
		profile_add_meta(p, "instructions", v);
		snprintf(v, sizeof v, "%" PRIu64, info.bytes);
		profile_add_meta(p, "trace_bytes", v);
		profile_add_meta(p, "trace", path);
		rc = store_save_run(t->output, p, &err);
	}
	if (rc == 0 && !t->quiet)
		print_summary(t, p, &info);
	if (rc == 0 && !t->quiet && children)
		fprintf(stderr, "zond trace: with the traces of %zu process%s the program forked "
				"(%s.PID)\n", children, children == 1 ? "" : "es", path);
	profile_free(p);
	symbols_free(syms);
	return rc < 0 ? cmd_error("trace", "%s", err.msg) : 0;
}

static int convert(struct trace_cmd *t, const char *path)
{
	struct zerr err;
	struct trace_info info;
	struct output out;
	const char *inputs[] = {path, NULL};
	if ((t->output && output_check(t->output, OUTPUT_FILE, inputs, &err) < 0) ||
	    output_open(&out, t->output, &err) < 0)
		return cmd_error("trace", "%s", err.msg);
	struct symbols *syms = symbols_new();
	errno = 0;
	int ok = trace_ztrace_to_pcs(path, syms, out.f, &info, &err) == 0;
	int write_errno = errno; /* a failed write's: output_close names it */
	symbols_free(syms);
	if (ok)
		warn_read(path, &info);
	errno = write_errno;
	if (output_close(&out, ok, &err) < 0 || !ok)
		return cmd_error("trace", "%s", err.msg);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *sub = argv[1];
	struct trace_cmd t = {.top = 10};
	int status = parse(&t, argc, argv, sub);
	if (status >= 0)
		return status;
	if (strcmp(sub, "record") == 0) {
		if (optind >= argc)
			return cmd_usage_error("trace", "no program to run (zond trace record -- PROG)");
		return record(&t, argv + optind);
	}
	int import = strcmp(sub, "import") == 0;
	if (!import && strcmp(sub, "report") != 0 && strcmp(sub, "convert") != 0)
		return cmd_usage_error("trace", "no subcommand '%s' (record, report, import, convert)",
				       sub);
	if (optind != argc - 1)
		return cmd_usage_error("trace", "'trace %s' wants one trace file", sub);
	if (strcmp(sub, "convert") == 0)
		return convert(&t, argv[optind]);
	if (import && (!t.format || (strcmp(t.format, "qemu-log") && strcmp(t.format, "pcs"))))
		return cmd_usage_error("trace", "--format wants qemu-log or pcs");
	if (import && !t.import.arch)
		return cmd_usage_error("trace", "import needs --arch");
	if (!t.output)
		t.output = STORE_DEFAULT_PATH;
	return store_trace(&t, argv[optind], import);
}
