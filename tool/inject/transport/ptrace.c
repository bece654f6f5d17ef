/*
 * ptrace.c - the ptrace transport of zond inject (transport.h), Linux
 * x86-64.
 *
 * The program is started with PTRACE_TRACEME and stops at its exec, before
 * any of its code ran (with Yama's ptrace_scope 1 a child is ours to trace).
 * Memory goes through /proc/PID/mem, which writes read-only code pages as a
 * debugger does.  System calls the target must make (mmap near a module,
 * opening the controller's memfd) run on the target's own `syscall`
 * instruction, found in one of its executable mappings: its registers are
 * saved, set for the call with the pc on that instruction and orig_rax -1
 * (no restart of an interrupted call), single-stepped, and put back.
 * Shared memory is a memfd the target makes, mapped MAP_SHARED by it and
 * by the controller (through /proc/PID/fd/N), then closed again, so the
 * target's descriptors are as before.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../transport.h"
#include "model/profile.h"
#include "util/fds.h"
#include "util/forward.h"

#ifdef __x86_64__

struct ptrace_target {
	struct inject_transport t;
	pid_t pid;
	int mem;          /* /proc/PID/mem */
	uint64_t syscall; /* address of a `syscall` instruction in the target */
	int released;
	int attached; /* seized (-p), not started */
	int ended;    /* the started target ended while zond held it */
	int pidfd;    /* attached: the process itself (pidfd_open), -1: none (Linux < 5.3) */
	int status;   /* then its wait status */
	pid_t *tids;  /* the stopped threads; system calls run on tids[0] */
	size_t ntids;
	/*
	 * Signals sent to the program while zond held it (its signal-delivery
	 * stops that were not zond's own traps): taken from the kernel by the
	 * stop, so zond gives each back when it lets the thread go (held_give),
	 * else the program would never get them (QA s11 F8: SIGTERM, SIGINT,
	 * timeout(1)'s signal to zond passed on, all swallowed at start-up).
	 */
	struct held_signal {
		pid_t tid;
		siginfo_t si;
	} *held; /* in the order they came (as many as came: 64 before, QA s16 X2 F4) */
	size_t nheld, held_cap;
	pid_t delivery_tid; /* the thread whose last stop was a signal-delivery stop, or 0 */
	pid_t own_xfsz;     /* a SIGXFSZ of zond's own ftruncate still to come for it (forget_own_xfsz) */
	pid_t ended_tid;    /* the last thread whose wait found it ended, not stopped */
	uint64_t shared_at, shared_ino; /* the results' memfd: where the target maps it, its inode */
	int lifeline;       /* the write end of pt_lifeline's pipe, -1: none */
};

static struct ptrace_target *as_target(struct inject_transport *t)
{
	return (struct ptrace_target *)t;
}

/* waitpid again when a signal zond passes on (util/forward.h) interrupted it. */
static pid_t wait_eintr(pid_t pid, int *status, int flags)
{
	pid_t r;
	while ((r = waitpid(pid, status, flags)) < 0 && errno == EINTR)
		;
	return r;
}

static int pt_read(struct inject_transport *t, uint64_t addr, void *buf, size_t n, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	if (pread(p->mem, buf, n, (off_t)addr) != (ssize_t)n)
		return zerr_set(err, "process %d: cannot read %zu bytes at 0x%llx (%s)", p->pid, n,
				(unsigned long long)addr, strerror(errno));
	return 0;
}

static int pt_write(struct inject_transport *t, uint64_t addr, const void *buf, size_t n,
		    struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	if (pwrite(p->mem, buf, n, (off_t)addr) != (ssize_t)n)
		return zerr_set(err, "process %d: cannot write %zu bytes at 0x%llx (%s)", p->pid, n,
				(unsigned long long)addr, strerror(errno));
	return 0;
}

/* One line of /proc/PID/maps. */
struct mapping {
	uint64_t lo, hi, off, inode;
	const char *perms, *path;
};

/* Calls fn for each line of /proc/PID/maps until it returns non-zero. */
static int each_mapping(pid_t pid, int (*fn)(void *arg, const struct mapping *m), void *arg)
{
	char name[64], line[PATH_MAX + 128];
	snprintf(name, sizeof name, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(name, "re");
	if (!f)
		return -1;
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off, inode;
		char perms[8];
		int used = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &lo, &hi, perms, &off, &inode,
			   &used) < 5)
			continue;
		char *path = line + used;
		path[strcspn(path, "\n")] = 0;
		struct mapping m = {lo, hi, off, inode, perms, path};
		rc = fn(arg, &m);
	}
	fclose(f);
	return rc;
}

struct find_syscall {
	struct ptrace_target *p;
	uint64_t found;
};

static int find_syscall_in(void *arg, const struct mapping *m)
{
	struct find_syscall *f = arg;
	/*
	 * Files' code only (the C library's, the vdso's): never memory zond
	 * mapped, which zond may unmap with that very instruction (an earlier
	 * attach's trampolines, clear_left in scenario.c).
	 */
	if (m->perms[2] != 'x' || m->hi - m->lo > (64u << 20) || !m->path[0])
		return 0;
	uint8_t *buf = zp_xmalloc(m->hi - m->lo);
	ssize_t got = pread(f->p->mem, buf, m->hi - m->lo, (off_t)m->lo);
	for (ssize_t i = 0; i + 1 < got; i++)
		if (buf[i] == 0x0f && buf[i + 1] == 0x05) {
			f->found = m->lo + (uint64_t)i;
			break;
		}
	free(buf);
	return f->found != 0;
}

