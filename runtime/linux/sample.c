/*
 * sample.c - sampled CPU time: one sampler per recorded thread, a perf_event
 * task clock or else a CPU-time timer, and the signal handler that charges
 * its samples (sample.h).
 */
#define _GNU_SOURCE
#include "sample.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <signal.h>
#include <ucontext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include "../core/port.h"

enum {
	DEFAULT_PERIOD_NS = 1000000,
	DEFAULT_PCS = 16384, /* (context, pc) entries per thread: 384 KiB of its slot */
	STATE_RUNNING = 1, /* zr_header.sample_state */
	STATE_STOPPED = 2,
	STATE_SEALED = 3,  /* stopped at a seccomp call */
	/* a perf_event fd goes above the soft file limit when it is below FD_ABOVE_MAX
	   (beyond, the kernel's fd table would grow to the number); else at or above
	   FD_TOP minus the thread's slot under a limit of FD_MANY or more (move_high) */
	FD_ABOVE_MAX = 65536,
	FD_MANY = 4096,
	FD_TOP = 1024,
	SIGNAL_POLL_HUP = 6, /* si_code of a perf_event signal: its refresh count ran out */
};

static struct zrt_thread *(*thread_self)(void);
static int sample_signal;
/* its disposition before zond's handler: what the program's queries see (zl_sample_disposition_seen) */
static struct sigaction before_zond;
static uint32_t stopped;
static int timer_only; /* ZOND_SAMPLER=timer */

/*
 * A thread's sampler, + 1 each (0: none): a perf_event fd (with the event's
 * id, to tell it from a file the program put at that number since), or a
 * POSIX timer id.
 */
struct sampler {
	int32_t fd_plus_1, timer_plus_1;
	uint64_t perf_id;
};

/* every armed sampler by thread slot: zl_sample_signal_taken ends them all */
static struct sampler *samplers;
static uint32_t n_samplers;
static int32_t samplers_pid; /* the process the samplers belong to */
/* the executable code of zond's own library: a sample there is zond's cost */
static uint64_t own_lo, own_hi;

/* the probes whose PLT stubs are zond's (zl_sample_hooks), 0 when none */
static uint64_t hook_enter, hook_exit;

void zl_sample_hooks(uint64_t enter, uint64_t exit)
{
	hook_enter = enter;
	hook_exit = exit;
}

/*
 * 1 when the instruction at pc jumps through a GOT slot to one of the hooks:
 * an x86-64 PLT stub, "jmp *slot(%rip)" (with "bnd", and endbr64 before it,
 * in IBT PLTs).  pc is where the thread stopped, so an instruction starts
 * there; its bytes are read only within pc's page (readable: the thread runs
 * it), and the slot only as the jump itself would read it.
 */
static int in_hook_stub(uint64_t pc)
{
#if defined(__x86_64__)
	enum { LONGEST = 4 + 1 + 6 }; /* endbr64, bnd, jmp *disp32(%rip) */
	if (!hook_enter || (pc & 4095) > 4096 - LONGEST)
		return 0;
	const uint8_t *p = (const uint8_t *)(uintptr_t)pc;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	if (p[0] == 0xf2)
		p++;
	if (p[0] != 0xff || p[1] != 0x25)
		return 0;
	int32_t disp;
	memcpy(&disp, p + 2, sizeof disp);
	uint64_t target = *(const uint64_t *)(uintptr_t)((uintptr_t)(p + 6) + (intptr_t)disp);
	return target == hook_enter || target == hook_exit;
#else
	(void)pc;
	return 0;
#endif
}

/* The calling thread's sampler, the process that made it, and its slot. */
static __thread struct {
	struct sampler s;
	int32_t pid;
	uint32_t slot;
	int first; /* its perf_event still counts its first period (first_period) */
	/* clock ticks of the thread's CPU time its handler took and no sample yet
	   stood for (on_sample) */
	uint64_t debt;
} own __attribute__((tls_model("initial-exec")));

/*
 * A thread's first period: from 1 ns to a whole period, at random.  Every
 * thread's CPU time then has its expected number of samples, a thread of
 * a tenth of a period one in ten: with whole first periods a thread of less
 * than one was never sampled (400 threads of 0.3 ms at 1 ms each: 95% of a
 * program's CPU time missing).  The clock's low bits are the randomness.
 */
