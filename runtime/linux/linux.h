/*
 * linux.h - the Linux port's internal interface: the thread-local probe
 * state, the clock read inline by the hooks, and start-up.
 *
 * The hooks (hooks.c) read the clock and the thread state inline; every
 * other part of the port runs on cold paths.
 */
#ifndef ZOND_LINUX_H
#define ZOND_LINUX_H

#include <stdint.h>
#include <time.h>

#include "../core/core.h"

/* The calling thread's probe state (initial-exec TLS: one instruction away). */
extern __thread struct zrt_thread zl_self __attribute__((tls_model("initial-exec")));

/* Nonzero when zl_clock() reads the x86 time-stamp counter. */
extern int zl_use_tsc;

static inline uint64_t zl_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t zl_clock(void)
{
#if defined(__x86_64__)
	if (zrt_likely(zl_use_tsc))
		return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#endif
	return zl_monotonic_ns();
}

/*
 * The clock reads that bound a measured function.  A plain counter read does
 * not wait for the instructions before it, nor hold back those after it: a
 * function whose body is a chain of arithmetic is then timed as nearly free
 * and its time lands in its caller.  So by default the entry read holds the
 * body back until it is taken and the exit read waits until the body is done
 * (lfence on x86, isb on aarch64).  ZOND_FAST_CLOCK=1 drops the fences: half
 * the cost per call, at the price of that skew (up to the CPU's reorder
 * window, some tens of ns).
 */
extern int zl_clock_fenced;

static inline uint64_t zl_clock_enter(void)
{
#if defined(__x86_64__)
	if (zrt_likely(zl_use_tsc)) {
		uint64_t t = __builtin_ia32_rdtsc();
		if (zl_clock_fenced)
			__builtin_ia32_lfence();
		return t;
	}
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	if (zl_clock_fenced)
		__asm__ volatile("isb" : : : "memory");
	return v;
#endif
	return zl_monotonic_ns();
}

static inline uint64_t zl_clock_exit(void)
{
#if defined(__x86_64__)
	if (zrt_likely(zl_use_tsc)) {
		if (zl_clock_fenced)
			__builtin_ia32_lfence();
		return __builtin_ia32_rdtsc();
	}
#elif defined(__aarch64__)
	uint64_t v;
	if (zl_clock_fenced)
		__asm__ volatile("isb" : : : "memory");
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#endif
	return zl_monotonic_ns();
}

/* Picks and calibrates the clock: fills clock and ticks_per_sec of cfg. */
void zl_clock_setup(struct zrt_config *cfg, int timed);

/*
 * Makes the calling thread ready to record: starts the runtime on the first
 * call of the process, attaches the thread on its first call.  1 when t is
 * ON afterwards.
 */
int zl_thread_ready(struct zrt_thread *t);

/* Starts the runtime if nobody has yet (any entry point may be first). */
void zl_start(void);

/* The path of the main program (/proc/self/exe, resolved). */
extern char zl_exe_path[4096];

/* Resolves ZOND_TRIGGER and ZOND_FILTER against the loaded modules (cold). */
uint64_t zl_find_trigger(const char *spec);
int zl_load_filters(const char *path);

int64_t zl_realtime_ns(void);

/* The hooks gcc and clang call with -finstrument-functions. */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#endif