/* Forgets held signal i, the others kept in their order (a realtime signal's queue's). */
static void held_drop(struct ptrace_target *p, size_t i)
{
	memmove(&p->held[i], &p->held[i + 1], (p->nheld - i - 1) * sizeof *p->held);
	p->nheld--;
}

/* Keeps a signal someone sent the program while zond held thread tid. */
static void hold_signal(struct ptrace_target *p, pid_t tid, const siginfo_t *si)
{
	if (si->si_signo == SIGXFSZ && p->own_xfsz == tid) { /* zond's own: forget_own_xfsz */
		p->own_xfsz = 0;
		return;
	}
	for (size_t i = 0; i < p->nheld; i++) /* a standard signal is pending once */
		if (p->held[i].tid == tid && p->held[i].si.si_signo == si->si_signo &&
		    si->si_signo < SIGRTMIN)
			return;
	if (p->nheld == p->held_cap) {
		p->held_cap = p->held_cap ? 2 * p->held_cap : 64;
		p->held = zp_xrealloc(p->held, p->held_cap * sizeof *p->held);
	}
	p->held[p->nheld++] = (struct held_signal){tid, *si};
}

/*
 * Forgets the SIGXFSZ zond's own system call in thread tid raised (an
 * ftruncate beyond the program's `ulimit -f`, which fails with EFBIG): it
 * is zond's trouble, not the program's, and given back it killed the
 * program before it ran (QA s11 K F3).
 */
static void forget_own_xfsz(struct ptrace_target *p, pid_t tid)
{
	for (size_t i = 0; i < p->nheld; i++)
		if (p->held[i].tid == tid && p->held[i].si.si_signo == SIGXFSZ) {
			held_drop(p, i);
			return;
		}
	p->own_xfsz = tid; /* still pending in the kernel: dropped at its stop (hold_signal) */
}

/*
 * Whether a stop (status) of thread tid is a signal someone sent the
 * program (kill, tgkill, the terminal, the kernel for the program's own
 * faults), not zond's own: a single step's or a breakpoint's SIGTRAP (from
 * the kernel), PTRACE_INTERRUPT's stop (an event stop), the exec's trap.
 * Its siginfo in *si.
 */
static int foreign_signal(pid_t tid, int status, siginfo_t *si)
{
	if (!WIFSTOPPED(status) || (status >> 16) != 0)
		return 0; /* an event stop: PTRACE_INTERRUPT's, a group stop */
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, si) < 0)
		return 0;
	return WSTOPSIG(status) != SIGTRAP || si->si_code <= 0; /* SI_USER, SI_TKILL, SI_QUEUE */
}

/* Whether signal sig, raised by the kernel, is an instruction's fault. */
static int own_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/*
 * Waits for thread tid's stop after request req (PTRACE_SINGLESTEP,
 * PTRACE_INTERRUPT); a signal someone sent the program meanwhile is held
 * (hold_signal) and the request made again, so the stop returned is
 * zond's.  A started target's end is kept for wait().
 */
static int stopped_after(struct ptrace_target *p, pid_t tid, int req, struct zerr *err)
{
	for (;;) {
		int status;
		if (wait_eintr(tid, &status, __WALL) != tid)
			return zerr_set(err, "process %d: %s", (int)tid, strerror(errno));
		if (!WIFSTOPPED(status)) {
			p->ended_tid = tid;
			if (tid == p->pid && !p->attached) {
				p->ended = 1;
				p->status = status;
			}
			return zerr_set(err, "process %d ended while zond inject held it", (int)tid);
		}
		siginfo_t si;
		int foreign = foreign_signal(tid, status, &si);
		if (foreign && req == PTRACE_SINGLESTEP && si.si_code > 0 && own_fault(si.si_signo))
			/* zond's step faulted: stepped again it faults for ever */
			return zerr_set(err, "process %d: thread %d: %s at 0x%llx in zond's step",
					p->pid, (int)tid, strsignal(si.si_signo),
					(unsigned long long)(uintptr_t)si.si_addr);
		if (foreign)
			hold_signal(p, tid, &si);
		if (req == PTRACE_INTERRUPT || (!foreign && (status >> 16) == 0)) {
			/* stopped (a signal-delivery stop takes a signal zond may give back) */
			p->delivery_tid = (status >> 16) == 0 ? tid : 0;
			return 0;
		}
		/* a signal's stop, or an interrupt's left from before: the step again */
		if (ptrace(req, tid, 0, 0) < 0)
			return zerr_set(err, "process %d: %s", (int)tid, strerror(errno));
	}
}

static int stopped(struct ptrace_target *p, pid_t tid, struct zerr *err)
{
	return stopped_after(p, tid, PTRACE_SINGLESTEP, err);
}

/*
 * Lets thread tid go on (PTRACE_CONT) or go (PTRACE_DETACH), giving back
 * the signals held for it: the first through the stop, with its own siginfo
 * (the program sees the sender it would see) where the thread is in a
 * signal-delivery stop; the others, and any for a thread in another stop,
 * sent again once it runs (process-directed ones to the process).  With
 * PTRACE_CONT only the first goes; the rest wait for the next.
 */