static uint64_t first_period(void)
{
	uint64_t period = zrt.hdr->sample_period_ns;
	uint64_t r = (port_clock() * 0x9e3779b97f4a7c15ull) >> 32; /* 32 random bits */
	return 1 + (uint64_t)(((unsigned __int128)r * period) >> 32);
}

void zl_sample_configure(struct zrt_config *cfg)
{
	/* zl_getenv: the program's own getenv is not called (doc/architecture.md) */
	const char *mode = zl_getenv("ZOND_TIME");
	if (!mode || strcmp(mode, "sampled") != 0 || (cfg->flags & ZR_FLAG_NO_TIME))
		return;
	cfg->flags |= ZR_FLAG_SAMPLED | ZR_FLAG_NO_TIME;
	cfg->sample_period_ns =
		zl_env_number("ZOND_SAMPLE_PERIOD", DEFAULT_PERIOD_NS, 10000, 10000000000ull);
	cfg->max_sample_pcs = (uint32_t)zl_env_number("ZOND_SAMPLE_PCS", DEFAULT_PCS, 16, 1u << 24);
	cfg->sample_signal = (uint32_t)zl_env_number("ZOND_SAMPLE_SIGNAL", (uint64_t)(SIGRTMAX - 3),
						     (uint64_t)SIGRTMIN, (uint64_t)SIGRTMAX);
	const char *sampler = zl_getenv("ZOND_SAMPLER");
	timer_only = sampler && strcmp(sampler, "timer") == 0;
}

/* The interrupted program counter. */
static uint64_t interrupted_pc(const void *ctx)
{
	const ucontext_t *uc = ctx;
#if defined(__x86_64__)
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uint64_t)uc->uc_mcontext.pc;
#endif
}

/* Lets the calling thread's perf_event count one more period (it stops after each). */
static void rearm(int32_t fd)
{
	zl_syscall6(SYS_ioctl, fd, PERF_EVENT_IOC_REFRESH, 1, 0, 0, 0);
}

/* After a sample: whole periods from the first one on. */
static void rearm_next(int32_t fd)
{
	if (own.first) {
		uint64_t period = zrt.hdr->sample_period_ns;
		zl_syscall6(SYS_ioctl, fd, PERF_EVENT_IOC_PERIOD, (long)&period, 0, 0, 0);
		own.first = 0;
	}
	rearm(fd);
}

/*
 * The samples a signal of ours stands for: a timer's, 1 + its overruns; the
 * calling thread's perf_event's, 1 (it counts one period at a time); 0 for
 * any other signal of that number.
 */
static uint64_t samples_of(const siginfo_t *si)
{
	if (si->si_code == SI_TIMER)
		return 1 + (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0);
	if (si->si_code == SIGNAL_POLL_HUP && own.s.fd_plus_1 && si->si_fd == own.s.fd_plus_1 - 1)
		return 1;
	return 0;
}

/* a period in clock ticks (zl_sample_start) */
static uint64_t period_ticks;

/*
 * A sample.  Its handler's own time (the rearming ioctl above all, which
 * sets a timer: microseconds where that is dear, as in a virtual machine)
 * and the signal's return after it run on the thread's CPU clock that the
 * sampler counts, so a short period is filled
 * partly by zond's work and ends in the program all the same: the program's
 * samples come more often than its own time says, and every function's
 * sampled time grows with them while the calls' hook time does not.  So the
 * handler keeps its own time as a debt; a sample that comes while the debt
 * holds a whole period stands for zond's work: it is zond's
 * (samples_sampling, in samples_zond) and pays the period off.  At most a
 * period per sample enters the debt: a handler longer than that spans a
 * period that ended in the kernel, no sample.  Measured on the clock from
 * the handler's first instruction to its last: the signal's return is left
 * the program's, and a handler preempted counts its wait too.
 */
