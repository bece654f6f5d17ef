/* bare.c - `zond record` of a bare-metal RISC-V program under QEMU (bare.h). */
#include "bare.h"

#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../runtime/core/raw.h"
#include "cmd.h"
#include "inject/transport/rsp.h"
#include "symbols/symbols.h"
#include "util/clock.h"

/* The placeholder path the bare-metal port gives its module (runtime/bare/port.c). */
static const char elf_placeholder[] = "[elf]";

int bare_wanted(const struct launch *l, const char *elf)
{
	const char *slash = strrchr(l->argv[0], '/');
	const char *name = slash ? slash + 1 : l->argv[0];
	return elf || strncmp(name, "qemu-system-", 12) == 0;
}

const char bare_host_clock_note[] =
	"QEMU runs without -icount: mcycle follows the host's clock, so the cycles are not "
	"instructions and zond's exact accounting of its own cost becomes an estimate "
	"(-icount shift=0,sleep=off for exact figures)";

int bare_qemu_without_icount(char *const *argv)
{
	const char *slash = strrchr(argv[0], '/');
	const char *name = slash ? slash + 1 : argv[0];
	if (strncmp(name, "qemu-system-", 12) != 0)
		return 0;
	for (char *const *a = argv + 1; *a; a++)
		if (!strcmp(*a, "-icount") || !strcmp(*a, "--icount") ||
		    !strncmp(*a, "-icount=", 8) || !strncmp(*a, "--icount=", 9))
			return 0;
	return 1;
}

/* The argument after QEMU's -kernel, NULL when there is none. */
static char **kernel_arg(char **argv)
{
	for (char **a = argv + 1; *a; a++)
		if (!strcmp(*a, "-kernel") || !strcmp(*a, "--kernel"))
			return a[1] ? a + 1 : NULL;
	return NULL;
}

/* Nothing to set in QEMU's environment: it runs where and as the user's command says. */
static void no_setup(void *arg)
{
	(void)arg;
}