static int resume_giving(struct ptrace_target *p, pid_t tid, int req)
{
	int sig = 0;
	size_t first = p->nheld;
	for (size_t i = 0; i < p->nheld; i++)
		if (p->held[i].tid == tid) {
			first = i;
			break;
		}
	if (first < p->nheld && p->delivery_tid == tid &&
	    ptrace(PTRACE_SETSIGINFO, tid, 0, &p->held[first].si) == 0) {
		sig = p->held[first].si.si_signo;
		held_drop(p, first);
	}
	int rc = ptrace(req, tid, 0, sig);
	if (rc == 0 && sig)
		p->delivery_tid = 0;
	if (req != PTRACE_DETACH)
		return rc;
	for (size_t i = 0; i < p->nheld;) {
		if (p->held[i].tid != tid) {
			i++;
			continue;
		}
		siginfo_t *si = &p->held[i].si;
		/*
		 * A queued signal (sigqueue, a timer's, AIO's: si_code < 0 but
		 * tgkill's) goes again with its own siginfo, sender and value
		 * (the kernel lets anyone send those); kill's and tgkill's cannot
		 * be sent as another's: they come from zond (QA s16 X2 F4).
		 */
		if (si->si_code == SI_USER)
			kill(p->pid, si->si_signo);
		else if (si->si_code >= 0 || si->si_code == SI_TKILL ||
			 syscall(SYS_rt_tgsigqueueinfo, p->pid, tid, si->si_signo, si) < 0)
			syscall(SYS_tgkill, p->pid, tid, si->si_signo);
		held_drop(p, i);
	}
	return rc;
}

/* Runs syscall nr with args in the stopped target; its result in *ret. */
static int remote_syscall(struct ptrace_target *p, long nr, const uint64_t args[6], int64_t *ret,
			  struct zerr *err)
{
	struct user_regs_struct saved, r;
	pid_t tid = p->tids[0];
	if (ptrace(PTRACE_GETREGS, tid, 0, &saved) < 0)
		return zerr_set(err, "process %d: cannot read registers (%s)", p->pid,
				strerror(errno));
	r = saved;
	r.rax = (unsigned long long)nr;
	r.orig_rax = (unsigned long long)-1;
	r.rdi = args[0], r.rsi = args[1], r.rdx = args[2];
	r.r10 = args[3], r.r8 = args[4], r.r9 = args[5];
	r.rip = p->syscall;
	if (ptrace(PTRACE_SETREGS, tid, 0, &r) < 0 || ptrace(PTRACE_SINGLESTEP, tid, 0, 0) < 0)
		return zerr_set(err, "process %d: cannot run a system call (%s)", p->pid,
				strerror(errno));
	if (stopped(p, tid, err) < 0)
		return -1;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0 || ptrace(PTRACE_SETREGS, tid, 0, &saved) < 0)
		return zerr_set(err, "process %d: cannot restore registers (%s)", p->pid,
				strerror(errno));
	*ret = (int64_t)r.rax;
	return 0;
}

static int pt_alloc(struct inject_transport *t, size_t len, uint64_t *out, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	uint64_t a[6] = {0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1,
			 0};
	int64_t r;
	if (remote_syscall(p, SYS_mmap, a, &r, err) < 0)
		return -1;
	if (r < 0 && r > -4096)
		return zerr_set(err, "process %d: no memory for %zu bytes (%s)", p->pid, len,
				strerror((int)-r));
	*out = (uint64_t)r;
	return 0;
}

static int pt_alloc_near(struct inject_transport *t, uint64_t addr, size_t len, uint64_t *out,
			 struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	const uint64_t reach = 1ull << 31, step = 1ull << 24; /* try every 16 MiB */
	uint64_t base = addr & ~(uint64_t)0xfff;
	for (uint64_t d = step; d < reach - step; d += step) {
		for (int side = 0; side < 2; side++) {
			uint64_t hint = side ? base - d : base + d;
			if (side && d > base)
				continue;
			uint64_t a[6] = {hint,
					 len,
					 PROT_READ | PROT_EXEC,
					 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
					 (uint64_t)-1,
					 0};
			int64_t r;
			if (remote_syscall(p, SYS_mmap, a, &r, err) < 0)
				return -1;
			if (r == (int64_t)hint) {
				*out = (uint64_t)r;
				return 0;
			}
		}
	}
	return zerr_set(err, "process %d: no free memory within 2 GiB of 0x%llx", p->pid,
			(unsigned long long)addr);
}

/* Puts a string on the target's stack, well below its red zone; its address. */
static int push_string(struct ptrace_target *p, const char *s, uint64_t *at, struct zerr *err)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, p->tids[0], 0, &r) < 0)
		return zerr_set(err, "process %d: cannot read registers (%s)", p->pid,
				strerror(errno));
	*at = ((uint64_t)r.rsp - 1024 - strlen(s) - 1) & ~(uint64_t)15;
	return pt_write(&p->t, *at, s, strlen(s) + 1, err);
}

/*
 * Shared memory: a memfd the target makes itself (memfd_create, ftruncate,
 * mmap MAP_SHARED), which zond, its tracer, opens through
 * /proc/PID/fd/N and maps too; the target's descriptor is closed again,
 * so its descriptors are as before.  Before, zond made the memfd and the
 * target opened /proc/ZOND/fd/N, which a process of another user may not
 * (zond as root on a daemon's process: Permission denied, QA s11 F4).
 */
