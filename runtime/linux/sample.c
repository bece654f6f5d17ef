/*
 * sample.c - sampled CPU time: one CPU-time timer per recorded thread and
 * the signal handler that charges its samples (sample.h).
 */
#define _GNU_SOURCE
#include "sample.h"

#include <errno.h>
#include <link.h>
#include <signal.h>
#include <ucontext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "../core/port.h"

enum {
	DEFAULT_PERIOD_NS = 1000000,
	DEFAULT_PCS = 16384, /* (context, pc) entries per thread: 384 KiB of its slot */
	STATE_RUNNING = 1, /* zr_header.sample_state */
	STATE_STOPPED = 2,
};

static struct zrt_thread *(*thread_self)(void);
static int sample_signal;
static uint32_t stopped;
/* every armed timer's id + 1, by thread slot: zl_sample_stop deletes them all */
static int32_t *timers;
static uint32_t n_timers;
static int32_t timers_pid; /* the process the ids in timers belong to */
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

/* The calling thread's timer: id + 1 (0: none), and the process that made it. */
static __thread struct {
	int32_t id_plus_1;
	int32_t pid;
	uint32_t slot;
} own __attribute__((tls_model("initial-exec")));

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

static void on_sample(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	int saved_errno = errno;
	struct zrt_thread *t = thread_self();
	if (si->si_code == SI_TIMER && !__atomic_load_n(&stopped, __ATOMIC_RELAXED) &&
	    t->state == ZRT_THREAD_ON) {
		uint64_t pc = interrupted_pc(ctx);
		zrt_sample(t, 1 + (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0),
			   pc - own_lo < own_hi - own_lo || in_hook_stub(pc), pc);
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
	dl_iterate_phdr(find_own_code, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	/* before timers is set: libzond's own sigaction stops nothing then */
	int32_t *map = NULL;
	if (sigaction(sample_signal, &sa, NULL) == 0)
		map = port_map_index((uint64_t)h->max_threads * sizeof *timers);
	if (!map) {
		stopped = 1;
		h->sample_state = STATE_STOPPED;
		return;
	}
	n_timers = h->max_threads;
	__atomic_store_n(&timers, map, __ATOMIC_RELEASE);
	h->sample_state = STATE_RUNNING;
}

static void delete_timer(int32_t *slot)
{
	int32_t id_plus_1 = __atomic_exchange_n(slot, 0, __ATOMIC_ACQ_REL);
	if (id_plus_1)
		zl_syscall6(SYS_timer_delete, id_plus_1 - 1, 0, 0, 0, 0, 0);
}

/* The slot of the calling thread in the raw file. */
static uint32_t thread_slot(const struct zrt_thread *t)
{
	const struct zr_header *h = zrt.hdr;
	return (uint32_t)(((const uint8_t *)t->info - zrt.base - h->threads_off) / h->thread_bytes);
}

void zl_sample_thread_start(void)
{
	if (!timers || __atomic_load_n(&stopped, __ATOMIC_RELAXED))
		return;
	struct zrt_thread *t = thread_self();
	int32_t pid = (int32_t)zl_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	/* a forked child has none of its parent's timers: forget them */
	if (timers_pid != pid) {
		for (uint32_t i = 0; i < n_timers; i++)
			timers[i] = 0;
		timers_pid = pid;
	}
	if (own.id_plus_1 && own.pid == pid)
		zl_sample_thread_end();
	own.id_plus_1 = 0;
	uint32_t slot = thread_slot(t);
	if (slot >= n_timers)
		return;
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sample_signal;
	sev._sigev_un._tid = port_thread_id(); /* sigev_notify_thread_id */
	int id = -1;
	if (zl_syscall6(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, (long)&sev, (long)&id, 0, 0,
			0) != 0)
		return;
	uint64_t period = zrt.hdr->sample_period_ns;
	struct {
		long interval_sec, interval_nsec, value_sec, value_nsec;
	} its = {(long)(period / 1000000000u), (long)(period % 1000000000u),
		 (long)(period / 1000000000u), (long)(period % 1000000000u)};
	own.id_plus_1 = id + 1;
	own.pid = pid;
	own.slot = slot;
	__atomic_store_n(&timers[slot], id + 1, __ATOMIC_RELEASE);
	zl_syscall6(SYS_timer_settime, id, 0, (long)&its, 0, 0, 0);
}

void zl_sample_thread_end(void)
{
	if (timers && own.id_plus_1 && own.slot < n_timers)
		delete_timer(&timers[own.slot]);
	own.id_plus_1 = 0;
}

void zl_sample_signal_taken(int sig)
{
	if (!timers || sig != sample_signal || __atomic_exchange_n(&stopped, 1, __ATOMIC_ACQ_REL))
		return;
	for (uint32_t i = 0; i < n_timers; i++)
		delete_timer(&timers[i]);
	if (zrt.hdr)
		zrt.hdr->sample_state = STATE_STOPPED;
}