static void on_sample(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	uint64_t start = port_clock();
	int saved_errno = errno;
	struct zrt_thread *t = thread_self();
	uint64_t n = samples_of(si);
	if (n && !__atomic_load_n(&stopped, __ATOMIC_RELAXED) && t->state == ZRT_THREAD_ON) {
		uint64_t pc = interrupted_pc(ctx), zond = 0;
		for (; zond < n && period_ticks && own.debt >= period_ticks; zond++)
			own.debt -= period_ticks;
		if (n > zond)
			zrt_sample(t, n - zond, pc - own_lo < own_hi - own_lo || in_hook_stub(pc), pc);
		if (si->si_code == SIGNAL_POLL_HUP)
			rearm_next(own.s.fd_plus_1 - 1);
		uint64_t end = port_clock(), cost = end > start ? end - start : 0;
		own.debt += cost < period_ticks ? cost : period_ticks;
		zrt_sample_sampling(t, zond, cost);
	}
	errno = saved_errno;
}

/*
 * Finds the executable segments of the shared object holding on_sample.
 * Not when that is the program itself (libzond.a linked in): its code is
 * the program's too, and the busy flag alone tells zond's probes apart.
 */
static int find_own_code(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	uint64_t me = (uintptr_t)on_sample, lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		lo = start < lo ? start : lo;
		hi = end > hi ? end : hi;
	}
	if (me < lo || me >= hi)
		return 0;
	if (info->dlpi_name && *info->dlpi_name)
		own_lo = lo, own_hi = hi;
	return 1;
}

void zl_sample_start(struct zrt_thread *(*self)(void))
{
	struct zr_header *h = zrt.hdr;
	if (!h || !(h->flags & ZR_FLAG_SAMPLED))
		return;
	thread_self = self;
	sample_signal = (int)h->sample_signal;
	period_ticks = zl_clock_ticks_of_ns(&h->ticks_per_sec, h->sample_period_ns);
	dl_iterate_phdr(find_own_code, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	/* before samplers is set: libzond's own sigaction stops nothing then */
	struct sampler *map = NULL;
	if (sigaction(sample_signal, &sa, &before_zond) == 0)
		map = port_map_index((uint64_t)h->max_threads * sizeof *samplers);
	if (!map) {
		stopped = 1;
		h->sample_state = STATE_STOPPED;
		return;
	}
	n_samplers = h->max_threads;
	samplers_pid = zl_pid();
	__atomic_store_n(&samplers, map, __ATOMIC_RELEASE);
	h->sample_state = STATE_RUNNING;
}

/* 1 when fd is still the perf_event of that id (the program may have closed or reused it). */
static int is_event(int32_t fd, uint64_t id)
{
	uint64_t now = 0;
	return zl_syscall6(SYS_ioctl, fd, PERF_EVENT_IOC_ID, (long)&now, 0, 0, 0) == 0 && now == id;
}

/* Ends the sampler in slot s (any thread's): its timer deleted, its fd closed. */
static void end_sampler(struct sampler *s)
{
	int32_t timer_plus_1 = __atomic_exchange_n(&s->timer_plus_1, 0, __ATOMIC_ACQ_REL);
	if (timer_plus_1)
		zl_syscall6(SYS_timer_delete, timer_plus_1 - 1, 0, 0, 0, 0, 0);
	int32_t fd_plus_1 = __atomic_exchange_n(&s->fd_plus_1, 0, __ATOMIC_ACQ_REL);
	if (fd_plus_1 && is_event(fd_plus_1 - 1, s->perf_id))
		zl_syscall6(SYS_close, fd_plus_1 - 1, 0, 0, 0, 0, 0);
}

/* The slot of the calling thread in the raw file. */
static uint32_t thread_slot(const struct zrt_thread *t)
{
	const struct zr_header *h = zrt.hdr;
	return (uint32_t)(((const uint8_t *)t->info - zrt.base - h->threads_off) / h->thread_bytes);
}

static int32_t current_pid(void)
{
	return zl_pid();
}

/*
 * In a forked child: the samplers are its parent's.  The timers are not
 * inherited, the perf_event fds are (they still count the parent's
 * threads): closed, so that the child has none of zond's fds.
 */
static void forget_parents(int32_t pid)
{
	if (samplers_pid == pid)
		return;
	for (uint32_t i = 0; i < n_samplers; i++) {
		samplers[i].timer_plus_1 = 0;
		end_sampler(&samplers[i]);
	}
	own.s = (struct sampler){0};
	samplers_pid = pid;
}

void zl_sample_forked(void)
{
	if (samplers)
		forget_parents(current_pid());
}

/*
 * Moves fd above the program's file limit when the hard limit leaves room:
 * the kernel checks RLIMIT_NOFILE only when it hands out a number, so an fd
 * up there is none of the program's (a server sized to its `ulimit -n` gets
 * every fd it gets without zond, however many threads are sampled).  It is
 * reached by raising the soft limit for the one dup and putting it back at
 * once, the samplers one at a time; a program that changed the limit in
 * between keeps its change.  New fd or -1.
 */
static long move_above_limit(int32_t fd, uint32_t slot)
{
	static int lock;
	struct rlimit lim = {0, 0}, raised, seen = {0, 0};
	if (zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&lim, 0, 0) != 0 ||
	    lim.rlim_cur >= FD_ABOVE_MAX || lim.rlim_cur + slot + 1 > lim.rlim_max)
		return -1;
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
	long high = -1;
	if (zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&lim, 0, 0) == 0 &&
	    lim.rlim_cur < FD_ABOVE_MAX && lim.rlim_cur + slot + 1 <= lim.rlim_max) {
		raised = lim;
		raised.rlim_cur = lim.rlim_cur + slot + 1;
		if (zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&raised, 0, 0, 0) == 0) {
			high = zl_syscall6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (long)(lim.rlim_cur + slot),
					   0, 0, 0);
			zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&lim, (long)&seen, 0, 0);
			if (seen.rlim_cur != raised.rlim_cur || seen.rlim_max != raised.rlim_max)
				zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&seen, 0, 0, 0);
		}
	}
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	return high;
}