static int pt_share(struct inject_transport *t, size_t len, void **local, uint64_t *remote,
		    struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	uint64_t at = 0;
	int64_t rfd = -1, r = 0, addr = -1;
	void *mine = MAP_FAILED;
	int rc = push_string(p, "zond-inject", &at, err);
	if (rc == 0) {
		uint64_t a[6] = {at, MFD_CLOEXEC, 0, 0, 0, 0};
		rc = remote_syscall(p, SYS_memfd_create, a, &rfd, err);
	}
	if (rc == 0 && rfd < 0)
		rc = zerr_set(err, "process %d cannot make a memfd for the results (%s)", p->pid,
			      strerror((int)-rfd));
	if (rc == 0) {
		uint64_t a[6] = {(uint64_t)rfd, len, 0, 0, 0, 0};
		rc = remote_syscall(p, SYS_ftruncate, a, &r, err);
		if (rc == 0 && r == -EFBIG)
			forget_own_xfsz(p, p->tids[0]);
		if (rc == 0 && r < 0)
			rc = zerr_set(err, "process %d cannot size the memory for the results, %zu "
					   "bytes (%s%s)", p->pid, len, strerror((int)-r),
				      r == -EFBIG ? ": the program's ulimit -f" : "");
	}
	if (rc == 0) {
		uint64_t a[6] = {0, len, PROT_READ | PROT_WRITE, MAP_SHARED, (uint64_t)rfd, 0};
		rc = remote_syscall(p, SYS_mmap, a, &addr, err);
		if (rc == 0 && addr < 0 && addr > -4096)
			rc = zerr_set(err, "process %d cannot map its memfd (%s)", p->pid,
				      strerror((int)-addr));
	}
	if (rc == 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)p->tids[0], (int)rfd);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			rc = zerr_set(err, "cannot open the results' memfd %s (%s)", path,
				      strerror(errno));
		else {
			mine = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (mine == MAP_FAILED)
				rc = zerr_set(err, "memfd for the results: %s", strerror(errno));
			struct stat st;
			p->shared_ino = fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0;
			close(fd); /* the mappings keep the memory */
		}
		if (rc < 0) { /* the target's mapping goes again */
			uint64_t a[6] = {(uint64_t)addr, len, 0, 0, 0, 0};
			struct zerr ignored;
			remote_syscall(p, SYS_munmap, a, &r, &ignored);
		}
	}
	if (rfd >= 0) {
		uint64_t c[6] = {(uint64_t)rfd, 0, 0, 0, 0, 0};
		struct zerr ignored;
		if (remote_syscall(p, SYS_close, c, &r, rc == 0 ? err : &ignored) < 0 && rc == 0)
			rc = -1;
	}
	if (rc < 0) {
		if (mine != MAP_FAILED)
			munmap(mine, len);
		return -1;
	}
	*local = mine;
	*remote = (uint64_t)addr;
	p->shared_at = (uint64_t)addr;
	return 0;
}

static int maps_shared(void *arg, const struct mapping *m)
{
	const struct ptrace_target *p = arg;
	return m->lo == p->shared_at && m->inode == p->shared_ino;
}

/*
 * Whether the process has exec'd since zond shared the results with it:
 * its maps no longer hold the memfd where it was mapped (an exec replaces
 * every mapping; the pid stays).
 */
static int pt_replaced(struct inject_transport *t)
{
	struct ptrace_target *p = as_target(t);
	/* through a live thread: a main thread that has exited shows no maps (zleader) */
	pid_t through = p->ntids ? p->tids[0] : p->pid;
	return p->shared_ino && !p->ended && each_mapping(through, maps_shared, p) == 0;
}

/* The target ended (status) while zond led it to its entry point: -1 with err set. */
static int ended_early(struct ptrace_target *p, int status, struct zerr *err)
{
	p->ended = 1;
	p->status = status;
	p->ntids = 0;
	return zerr_set(err, "process %d ended before its entry point", p->pid);
}

/* One instruction of a started target's thread, stopped at addr: 0, or -1 with err set. */
static int step_past(struct ptrace_target *p, struct zerr *err)
{
	if (ptrace(PTRACE_SINGLESTEP, p->pid, 0, 0) < 0)
		return zerr_set(err, "process %d: %s", p->pid, strerror(errno));
	if (stopped(p, p->pid, err) == 0)
		return 0;
	return p->ended ? ended_early(p, p->status, err) : -1;
}

static int pt_run_to(struct inject_transport *t, uint64_t addr, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	uint8_t orig, trap = 0xcc;
	struct user_regs_struct now;
	if (ptrace(PTRACE_GETREGS, p->pid, 0, &now) < 0)
		return zerr_set(err, "process %d: %s", p->pid, strerror(errno));
	if (now.rip == addr && step_past(p, err) < 0) /* the trap would be this arrival's again */
		return -1;
	if (pt_read(t, addr, &orig, 1, err) < 0 || pt_write(t, addr, &trap, 1, err) < 0)
		return -1;
	int sig = 0, status;
	for (;;) {
		if (ptrace(PTRACE_CONT, p->pid, 0, sig) < 0 || wait_eintr(p->pid, &status, 0) != p->pid)
			return zerr_set(err, "process %d: %s", p->pid, strerror(errno));
		if (!WIFSTOPPED(status))
			return ended_early(p, status, err);
		p->delivery_tid = p->pid;
		struct user_regs_struct r;
		if (WSTOPSIG(status) == SIGTRAP && ptrace(PTRACE_GETREGS, p->pid, 0, &r) == 0 &&
		    r.rip == addr + 1) {
			r.rip = addr;
			if (ptrace(PTRACE_SETREGS, p->pid, 0, &r) < 0)
				return zerr_set(err, "process %d: %s", p->pid, strerror(errno));
			return pt_write(t, addr, &orig, 1, err);
		}
		/*
		 * A fault of the loader's is delivered at once; a signal someone
		 * sent (kill, a terminal's) is held until zond lets the program
		 * go, as during zond's own stops: delivered now, it would end the
		 * program before it was measured at all, the run lost.
		 */
		siginfo_t si;
		sig = 0;
		if (foreign_signal(p->pid, status, &si)) {
			if (si.si_code <= 0 || si.si_code == SI_KERNEL)
				hold_signal(p, p->pid, &si);
			else
				sig = WSTOPSIG(status);
		}
	}
}