/* The ELF file the runtime runs in: RISC-V, else one line saying what it is. */
static int check_riscv(const char *elf, struct zerr *err)
{
	int machine = symbols_machine(elf, err);
	if (machine < 0)
		return -1;
	if (machine != EM_RISCV)
		return zerr_set(err, "%s: not a RISC-V ELF file (ELF machine %d): zond's bare-metal "
				     "runtime is RISC-V's",
				elf, machine);
	return 0;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	return pwrite(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/*
 * Names the module of the raw file at path after elf: the path goes into
 * the string pool's free room.  0 (also when the file is not the bare
 * port's: the reader then says what is wrong), or -1 with err set.
 */
static int name_module(const char *path, const char *elf, struct zerr *err)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : zerr_set(err, "%s: %s", path, strerror(errno));
	struct zr_header h;
	struct zr_module m;
	char old[sizeof elf_placeholder];
	int rc = 0;
	size_t len = strlen(elf) + 1;
	if (read_at(fd, &h, sizeof h, 0) < 0 || memcmp(h.magic, ZR_MAGIC, 8) != 0 ||
	    h.n_modules != 1 || read_at(fd, &m, sizeof m, h.modules_off) < 0 ||
	    m.path >= h.string_bytes || h.string_used > h.string_bytes ||
	    read_at(fd, old, sizeof old, h.strings_off + m.path) < 0 ||
	    memcmp(old, elf_placeholder, sizeof old) != 0)
		goto done;
	if (h.string_bytes - h.string_used < len) {
		rc = zerr_set(err, "%s: no room in the string pool for the ELF path %s", path, elf);
		goto done;
	}
	m.path = h.string_used;
	h.string_used += (uint32_t)len;
	if (write_at(fd, elf, len, h.strings_off + m.path) < 0 ||
	    write_at(fd, &m, sizeof m, h.modules_off) < 0 || write_at(fd, &h, sizeof h, 0) < 0)
		rc = zerr_set(err, "%s: cannot write: %s", path, strerror(errno));
done:
	close(fd);
	return rc;
}

static int write_file(const char *path, const uint8_t *data, uint64_t len, struct zerr *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return zerr_set(err, "%s: %s", path, strerror(errno));
	int rc = write_at(fd, data, len, 0) < 0 || close(fd) < 0 ? -1 : 0;
	if (rc < 0)
		zerr_set(err, "%s: cannot write: %s", path, strerror(errno));
	return rc;
}

/* elf's bytes into copy, the len bytes at off replaced by name. */
static int write_patched(const char *elf, const char *copy, uint64_t off, const char *name,
			 size_t len, struct zerr *err)
{
	int fd = open(elf, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return zerr_set(err, "%s: %s", elf, strerror(e));
	}
	uint8_t *data = malloc((size_t)st.st_size + 1);
	int rc = data && read_at(fd, data, (size_t)st.st_size, 0) == 0 &&
				 off + len <= (uint64_t)st.st_size
			 ? 0
			 : zerr_set(err, "%s: cannot read it whole", elf);
	close(fd);
	if (rc == 0) {
		memcpy(data + off, name, len);
		rc = write_file(copy, data, (uint64_t)st.st_size, err);
	}
	free(data);
	return rc;
}

/*
 * Makes copy, the ELF whose runtime writes its raw data to raw (an absolute
 * path in zond's directory: zond_bare_file, which semihosting resolves on the
 * host): QEMU then runs where the user's command runs, and the program's
 * own files (-serial file:, its semihosting fopen, -D) land where they would
 * without zond.  1 made, 0 when the ELF has no runtime (the run then says it
 * left no data), -1 with err set.
 */
static int patched_copy(const char *elf, const char *copy, const char *raw, struct zerr *err)
{
	struct symbols *syms = symbols_new();
	struct symbol name, buf;
	uint64_t off = 0;
	size_t len = strlen(raw) + 1;
	int found = symbols_named(syms, elf, "zond_bare_file", &name, err);
	if (found == 0 && symbols_named(syms, elf, "zond_raw_buffer", &buf, err) == 1)
		found = zerr_set(err, "%s: its bare-metal runtime is older than this zond (no "
				      "zond_bare_file): link it again with `zond config --target "
				      "... --libs`",
				 elf);
	if (found == 1 && name.size < len)
		found = zerr_set(err, "%s: the raw data's path %s is longer than the runtime's "
				      "%llu bytes (zond_bare_file): set TMPDIR to a shorter directory",
				 elf, raw, (unsigned long long)name.size);
	if (found == 1 && symbols_file_offset(syms, elf, name.start, len, &off, err) == 0)
		found = zerr_set(err, "%s: zond_bare_file is not in the file's loaded bytes", elf);
	symbols_free(syms);
	return found == 1 && write_patched(elf, copy, off, raw, len, err) < 0 ? -1 : found;
}

/*
 * argv with every argument that names the ELF (QEMU's -kernel FILE, a
 * wrapper script's argument) replaced by copy; *named, how many did.
 */
static char **point_at_copy(char **argv, const char *elf_path, char *copy, int *named)
{
	size_t n = 0;
	while (argv[n])
		n++;
	char **out = zp_xcalloc(n + 1, sizeof *out);
	char real[PATH_MAX];
	*named = 0;
	out[0] = argv[0];
	for (size_t i = 1; i < n; i++) {
		int same = realpath(argv[i], real) && strcmp(real, elf_path) == 0;
		out[i] = same ? copy : argv[i];
		*named += same;
	}
	return out;
}

/*
 * Before the run: the copy of elf_path (patched_copy) and the command run
 * on it (*run, to free); *runtime 0 when the ELF has none (run as it is).
 */
static int prepare_copy(struct launch *l, const char *elf_path, const char *given, char ***run,
			int *runtime, struct zerr *err)
{
	char raw[PATH_MAX], copy[PATH_MAX];
	if (launch_join_path(raw, sizeof raw, l->dir, "zond.zraw") < 0 ||
	    launch_join_path(copy, sizeof copy, l->dir, LAUNCH_ELF_COPY) < 0)
		return zerr_set(err, "%s: path too long", l->dir);
	*runtime = patched_copy(elf_path, copy, raw, err);
	if (*runtime < 0)
		return -1;
	int named = 0;
	/* without the runtime there is no copy: the command runs as it is */
	*run = point_at_copy(l->argv, *runtime ? elf_path : "", copy, &named);
	if (*runtime && !named)
		return zerr_set(err, "%s: no argument of the command names it: zond gives QEMU a "
				     "copy that writes the raw data to zond's directory, so the "
				     "command must name the ELF (-kernel FILE, or a script's "
				     "argument)",
				given);
	return 0;
}

int bare_record(struct launch *l, const char *elf)
{
	char **kernel = kernel_arg(l->argv);
	if (!elf && !kernel)
		return cmd_usage_error("record", "no ELF file: give --elf FILE or QEMU's -kernel FILE");
	const char *given = elf ? elf : *kernel;
	char elf_path[PATH_MAX], raw[PATH_MAX];
	struct zerr err;
	if (!realpath(given, elf_path))
		return cmd_error("record", "%s: %s", given, strerror(errno));
	l->bare = 1;
	if (check_riscv(elf_path, &err) < 0 || launch_prepare(l, "record", &err) < 0)
		return cmd_error("record", "%s", err.msg);
	l->host_clock = bare_qemu_without_icount(l->argv);
	if (l->host_clock) /* even with -q: the figures are estimates */
		fprintf(stderr, "zond record: warning: %s\n", bare_host_clock_note);
	char **argv = l->argv, **run = NULL;
	int runtime = 0;
	if (prepare_copy(l, elf_path, given, &run, &runtime, &err) < 0) {
		free(run);
		launch_remove_dir(l->dir);
		return cmd_error("record", "%s; nothing run", err.msg);
	}
	l->argv = run;
	int status = launch_run(l, no_setup, NULL, &err);
	l->argv = argv; /* the user's command, for the run's description */
	free(run);
	if (status == 0 && runtime && launch_join_path(raw, sizeof raw, l->dir, "zond.zraw") == 0)
		status = name_module(raw, elf_path, &err);
	if (status < 0) {
		l->keep_raw = 1;
		cmd_error("record", "%s", err.msg);
	}
	return launch_collect(l, "record",
			      "left no profile data: was it linked with `zond config --target "
			      "rv32imac --libs` and run with semihosting on, and did it reach exit?");
}

/* ---- the raw data read from RAM over the GDB remote protocol ---------------- */

#define GDB_TIMEOUT_MS 5000 /* connecting, and any one reply */
#define GDB_POLL_MS    100  /* how often Ctrl-C and --duration are looked at */

static volatile sig_atomic_t interrupted;

static void note_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* What the ELF file says about the runtime in it: where its raw data live and where it ends. */
struct bare_image {
	uint64_t buffer, buffer_size;  /* zond_raw_buffer */
	uint64_t write_out, out_size;  /* zb_write_out: the end of the run, data complete */
	uint64_t entry;                /* the ELF's entry point */
	uint64_t main, main_size;      /* main, 0 if none: the program's own code */
	int bits;                      /* 32 or 64: the ELF's class */
};

static int find_symbol(struct symbols *syms, const char *elf, const char *name, struct symbol *sym,
		       struct zerr *err)
{
	int found = symbols_named(syms, elf, name, sym, err);
	if (found == 0)
		zerr_set(err,
			 "%s: no symbol %s: not linked with zond's bare-metal runtime (`zond "
			 "config --target rv32imac --libs`)",
			 elf, name);
	return found == 1 ? 0 : -1;
}

static int read_image(const char *elf, struct bare_image *im, struct zerr *err)
{
	struct symbols *syms = symbols_new();
	struct symbol buf = {0}, end = {0};
	int rc = find_symbol(syms, elf, "zond_raw_buffer", &buf, err) < 0 ||
				 find_symbol(syms, elf, "zb_write_out", &end, err) < 0
			 ? -1
			 : 0;
	if (rc == 0 && buf.size < sizeof(struct zr_header))
		rc = zerr_set(err, "%s: zond_raw_buffer is %llu bytes: too small for raw data", elf,
			      (unsigned long long)buf.size);
	*im = (struct bare_image){buf.start, buf.size, end.start, end.size, 0, 0, 0, 0};
	struct symbol main_sym;
	if (rc == 0 && symbols_named(syms, elf, "main", &main_sym, err) == 1) {
		im->main = main_sym.start;
		im->main_size = main_sym.size;
	}
	symbols_free(syms);
	if (rc == 0 && ((im->bits = symbols_class(elf, err)) < 0 ||
			symbols_entry(elf, &im->entry, err) < 0))
		rc = -1;
	return rc;
}

/* One run of the target over the connection: what happened, what was read. */
struct gdb_run {
	struct rsp *r;
	struct bare_image im;
	uint32_t pc, ra, a0; /* register numbers */
	size_t xlen;
	int complete;    /* stopped at the runtime's end: the data are final */
	int exit_status; /* the header's, -1 unless the program exited */
};

static int reg_number(struct gdb_run *g, const struct rsp_regs *regs, const char *name,
		      uint32_t *num, struct zerr *err)
{
	const struct rsp_reg *reg = rsp_reg_find(regs, name);
	if (!reg)
		return zerr_set(err, "%s: the target has no register %s (%s): zond record --gdb "
				     "knows RISC-V",
				rsp_name(g->r), name, regs->arch[0] ? regs->arch : "unknown");
	*num = reg->regnum;
	g->xlen = reg->bitsize / 8;
	return 0;
}

static int describe_target(struct gdb_run *g, struct zerr *err)
{
	struct rsp_regs regs = {0};
	int rc = rsp_target_regs(g->r, &regs, err) < 0 || reg_number(g, &regs, "ra", &g->ra, err) < 0 ||
			 reg_number(g, &regs, "a0", &g->a0, err) < 0 ||
			 reg_number(g, &regs, "pc", &g->pc, err) < 0
		 ? -1
		 : 0;
	rsp_regs_free(&regs);
	return rc;
}

/* 1 when the target holds elf's bytes at addr (len, at most 64 of them), 0 if not, -1. */
static int same_code(struct gdb_run *g, const char *elf, uint64_t addr, uint64_t len,
		     struct zerr *err)
{
	uint8_t code[64];
	if (len > sizeof code)
		len = sizeof code;
	if (rsp_read_mem(g->r, addr, code, len, err) < 0)
		return -1;
	struct symbols *syms = symbols_new();
	int same = symbols_same_bytes(syms, elf, addr, code, len, err);
	symbols_free(syms);
	return same;
}

/*
 * Before zond plants anything: the target runs elf -- its word size, and
 * its code where zond stops it and returns from (zb_write_out), where it
 * starts and main (the program's own) are the ELF's -- else one line, and
 * the target is let go untouched: a breakpoint planted in another
 * program's code would crash it.
 */
static int check_runs_elf(struct gdb_run *g, const char *elf, struct zerr *err)
{
	if ((size_t)g->im.bits != g->xlen * 8)
		return zerr_set(err, "%s: the target does not run %s (%d-bit code, a %zu-bit hart)",
				rsp_name(g->r), elf, g->im.bits, g->xlen * 8);
	int same = same_code(g, elf, g->im.write_out, g->im.out_size ? g->im.out_size : 4, err);
	if (same == 1)
		same = same_code(g, elf, g->im.entry, 32, err);
	if (same == 1 && g->im.main)
		same = same_code(g, elf, g->im.main, g->im.main_size ? g->im.main_size : 4, err);
	if (same == 0)
		zerr_set(err, "%s: the target does not run %s (its code at zb_write_out, the entry "
			      "or main is another program's)",
			 rsp_name(g->r), elf);
	return same == 1 ? 0 : -1;
}

/*
 * Lets the target run until the runtime's end (a breakpoint at
 * zb_write_out: zrt_process_end has run, the data are final), Ctrl-C or
 * duration_s seconds (0: none); then it is stopped.
 */
static int run_to_end(struct gdb_run *g, int duration_s, struct zerr *err)
{
	struct rsp_stop st;
	if (rsp_halt_reason(g->r, &st, err) < 0)
		return -1;
	if (st.kind == 'W' || st.kind == 'X')
		return zerr_set(err, "%s: the target has already ended: its RAM is gone",
				rsp_name(g->r));
	if (rsp_break(g->r, g->im.write_out, 2, 1, err) < 0 || rsp_continue(g->r, err) < 0)
		return -1;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = rsp_wait_stop(g->r, GDB_POLL_MS, &st, err);
		if (rc < 0)
			return -1;
		if (rc == 1)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t ms = (int64_t)(now.tv_sec - t0.tv_sec) * 1000 +
			     (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (interrupted || (duration_s && ms >= (int64_t)duration_s * 1000)) {
			if (rsp_interrupt(g->r, err) < 0 || (rc = rsp_wait_stop(g->r, -1, &st, err)) < 0)
				return -1;
			if (rc == 0)
				return zerr_set(err, "%s: the target did not stop when interrupted",
						rsp_name(g->r));
			break;
		}
	}
	if (st.kind == 'W' || st.kind == 'X')
		return zerr_set(err, "%s: the target ended (%s %d) without reaching the runtime's "
				     "end (zb_write_out): its RAM is gone",
				rsp_name(g->r), st.kind == 'W' ? "status" : "signal", st.value);
	uint64_t pc;
	if (rsp_read_reg(g->r, g->pc, g->xlen, &pc, err) < 0)
		return -1;
	g->complete = pc == g->im.write_out;
	return 0;
}

/* The raw data as they are in RAM: the header's file_bytes from zond_raw_buffer. */
static int read_raw(struct gdb_run *g, const char *elf, uint8_t **data, uint64_t *len,
		    struct zerr *err)
{
	struct zr_header h;
	if (rsp_read_mem(g->r, g->im.buffer, &h, sizeof h, err) < 0)
		return -1;
	if (memcmp(h.magic, ZR_MAGIC, 8) != 0)
		return zerr_set(err, "%s: no raw data at zond_raw_buffer (0x%llx) of %s: the "
				     "runtime has not started (no probe ran yet)",
				rsp_name(g->r), (unsigned long long)g->im.buffer, elf);
	if (h.file_bytes < sizeof h || h.file_bytes > g->im.buffer_size)
		return zerr_set(err, "%s: the raw header at 0x%llx says %llu bytes, zond_raw_buffer "
				     "has %llu",
				rsp_name(g->r), (unsigned long long)g->im.buffer,
				(unsigned long long)h.file_bytes,
				(unsigned long long)g->im.buffer_size);
	g->exit_status = h.state == ZR_EXITED ? h.exit_status : -1;
	*len = h.file_bytes;
	*data = malloc(*len);
	if (!*data)
		return zerr_set(err, "out of memory for %llu bytes", (unsigned long long)*len);
	if (rsp_read_mem(g->r, g->im.buffer, *data, *len, err) < 0) {
		free(*data);
		*data = NULL;
		return -1;
	}
	return 0;
}

/* Detaches from the stub (D): the target runs on. */
static int detach(struct rsp *r, struct zerr *err)
{
	const char *reply;
	size_t n;
	return rsp_request(r, "D", &reply, &n, err);
}

/*
 * Lets the target go on.  At the runtime's end its write-out through
 * semihosting is skipped, as if it had written (a0 = 0, back to ra): zond
 * has the data, and a board without semihosting would trap on it.
 */
static int let_go(struct gdb_run *g, struct zerr *err)
{
	uint64_t ra;
	if (g->complete && (rsp_read_reg(g->r, g->ra, g->xlen, &ra, err) < 0 ||
			    rsp_write_reg(g->r, g->a0, g->xlen, 0, err) < 0 ||
			    rsp_write_reg(g->r, g->pc, g->xlen, ra, err) < 0))
		return -1;
	return rsp_break(g->r, g->im.write_out, 2, 0, err) < 0 || detach(g->r, err) < 0 ? -1 : 0;
}

/* Runs the target to its end (or the interruption) and leaves its raw data in l->dir. */
static int fetch_raw(struct launch *l, struct gdb_run *g, const char *hostport, const char *elf,
		     int duration_s, struct zerr *err)
{
	g->r = rsp_connect(hostport, NULL, GDB_TIMEOUT_MS, err);
	if (!g->r || describe_target(g, err) < 0)
		return -1;
	if (check_runs_elf(g, elf, err) < 0) {
		struct zerr ignored;
		if (!rsp_gone(g->r)) /* nothing planted: it runs on as it was */
			detach(g->r, &ignored);
		return -1;
	}
	struct sigaction sa = {.sa_handler = note_interrupt}, old;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	l->start_ns = clock_now_ns(CLOCK_REALTIME);
	int rc = run_to_end(g, duration_s, err);
	sigaction(SIGINT, &old, NULL);
	l->duration_ns = clock_now_ns(CLOCK_REALTIME) - l->start_ns;
	uint8_t *data = NULL;
	uint64_t len = 0;
	char raw[PATH_MAX];
	if (rc == 0)
		rc = read_raw(g, elf, &data, &len, err);
	if (rc == 0 && launch_join_path(raw, sizeof raw, l->dir, "zond.zraw") < 0)
		rc = zerr_set(err, "%s: path too long", l->dir);
	if (rc == 0)
		rc = write_file(raw, data, len, err);
	free(data);
	if (rc == 0)
		rc = name_module(raw, elf, err);
	struct zerr ignored;
	if (rc == 0 && let_go(g, err) < 0) /* the data are in: a failure here costs nothing */
		cmd_error("record", "%s", err->msg);
	else if (rc < 0 && !rsp_gone(g->r))
		let_go(g, &ignored);
	return rc;
}

int bare_record_gdb(struct launch *l, const char *hostport, const char *elf, int duration_s)
{
	char elf_path[PATH_MAX], sock[PATH_MAX];
	if (!realpath(elf, elf_path))
		return cmd_error("record", "%s: %s", elf, strerror(errno));
	/* a relative socket path, which may not exist yet (rsp_connect takes /PATH or HOST:PORT) */
	if (strchr(hostport, '/') && hostport[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd) || launch_join_path(sock, sizeof sock, cwd, hostport) < 0)
			return cmd_error("record", "%s: path too long", hostport);
		hostport = sock;
	}
	struct zerr err;
	struct gdb_run g = {0};
	if (check_riscv(elf_path, &err) < 0 || read_image(elf_path, &g.im, &err) < 0)
		return cmd_error("record", "%s", err.msg);
	snprintf(l->prog, sizeof l->prog, "%s", elf_path);
	l->bare = 1;
	char *argv[] = {"--gdb", (char *)hostport, "--elf", elf_path, NULL};
	l->argv = argv;
	if (launch_prepare(l, "record", &err) < 0)
		return cmd_error("record", "%s", err.msg);
	interrupted = 0;
	int rc = fetch_raw(l, &g, hostport, elf_path, duration_s, &err);
	rsp_close(g.r);
	if (rc < 0) {
		cmd_error("record", "%s; no run stored", err.msg);
		launch_remove_dir(l->dir);
		return 1;
	}
	l->exit_status = g.exit_status;
	if (!g.complete)
		fprintf(stderr,
			"zond record: a partial run: the pools were read as they were after %.1f s "
			"(%s); the target runs on\n",
			(double)l->duration_ns / 1e9, interrupted ? "Ctrl-C" : "--duration");
	int status = launch_collect(l, "record", "no raw data in the target's RAM");
	/* the target's exit status comes from its raw data; a partial run has none */
	return g.complete || status >= 0 ? status : 0;
}