/*
 * Moves fd out of the program's way: above its file limit where the hard
 * limit leaves room (move_above_limit); else, under a soft limit of at least
 * FD_MANY, to FD_TOP - 1 - slot or the first free one above (with O_CLOEXEC,
 * as it was opened): one of the program's many, high where it does not look.
 * The new fd, or -1 (fd closed, the timer samples): under a small limit with
 * no room above it, the fd would be one the program misses when it opens as
 * many as it may.
 */
static int32_t move_high(int32_t fd, uint32_t slot)
{
	long high = move_above_limit(fd, slot);
	struct rlimit lim = {0, 0};
	if (high < 0 && zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&lim, 0, 0) == 0 &&
	    lim.rlim_cur >= FD_MANY && slot + 1 < FD_TOP)
		high = zl_syscall6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (long)(FD_TOP - 1 - slot), 0, 0, 0);
	zl_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return high >= 0 ? (int32_t)high : -1;
}

/*
 * A perf_event software task clock of the calling thread (CPU time) that
 * signals this thread after one period and stops (rearmed by the handler),
 * so that a thread that blocks the signal has one sample pending, not a
 * queue that could overflow into SIGIO.  Not counting yet: the handler must
 * know the fd first (rearm).  Its periods end in user mode only
 * (exclude_kernel: a period that ends in the kernel is no sample): the
 * signal is then taken on the interrupt's return to the program, never
 * pending in a system call, where it would make an interrupted sleep,
 * select, poll or sem_timedwait fail with EINTR (signal(7): never restarted,
 * SA_RESTART or not).  So time in the kernel is not sampled.  0, or -1 when
 * the kernel does not allow it (perf_event_paranoid 3, seccomp, no perf
 * events): the timer samples.
 */