struct each_module {
	void (*fn)(void *arg, const char *path, uint64_t start);
	void *arg;
};

static int module_seen(void *arg, const struct mapping *m)
{
	struct each_module *e = arg;
	if (m->off == 0 && m->path[0] == '/')
		e->fn(e->arg, m->path, m->lo);
	return 0;
}

static int pt_modules(struct inject_transport *t,
		      void (*fn)(void *arg, const char *path, uint64_t start), void *arg,
		      struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	struct each_module m = {fn, arg};
	if (each_mapping(p->tids[0], module_seen, &m) < 0)
		return zerr_set(err, "process %d: cannot read its mappings", p->pid);
	return 0;
}

struct find_module {
	const char *path;
	uint64_t start; /* 0: not found yet */
};

static void module_is(void *arg, const char *path, uint64_t start)
{
	struct find_module *f = arg;
	if (!f->start && strcmp(path, f->path) == 0)
		f->start = start;
}

static int pt_module_start(struct inject_transport *t, const char *path, uint64_t *start,
			   struct zerr *err)
{
	char real[PATH_MAX];
	struct find_module f = {realpath(path, real) ? real : path, 0};
	if (pt_modules(t, module_is, &f, err) < 0)
		return -1;
	if (!f.start)
		return zerr_set(err, "process %d has not mapped %s", (int)t->pid, path);
	*start = f.start;
	return 0;
}

static size_t pt_threads(struct inject_transport *t)
{
	return as_target(t)->ntids;
}

static int pt_pc(struct inject_transport *t, size_t i, uint64_t *pc, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	struct user_regs_struct r;
	if (i >= p->ntids || ptrace(PTRACE_GETREGS, p->tids[i], 0, &r) < 0)
		return zerr_set(err, "process %d: cannot read the registers of a thread (%s)",
				p->pid, strerror(errno));
	*pc = r.rip;
	return 0;
}

static int pt_set_pc(struct inject_transport *t, size_t i, uint64_t pc, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	struct user_regs_struct r;
	if (i >= p->ntids || ptrace(PTRACE_GETREGS, p->tids[i], 0, &r) < 0)
		return zerr_set(err, "process %d: cannot read the registers of a thread (%s)",
				p->pid, strerror(errno));
	r.rip = pc;
	if (ptrace(PTRACE_SETREGS, p->tids[i], 0, &r) < 0)
		return zerr_set(err, "process %d: cannot move a thread (%s)", p->pid,
				strerror(errno));
	return 0;
}

static int pt_step(struct inject_transport *t, size_t i, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	if (i >= p->ntids || ptrace(PTRACE_SINGLESTEP, p->tids[i], 0, 0) < 0)
		return zerr_set(err, "process %d: cannot step a thread (%s)", p->pid,
				strerror(errno));
	return stopped(p, p->tids[i], err);
}

static int pt_release(struct inject_transport *t, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	int rc = 0;
	for (size_t i = 0; i < p->ntids; i++)
		if (resume_giving(p, p->tids[i], PTRACE_DETACH) < 0 && errno != ESRCH && rc == 0)
			rc = zerr_set(err, "process %d: cannot detach (%s)", p->pid,
				      strerror(errno));
	p->ntids = 0;
	p->released = 1;
	return rc;
}

/*
 * The system calls the kernel never restarts after a stop (signal(7),
 * "Interruption of system calls ... by stop signals"): a thread of an
 * attached process blocked in one returns EINTR from it once stopped and
 * resumed, as under strace or gdb.  Said, once a thread a stop, since the
 * program sees it.
 */
static const char *unrestarted_call(pid_t pid, pid_t tid)
{
	static const struct {
		long nr;
		const char *name;
	} calls[] = {
		{SYS_epoll_wait, "epoll_wait"},	      {SYS_epoll_pwait, "epoll_pwait"},
#ifdef SYS_epoll_pwait2
		{SYS_epoll_pwait2, "epoll_pwait2"},
#endif
		{SYS_semop, "semop"},		      {SYS_semtimedop, "semtimedop"},
		{SYS_rt_sigtimedwait, "sigtimedwait"},
	};
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	long nr = -1;
	if (f) {
		if (fscanf(f, "%ld", &nr) != 1)
			nr = -1; /* "running" */
		fclose(f);
	}
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (calls[i].nr == nr)
			return calls[i].name;
	return NULL;
}

/* Whether thread tid of process pid has exited (a zombie: a main thread that called pthread_exit). */
static int thread_exited(pid_t pid, pid_t tid)
{
	char name[80], line[512];
	snprintf(name, sizeof name, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *f = fopen(name, "re");
	if (!f)
		return 0;
	int gone = 0;
	if (fgets(line, sizeof line, f)) {
		const char *end = strrchr(line, ')'); /* after the command, which may hold any byte */
		gone = end && (end[2] == 'Z' || end[2] == 'X');
	}
	fclose(f);
	return gone;
}

/*
 * Stops thread tid, just seized: 0, or 1 when it ended before its stop (a
 * short-lived thread of a thread-per-connection server: not an error, it is
 * reaped where it can be and left out), or -1 with err.  Before, such a
 * thread made the whole stop fail, and at the end of --duration zond gave
 * up with the process still patched (QA s16 X2 F5).
 */
static int interrupt_seized(struct ptrace_target *p, pid_t tid, struct zerr *err)
{
	int status;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0) {
		if (errno != ESRCH)
			return zerr_set(err, "process %d: cannot stop thread %d (%s)",
					(int)p->pid, (int)tid, strerror(errno));
		/* its end may still be to come: a zombie's wait would block, so no wait */
		wait_eintr(tid, &status, WNOHANG | __WALL);
		return 1;
	}
	struct zerr why;
	p->ended_tid = 0;
	if (stopped_after(p, tid, PTRACE_INTERRUPT, &why) == 0)
		return 0;
	if (p->ended_tid == tid)
		return 1;
	return zerr_set(err, "process %d: cannot stop thread %d (%s)", (int)p->pid, (int)tid,
			why.msg);
}

