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
#include "trace/trace.h"

static const char usage_text[] =
	"usage: zond trace record [options] -- PROG [ARGS]\n"
	"       zond trace report [options] TRACE\n"
	"       zond trace import --format FORMAT --arch ARCH [options] FILE\n"
	"       zond trace convert [-o FILE] TRACE\n"
	"Exact instruction-level profiles of AArch64 and RISC-V programs run under QEMU.\n\n"
	"record: run PROG under qemu-ARCH with zond's plugin and write a trace.\n"
	"  -o, --output FILE     trace file (default PROG's name + .ztrace)\n"
	"  -L, --sysroot DIR     libraries of a dynamic PROG (qemu -L)\n"
	"      --qemu PATH       the qemu-user binary (default qemu-ARCH from PROG's ELF)\n"
	"      --online          no trace: build the profile inside QEMU and store it as a run\n"
	"                        (-o is then the profile store, default ./zond.db)\n"
	"  -q, --quiet           no message, no progress line\n"
	"      --no-progress     no progress line (on a terminal, one line on stderr says the\n"
	"                        time and the trace's size so far while PROG runs)\n"
	"report: rebuild the profile of TRACE and store it as a run.\n"
	"import: the same for traces zond did not write:\n"
	"  -f, --format FORMAT   qemu-log (qemu -d in_asm,exec,nochain) or pcs (one PC a line)\n"
	"  -a, --arch ARCH       aarch64, riscv64, riscv32 or x86_64 (built with Zydis)\n"
	"  -e, --elf PROG        the traced program (for names and lines)\n"
	"  -b, --bias ADDR       PROG's load bias (position-independent code)\n"
	"convert: write the instructions TRACE executed as a pcs file (-o, default stdout)\n"
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
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct trace_cmd {
	const char *output, *sysroot, *qemu, *format, *campaign;
	struct trace_import import;
	long top;
	int quiet, online, no_progress;
};

static int parse(struct trace_cmd *t, int argc, char **argv, const char *sub)
{
	int c;
	long v;
	char *end;
	optind = 2;
	while ((c = getopt_long(argc, argv, "+o:L:f:a:e:b:c:n:qh", options, NULL)) != -1) {
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
		case 'c': t->campaign = optarg; break;
		case 'n':
			if ((v = parse_count(optarg)) < 0)
				return cmd_usage_error("trace", "--top wants a number, not '%s'", optarg);
			t->top = v;
			break;
		case 'q': t->quiet = 1; break;
		case 'P': t->no_progress = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("trace", "bad option for 'trace %s'", sub);
		}
	}
	return -1;
}

/* ---- record ------------------------------------------------------------- */

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
	unsigned char h[20];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, h, sizeof h) : -1;
	if (fd >= 0)
		close(fd);
	if (fd < 0)
		return zerr_set(err, "%s: cannot open: %s", path, strerror(errno)), NULL;
	if (n != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0)
		return zerr_set(err, "%s: not an ELF file", path), NULL;
	unsigned machine = h[18] | h[19] << 8;
	if (machine == EM_AARCH64)
		return "aarch64";
	if (machine == EM_RISCV)
		return h[EI_CLASS] == ELFCLASS32 ? "riscv32" : "riscv64";
	if (machine == EM_X86_64 && isa_find("x86_64"))
		return "x86_64";
	return zerr_set(err, "%s: unknown architecture (ELF machine %u); zond trace knows %s",
			path, machine, isa_names()), NULL;
}

/*
 * The file in which the plugin says "ok" once the trace or profile is
 * complete: QEMU exits with the guest's status whatever the plugin did.
 */
static int status_file(char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	int usable = dir && *dir && strlen(dir) < 40 && !strchr(dir, ','); /* ',' splits options */
	snprintf(path, size, "%s/zond-trace-XXXXXX", usable ? dir : "/tmp");
	return mkstemp(path);
}

/* Whether the plugin completed its trace; removes the status file. */
static int plugin_said_ok(const char *path)
{
	char buf[8] = "";
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, sizeof buf, f) && strcmp(buf, "ok\n") == 0;
	if (f)
		fclose(f);
	unlink(path);
	return ok;
}