static int start_perf(struct sampler *s, uint32_t slot)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = first_period(); /* then whole periods: rearm_next */
	attr.exclude_kernel = 1; /* samples in user mode only: see above */
	attr.disabled = 1;
	attr.wakeup_events = 1;
	long fd = zl_syscall6(SYS_perf_event_open, (long)&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int32_t high = move_high((int32_t)fd, slot);
	if (high < 0)
		return -1;
	struct f_owner_ex owner = {F_OWNER_TID, zl_tid()};
	if (zl_syscall6(SYS_ioctl, high, PERF_EVENT_IOC_ID, (long)&s->perf_id, 0, 0, 0) != 0 ||
	    zl_syscall6(SYS_fcntl, high, F_SETOWN_EX, (long)&owner, 0, 0, 0) != 0 ||
	    zl_syscall6(SYS_fcntl, high, F_SETSIG, sample_signal, 0, 0, 0) != 0 ||
	    zl_syscall6(SYS_fcntl, high, F_SETFL, O_ASYNC | O_NONBLOCK, 0, 0, 0) != 0) {
		zl_syscall6(SYS_close, high, 0, 0, 0, 0, 0);
		return -1;
	}
	__atomic_store_n(&s->fd_plus_1, high + 1, __ATOMIC_RELEASE);
	return 0;
}

/* A timer on the calling thread's CPU-time clock: 0, or -1. */
static int start_timer(struct sampler *s)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sample_signal;
	sev._sigev_un._tid = zl_tid(); /* sigev_notify_thread_id */
	int id = -1;
	if (zl_syscall6(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, (long)&sev, (long)&id, 0, 0,
			0) != 0)
		return -1;
	uint64_t period = zrt.hdr->sample_period_ns, first = first_period();
	struct {
		long interval_sec, interval_nsec, value_sec, value_nsec;
	} its = {(long)(period / 1000000000u), (long)(period % 1000000000u),
		 (long)(first / 1000000000u), (long)(first % 1000000000u)};
	__atomic_store_n(&s->timer_plus_1, id + 1, __ATOMIC_RELEASE);
	zl_syscall6(SYS_timer_settime, id, 0, (long)&its, 0, 0, 0);
	return 0;
}

static __thread int program_blocks __attribute__((tls_model("initial-exec")));

int zl_sample_program_blocks(void)
{
	return program_blocks;
}

void zl_sample_set_program_blocks(int blocked)
{
	program_blocks = blocked;
}

void zl_sample_mask(int sig, int how)
{
	uint64_t set = 1ull << (sig - 1); /* the kernel's sigset_t */
	zl_syscall6(SYS_rt_sigprocmask, how, (long)&set, 0, sizeof set, 0, 0);
}

/*
 * A thread that starts with the sampling signal blocked (an image exec'ed so,
 * the program's mask kept across the exec) would take no sample: it has it
 * blocked in its view only.
 */
static void unblock_inherited(void)
{
	uint64_t cur = 0;
	if (zl_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&cur, sizeof cur, 0, 0) != 0 ||
	    !(cur & 1ull << (sample_signal - 1)))
		return;
	program_blocks = 1;
	zl_sample_mask(sample_signal, SIG_UNBLOCK);
}

void zl_sample_thread_start(void)
{
	if (!samplers || __atomic_load_n(&stopped, __ATOMIC_RELAXED))
		return;
	struct zrt_thread *t = thread_self();
	int32_t pid = current_pid();
	forget_parents(pid);
	if (own.pid == pid)
		zl_sample_thread_end();
	uint32_t slot = thread_slot(t);
	if (slot >= n_samplers)
		return;
	struct sampler *s = &samplers[slot];
	own.pid = pid;
	own.slot = slot;
	uint32_t kind = 0;
	if (!timer_only && start_perf(s, slot) == 0)
		kind = ZR_SAMPLER_PERF;
	else if (start_timer(s) == 0)
		kind = ZR_SAMPLER_TIMER;
	own.s = *s;
	own.first = kind == ZR_SAMPLER_PERF;
	own.debt = 0;
	if (kind)
		unblock_inherited();
	if (kind == ZR_SAMPLER_PERF)
		rearm(own.s.fd_plus_1 - 1);
	__atomic_fetch_or(&zrt.hdr->samplers, kind, __ATOMIC_RELAXED);
}

void zl_sample_thread_end(void)
{
	/* not in a vfork child: the samplers and own are its parent's */
	if (samplers && (own.s.fd_plus_1 || own.s.timer_plus_1) && own.pid == current_pid() &&
	    own.slot < n_samplers)
		end_sampler(&samplers[own.slot]);
	own.s = (struct sampler){0};
}