/*
 * Seizes and stops every thread of p->pid, until a pass finds no new one.
 * An exited thread (the main thread of a process that called
 * pthread_exit, a zombie until the process ends) is left out: it never
 * stops, and has neither memory nor files to reach the process through
 * (tids[0], through which zond reaches the process, is a live thread).
 */
static int seize_all(struct ptrace_target *p, struct zerr *err)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/task", (int)p->pid);
	for (int added = 1; added;) {
		added = 0;
		DIR *d = opendir(dir);
		if (!d)
			return zerr_set(err, "process %d: no such process", (int)p->pid);
		struct dirent *e;
		while ((e = readdir(d))) {
			pid_t tid = (pid_t)atoi(e->d_name);
			int known = tid <= 0;
			for (size_t i = 0; !known && i < p->ntids; i++)
				known = p->tids[i] == tid;
			if (known || (p->attached && thread_exited(p->pid, tid)))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0) {
				if (errno == ESRCH)
					continue; /* it ended meanwhile */
				int e2 = errno;
				closedir(d);
				return zerr_set(
					err,
					"process %d: ptrace refused (%s): with Yama's "
					"ptrace_scope 1 run zond as the process's parent or "
					"with CAP_SYS_PTRACE (or set "
					"/proc/sys/kernel/yama/ptrace_scope to 0); a process "
					"already traced (gdb, strace) must be released first",
					(int)p->pid, strerror(e2));
			}
			added = 1;
			int got = interrupt_seized(p, tid, err);
			if (got < 0) {
				closedir(d);
				return -1;
			}
			if (got == 1)
				continue; /* it ended meanwhile */
			p->tids = zp_xrealloc(p->tids, (p->ntids + 1) * sizeof *p->tids);
			p->tids[p->ntids++] = tid;
			const char *call = p->attached ? unrestarted_call(p->pid, tid) : NULL;
			if (call)
				fprintf(stderr,
					"zond inject: thread %d of process %d was blocked in %s, "
					"which the kernel does not restart after a stop: it returns "
					"EINTR to the program (as under strace or gdb)\n",
					(int)tid, (int)p->pid, call);
		}
		closedir(d);
	}
	return 0;
}

static int pt_stop(struct inject_transport *t, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	p->released = 0;
	if (seize_all(p, err) == 0 && p->ntids)
		return 0;
	if (!p->ntids) /* every thread ended (the process is ending): nothing to reach it by */
		zerr_set(err, "process %d: no thread of it is left to stop", (int)p->pid);
	/* a started target that has just ended cannot be seized: keep its status
	 * (every thread seized so far was waited for, so no stop is pending) */
	int status;
	if (!p->attached && !p->ended && wait_eintr(p->pid, &status, WNOHANG | __WALL) == p->pid &&
	    (WIFEXITED(status) || WIFSIGNALED(status))) {
		p->ended = 1;
		p->status = status;
		zerr_set(err, "process %d ended", (int)p->pid);
	}
	return -1;
}

static int pt_wait(struct inject_transport *t, int *status, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	if (p->attached)
		return zerr_set(err, "process %d is not zond's child: its end cannot be waited for",
				p->pid);
	if (p->ended) {
		*status = p->status;
		return 0;
	}
	while (wait_eintr(p->pid, status, 0) < 0)
		if (errno != EINTR)
			return zerr_set(err, "process %d: %s", p->pid, strerror(errno));
	return 0;
}

/*
 * Whether an attached process has ended: its pidfd readable (it exited,
 * reaped or not: a zombie is gone for zond too), or without a pidfd its
 * pid gone or a zombie.  The pidfd also keeps a pid used again by another
 * process from passing for it.
 */
static int attached_ended(const struct ptrace_target *p)
{
	if (p->pidfd >= 0) {
		struct pollfd pf = {p->pidfd, POLLIN, 0};
		return poll(&pf, 1, 0) == 1;
	}
	if (kill(p->pid, 0) < 0)
		return errno == ESRCH;
	char name[64], buf[256];
	snprintf(name, sizeof name, "/proc/%d/stat", (int)p->pid);
	FILE *f = fopen(name, "re");
	if (!f)
		return 1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *state = strrchr(buf, ')'); /* the name may hold anything */
	return state && (state[2] == 'Z' || state[2] == 'X');
}

static int pt_ended(struct inject_transport *t, int *status)
{
	struct ptrace_target *p = as_target(t);
	if (!p->ended && p->attached && attached_ended(p)) {
		p->ended = 1;
		p->status = -1; /* not zond's child: its status is not known */
	} else if (!p->ended && !p->attached && p->released &&
		   wait_eintr(p->pid, &p->status, WNOHANG) == p->pid) {
		p->ended = 1;
	}
	*status = p->status;
	return p->ended;
}