static int record(struct trace_cmd *t, char **argv)
{
	struct zerr err;
	char prog[PATH_MAX], out[PATH_MAX + 16], qemu[64], opt[2 * PATH_MAX + 160];
	if (!realpath(argv[0], prog))
		return cmd_error("trace", "%s: program not found", argv[0]);
	const char *arch = elf_arch(prog, &err);
	if (!arch)
		return cmd_error("trace", "%s", err.msg);
	if (t->output) {
		snprintf(out, sizeof out, "%s", t->output);
	} else if (t->online) {
		snprintf(out, sizeof out, "%s", STORE_DEFAULT_PATH);
	} else {
		const char *base = strrchr(prog, '/');
		snprintf(out, sizeof out, "%s.ztrace", base ? base + 1 : prog);
	}
	const char *inputs[] = {prog, t->sysroot, NULL};
	char tmp[PATH_MAX];
	if (output_check(out, t->online ? OUTPUT_STORE : OUTPUT_FILE, inputs, &err) < 0 ||
	    (!t->online && output_temp(out, tmp, &err) < 0))
		return cmd_error("trace", "%s", err.msg);
	char status[64];
	int sfd = status_file(status, sizeof status);
	if (sfd < 0) {
		if (!t->online)
			unlink(tmp);
		return cmd_error("trace", "cannot create a temporary file: %s", strerror(errno));
	}
	close(sfd);
	snprintf(qemu, sizeof qemu, "qemu-%s", arch);
	snprintf(opt, sizeof opt, "%s,%s=%s,status=%s", find_plugin(), t->online ? "online" : "out",
		 t->online ? out : tmp, status);
	int argc = 0;
	while (argv[argc])
		argc++;
	char **qargv = zp_xcalloc((size_t)argc + 8, sizeof *qargv);
	int k = 0;
	qargv[k++] = (char *)(t->qemu ? t->qemu : qemu);
	qargv[k++] = "-plugin";
	qargv[k++] = opt;
	if (t->sysroot) {
		qargv[k++] = "-L";
		qargv[k++] = (char *)t->sysroot;
	}
	qargv[k++] = prog;
	for (int i = 1; i < argc; i++)
		qargv[k++] = argv[i];
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execvp(qargv[0], qargv);
		fprintf(stderr, "zond trace: %s: cannot run: %s\n", qargv[0], strerror(errno));
		_exit(127);
	}
	free(qargv);
	if (pid < 0) {
		unlink(status);
		return cmd_error("trace", "cannot start %s: %s", qemu, strerror(errno));
	}
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int;
	sigaction(SIGINT, &ign, &old_int);
	int wstatus;
	struct progress pr;
	progress_start(&pr, "trace", !t->quiet && !t->no_progress);
	progress_wait(&pr, pid, &wstatus, progress_file_size, t->online ? NULL : tmp);
	sigaction(SIGINT, &old_int, NULL);
	int ok = plugin_said_ok(status);
	if (!t->online && ok && output_commit(tmp, out, &err) < 0)
		ok = !cmd_error("trace", "%s", err.msg);
	else if (!t->online && !ok)
		unlink(tmp);
	if (ok && !t->quiet && !t->online)
		fprintf(stderr, "zond trace: trace written to %s\n", out);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	if (!ok)
		return WEXITSTATUS(wstatus) == 127 ? 127 : 1; /* the plugin has said why */
	return WEXITSTATUS(wstatus);
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
	if (!import)
		rc = trace_read_ztrace(path, syms, p, &info, &err);
	else if (strcmp(t->format, "qemu-log") == 0)
		rc = trace_read_qemu_log(path, &t->import, syms, p, &info, &err);
	else
		rc = trace_read_pcs(path, &t->import, syms, p, &info, &err);
	if (rc == 0) {
		char cmd[4200];
		snprintf(cmd, sizeof cmd, "%s", *info.program ? info.program : path);
		profile_set_str(&p->run.command, cmd);
		profile_set_str(&p->run.campaign, t->campaign);
		struct utsname u;
		if (uname(&u) == 0)
			profile_set_str(&p->run.host, u.nodename);
		p->run.start_ns = (int64_t)time(NULL) * 1000000000;
		p->run.exit_status = -1;
		char v[32];
		snprintf(v, sizeof v, "%" PRIu64, info.insns);
		profile_add_meta(p, "instructions", v);
		snprintf(v, sizeof v, "%" PRIu64, info.bytes);
		profile_add_meta(p, "trace_bytes", v);
		profile_add_meta(p, "trace", path);
		struct store *s = store_open(t->output, STORE_CREATE, &err);
		rc = !s || store_add_run(s, p, &err) < 0 ? -1 : 0;
		store_close(s);
	}
	if (rc == 0 && !t->quiet)
		print_summary(t, p, &info);
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
	int ok = trace_ztrace_to_pcs(path, syms, out.f, &info, &err) == 0;
	symbols_free(syms);
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