/*
 * Takes a sample signal still pending on the calling thread (it blocks the
 * signal: a mask set by the C library inside, or one the program set
 * before sampling started): ending the sampler does not take it back.
 */
static void take_pending(void)
{
	uint64_t set = 1ull << (sample_signal - 1); /* the kernel's sigset_t */
	struct timespec now = {0, 0};
	while (zl_syscall6(SYS_rt_sigtimedwait, (long)&set, 0, (long)&now, sizeof set, 0, 0) > 0)
		;
}

void zl_sample_exec(void)
{
	/* sealed: the seal took what was pending, and no sampler ran since */
	if (!samplers || zl_sealed || own.pid != current_pid())
		return;
	zl_sample_thread_end();
	/*
	 * The new image would meet a pending signal with the default action.
	 * Taken here (the program does not use the signal: sampling would
	 * have stopped).
	 */
	take_pending();
}

void zl_sample_exec_failed(void)
{
	if (samplers && own.pid == current_pid() && thread_self()->state == ZRT_THREAD_ON)
		zl_sample_thread_start();
}

int zl_sample_owns_fd(int fd)
{
	if (!samplers || fd < 0 || samplers_pid != current_pid())
		return 0;
	for (uint32_t i = 0; i < n_samplers; i++)
		if (__atomic_load_n(&samplers[i].fd_plus_1, __ATOMIC_ACQUIRE) == fd + 1)
			return 1;
	return 0;
}

int zl_sample_next_fd(int fd)
{
	int next = -1;
	if (!samplers || samplers_pid != current_pid())
		return -1;
	for (uint32_t i = 0; i < n_samplers; i++) {
		int own = __atomic_load_n(&samplers[i].fd_plus_1, __ATOMIC_ACQUIRE) - 1;
		if (own >= fd && (next < 0 || own < next))
			next = own;
	}
	return next;
}

long zl_sample_close_around(unsigned first, unsigned last, int flags,
			    long (*piece)(unsigned from, unsigned to, int flags, void *arg), void *arg)
{
	if (flags & 4) /* CLOSE_RANGE_CLOEXEC: the samplers' fds are close-on-exec already */
		return piece(first, last, flags, arg);
	unsigned from = first;
	for (int fd; from <= last && from <= INT_MAX && (fd = zl_sample_next_fd((int)from)) >= 0 &&
		     (unsigned)fd <= last;
	     from = (unsigned)fd + 1) {
		long rc = (unsigned)fd > from ? piece(from, (unsigned)fd - 1, flags, arg) : 0;
		if (rc != 0)
			return rc;
	}
	return from > last ? 0 : piece(from, last, flags, arg);
}

int zl_sample_signal_active(void)
{
	return samplers && !__atomic_load_n(&stopped, __ATOMIC_ACQUIRE) ? sample_signal : 0;
}

/* Ends every thread's sampler, for good; 0 when sampling had stopped already. */
static int stop_sampling(uint32_t state)
{
	if (!samplers || __atomic_exchange_n(&stopped, 1, __ATOMIC_ACQ_REL))
		return 0;
	for (uint32_t i = 0; i < n_samplers; i++)
		end_sampler(&samplers[i]);
	if (zrt.hdr)
		zrt.hdr->sample_state = state;
	return 1;
}

void zl_sample_disposition_seen(int sig, struct sigaction *old)
{
	if (old && sample_signal && sig == sample_signal &&
	    (const void *)old->sa_sigaction == (const void *)on_sample)
		*old = before_zond;
}

int zl_sample_signal_taken(int sig, const void *handler)
{
	if (!samplers || sig != sample_signal || handler == (const void *)on_sample)
		return 0;
	/* what its queries showed it, put back (save and restore of every signal): kept */
	if (!__atomic_load_n(&stopped, __ATOMIC_ACQUIRE) &&
	    handler == (const void *)before_zond.sa_handler)
		return 1;
	stop_sampling(STATE_STOPPED);
	return 0;
}

void zl_sample_seal(void)
{
	if (!stop_sampling(STATE_SEALED))
		return;
	/* the calling thread's copy: its end (thread_gone, exec) has nothing left to do */
	own.s = (struct sampler){0};
	take_pending();
}