static void pt_close(struct inject_transport *t)
{
	struct ptrace_target *p = as_target(t);
	for (size_t i = 0; !p->released && i < p->ntids; i++)
		resume_giving(p, p->tids[i], PTRACE_DETACH);
	if (p->mem >= 0)
		close(p->mem);
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->lifeline >= 0)
		close(p->lifeline);
	free(p->tids);
	free(p->held);
	free(p);
}

static int pt_close_fd(struct inject_transport *t, int fd, struct zerr *err)
{
	const uint64_t args[6] = {(uint64_t)fd};
	int64_t ret;
	return remote_syscall(as_target(t), SYS_close, args, &ret, err);
}

static int pt_unmap(struct inject_transport *t, uint64_t addr, size_t len, struct zerr *err)
{
	const uint64_t args[6] = {addr, len};
	int64_t ret;
	return remote_syscall(as_target(t), SYS_munmap, args, &ret, err);
}

static int pt_advise(struct inject_transport *t, uint64_t addr, size_t len, int advice,
		     struct zerr *err)
{
	const uint64_t args[6] = {addr, len, (uint64_t)advice};
	int64_t ret;
	if (remote_syscall(as_target(t), SYS_madvise, args, &ret, err) < 0)
		return -1;
	return ret < 0 ? zerr_set(err, "process %d: madvise: %s", as_target(t)->pid,
				  strerror((int)-ret))
		       : 0;
}

static int pt_thread_tp(struct inject_transport *t, size_t i, uint64_t *tp, int64_t *tid,
			struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	struct user_regs_struct r;
	if (i >= p->ntids || ptrace(PTRACE_GETREGS, p->tids[i], 0, &r) < 0)
		return zerr_set(err, "process %d: cannot read the registers of a thread (%s)",
				p->pid, strerror(errno));
	*tp = r.fs_base;
	*tid = p->tids[i];
	return 0;
}

struct each_map {
	void (*fn)(void *arg, uint64_t lo, uint64_t hi, const char *path);
	void *arg;
};

static int map_seen(void *arg, const struct mapping *m)
{
	struct each_map *e = arg;
	e->fn(e->arg, m->lo, m->hi, m->path);
	return 0;
}

static int pt_each_map(struct inject_transport *t,
		       void (*fn)(void *arg, uint64_t lo, uint64_t hi, const char *path), void *arg,
		       struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	struct each_map e = {fn, arg};
	if (each_mapping(p->tids[0], map_seen, &e) < 0)
		return zerr_set(err, "process %d: cannot read its mappings", p->pid);
	return 0;
}

/*
 * A pipe the target makes (pipe2, both ends close-on-exec); zond opens its
 * write end through /proc/PID/fd/N and the target's is closed, so that
 * zond is its only writer: the read end hangs up when zond ends, even
 * killed, in any pid namespace (a pid of zond would not do: another
 * namespace's, or reused).
 */
static int pt_lifeline(struct inject_transport *t, int *fd, struct zerr *err)
{
	struct ptrace_target *p = as_target(t);
	uint64_t at;
	int32_t ends[2];
	int64_t r;
	struct zerr ignored;
	if (push_string(p, "zond-pipe", &at, err) < 0) /* room for the two ends */
		return -1;
	uint64_t a[6] = {at, O_CLOEXEC};
	if (remote_syscall(p, SYS_pipe2, a, &r, err) < 0)
		return -1;
	if (r < 0)
		return zerr_set(err, "process %d cannot make a pipe (%s)", p->pid,
				strerror((int)-r));
	if (pt_read(t, at, ends, sizeof ends, err) < 0)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)p->tids[0], (int)ends[1]);
	int w = open(path, O_WRONLY | O_CLOEXEC);
	int rc = w < 0 ? zerr_set(err, "cannot open %s (%s)", path, strerror(errno)) : 0;
	if (w >= 0 && p->lifeline >= 0)
		close(p->lifeline);
	if (w >= 0)
		p->lifeline = w;
	pt_close_fd(t, ends[1], &ignored);
	if (rc < 0)
		pt_close_fd(t, ends[0], &ignored);
	*fd = ends[0];
	return rc;
}

static const struct inject_transport_ops ptrace_ops = {
	.advise = pt_advise,
	.thread_tp = pt_thread_tp,
	.read = pt_read,
	.write = pt_write,
	.alloc = pt_alloc,
	.alloc_near = pt_alloc_near,
	.share = pt_share,
	.module_start = pt_module_start,
	.run_to = pt_run_to,
	.modules = pt_modules,
	.threads = pt_threads,
	.pc = pt_pc,
	.set_pc = pt_set_pc,
	.release = pt_release,
	.stop = pt_stop,
	.wait = pt_wait,
	.close = pt_close,
	.ended = pt_ended,
	.close_fd = pt_close_fd,
	.unmap = pt_unmap,
	.replaced = pt_replaced,
	.each_map = pt_each_map,
	.step = pt_step,
	.lifeline = pt_lifeline,
};

/* /proc/PID/mem and a syscall instruction of the stopped target; 0 or -1 with err. */
static int open_target(struct ptrace_target *p, struct zerr *err)
{
	char name[64];
	if (!p->ntids)
		return zerr_set(err, "process %d: no thread of it runs", (int)p->pid);
	snprintf(name, sizeof name, "/proc/%d/mem", (int)p->tids[0]);
	p->mem = open(name, O_RDWR | O_CLOEXEC);
	if (p->mem < 0)
		return zerr_set(err, "%s: %s", name, strerror(errno));
	struct find_syscall f = {p, 0};
	each_mapping(p->tids[0], find_syscall_in, &f);
	if (!f.found)
		return zerr_set(err, "process %d: no syscall instruction in its code", (int)p->pid);
	p->syscall = f.found;
	return 0;
}

struct inject_transport *inject_ptrace_attach(int64_t pid, struct zerr *err)
{
	struct ptrace_target *p = zp_xcalloc(1, sizeof *p);
	p->t.ops = &ptrace_ops;
	p->pid = (pid_t)pid;
	p->t.pid = pid;
	p->mem = -1;
	p->lifeline = -1;
	p->attached = 1;
	p->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (seize_all(p, err) < 0 || inject_ptrace_sandboxed(pid, err) < 0 ||
	    open_target(p, err) < 0) {
		pt_close(&p->t);
		return NULL;
	}
	return &p->t;
}

struct inject_transport *inject_ptrace_start(char *const argv[], struct zerr *err)
{
	return inject_ptrace_start_forwarding(argv, NULL, NULL, err);
}

struct inject_transport *inject_ptrace_start_forwarding(char *const argv[],
							const struct forward *fw,
							const sigset_t *mask, struct zerr *err)
{
	int gate[2]; /* tells the parent why exec failed */
	fds_keep_own();
	if (pipe2(gate, O_CLOEXEC) < 0)
		return zerr_set(err, "pipe: %s", strerror(errno)), NULL;
	pid_t pid = fork();
	if (pid < 0)
		return zerr_set(err, "fork: %s", strerror(errno)), NULL;
	if (pid == 0) {
		close(gate[0]);
		if (fw) /* the dispositions and mask zond was given, not its forwarding */
			forward_restore(fw);
		if (mask)
			sigprocmask(SIG_SETMASK, mask, NULL);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execvp(argv[0], argv);
		int e = errno;
		if (write(gate[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(gate[1]);
	int e = 0;
	ssize_t got;
	while ((got = read(gate[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(gate[0]);
	int status;
	siginfo_t si;
	struct ptrace_target *p = zp_xcalloc(1, sizeof *p);
	/*
	 * Stopped at its exec (a SIGTRAP it sent itself); a signal someone sent
	 * it before is held for it, as every other while zond holds it.
	 */
	while (wait_eintr(pid, &status, 0) == pid && got != (ssize_t)sizeof e && WIFSTOPPED(status) &&
	       ptrace(PTRACE_GETSIGINFO, pid, 0, &si) == 0 &&
	       !(si.si_signo == SIGTRAP && si.si_code == SI_USER && si.si_pid == pid)) {
		hold_signal(p, pid, &si);
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
	if (got == (ssize_t)sizeof e) {
		free(p->held);
		free(p);
		zerr_set(err, "%s: cannot run (%s)", argv[0], strerror(e));
		return NULL;
	}
	if (!WIFSTOPPED(status)) {
		free(p->held);
		free(p);
		zerr_set(err, "%s: ended before zond inject could stop it", argv[0]);
		return NULL;
	}
	p->t.ops = &ptrace_ops;
	p->pid = pid;
	p->t.pid = pid;
	p->pidfd = -1; /* zond's child: waitpid tells its end */
	p->lifeline = -1;
	p->tids = zp_xcalloc(1, sizeof *p->tids);
	p->tids[0] = pid;
	p->ntids = 1;
	if (open_target(p, err) < 0) {
		kill(pid, SIGKILL);
		pt_close(&p->t);
		wait_eintr(pid, &status, 0);
		return NULL;
	}
	return &p->t;
}

#else
struct inject_transport *inject_ptrace_start_forwarding(char *const argv[],
							const struct forward *fw,
							const sigset_t *mask, struct zerr *err)
{
	(void)fw, (void)mask;
	return inject_ptrace_start(argv, err);
}

struct inject_transport *inject_ptrace_start(char *const argv[], struct zerr *err)
{
	(void)argv;
	zerr_set(err, "zond inject: the ptrace transport knows x86-64 Linux only");
	return NULL;
}

struct inject_transport *inject_ptrace_attach(int64_t pid, struct zerr *err)
{
	(void)pid;
	zerr_set(err, "zond inject: the ptrace transport knows x86-64 Linux only");
	return NULL;
}
#endif

/* The Seccomp: mode a /proc status file shows (1 strict, 2 filter), 0: none or unknown. */
static int seccomp_mode(const char *path)
{
	char line[256];
	int mode = 0;
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "Seccomp:", 8) == 0)
			mode = atoi(line + 8);
	if (f)
		fclose(f);
	return mode;
}

/*
 * -1 with err when a thread of process pid is under seccomp: attaching
 * runs system calls inside it (memfd_create, mmap, pipe2, ...), which a
 * filter may answer by killing the process (SIGSYS, QA s16 X2 F7) and
 * strict mode does; zond cannot tell which its filter allows, so it
 * refuses before touching it.  Each thread, as a filter may be a thread's.
 * zond inject -p asks before the attach, and the attach again once every
 * thread is stopped (none can enter seccomp then).
 */
int inject_ptrace_sandboxed(int64_t pid, struct zerr *err)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%lld/task", (long long)pid);
	DIR *d = opendir(path);
	struct dirent *t;
	int mode = 0;
	long tid = 0;
	while (d && !mode && (t = readdir(d))) {
		if ((tid = atol(t->d_name)) <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%lld/task/%ld/status", (long long)pid, tid);
		mode = seccomp_mode(path);
	}
	if (d)
		closedir(d);
	if (!mode)
		return 0;
	return zerr_set(
		err,
		"process %lld: thread %ld runs under seccomp (%s): zond inject -p would run "
		"system calls inside it that may kill it; not attached (the process "
		"untouched)",
		(long long)pid, tid, mode == 1 ? "strict mode" : "a filter");
}
