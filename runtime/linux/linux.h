/*
 * linux.h - the Linux port, shared by both collectors that run inside a
 * program: libzond (the -finstrument-functions hooks, instrument.h) and
 * libzond-audit (library calls through LD_AUDIT, runtime/audit).  It is what
 * the core needs from Linux (core/port.h: the data file, thread ids, the
 * clock) and the parts of a process's life both collectors handle alike:
 * the environment, the clock, exit, fork and the probe-cost calibration.
 *
 * Everything here but the clock set-up is free of floating point and most
 * of it of libc (raw system calls): the audit collector builds port.c with
 * -mgeneral-regs-only and calls some of it between a library call's
 * arguments and its callee, where no vector register may change.  What does
 * call libc (zl_configure, port_map_output, zl_calibrate) runs at start-up
 * or in a forked child.
 */
#ifndef ZOND_LINUX_H
#define ZOND_LINUX_H

#include <stdint.h>
#include <time.h>

#include "../core/core.h"

/* ---- system calls without libc ----------------------------------------- */

static inline long zl_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#else
#error "zond's runtime knows x86-64 and aarch64"
#endif
}

/* CLOCK_REALTIME in ns (a system call: cold paths only). */
int64_t zl_realtime_ns(void);
/* The port's clock and the wall clock read together (core.h struct zrt_anchor). */
void zl_anchor(struct zrt_anchor *a);

/* ---- the clock (clock.c) ------------------------------------------------ */

/* Nonzero when zl_clock() reads the x86 time-stamp counter. */
extern int zl_use_tsc;

/*
 * Nonzero once the clock stopped (zl_clock_freeze): every read gives
 * zl_frozen_ticks, the time it stopped at.
 */
extern int zl_clock_frozen;
extern uint64_t zl_frozen_ticks;

static inline uint64_t zl_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock when it is not a counter read inline: the kernel's, or the stopped one. */
static inline uint64_t zl_kernel_clock(void)
{
	if (zrt_unlikely(zl_clock_frozen))
		return zl_frozen_ticks;
	return zl_monotonic_ns();
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
	return zl_kernel_clock();
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

/* lfence by hand: the builtin is an SSE2 one, refused under -mgeneral-regs-only */
#if defined(__x86_64__)
static inline void zl_lfence(void)
{
	__asm__ volatile("lfence");
}
#endif

static inline uint64_t zl_clock_enter(void)
{
#if defined(__x86_64__)
	if (zrt_likely(zl_use_tsc)) {
		uint64_t t = __builtin_ia32_rdtsc();
		if (zl_clock_fenced)
			zl_lfence();
		return t;
	}
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	if (zl_clock_fenced)
		__asm__ volatile("isb" : : : "memory");
	return v;
#endif
	return zl_kernel_clock();
}

static inline uint64_t zl_clock_exit(void)
{
#if defined(__x86_64__)
	if (zrt_likely(zl_use_tsc)) {
		if (zl_clock_fenced)
			zl_lfence();
		return __builtin_ia32_rdtsc();
	}
#elif defined(__aarch64__)
	uint64_t v;
	if (zl_clock_fenced)
		__asm__ volatile("isb" : : : "memory");
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#endif
	return zl_kernel_clock();
}

/* Picks and calibrates the clock: fills clock, arch and ticks_per_sec of cfg. */
void zl_clock_setup(struct zrt_config *cfg, int timed);

/*
 * Stops the clock at its current time (x86-64: strict seccomp mode disables
 * the TSC for the thread, and the vDSO's clock_gettime reads it too), and
 * starts it again (the seccomp call failed).  What is timed meanwhile takes
 * no time.  Nothing on aarch64, whose counter stays readable.
 */
void zl_clock_freeze(void);
void zl_clock_thaw(void);

/*
 * At the process's end: the clock's rate measured again over the process's
 * whole life (when long enough), into *ticks_per_sec.  Integer code only.
 */
void zl_clock_refine(double *ticks_per_sec);
/* ns as ticks of the clock whose rate is ticks_per_sec (a double, read as bytes) */
uint64_t zl_clock_ticks_of_ns(const void *ticks_per_sec, uint64_t ns);

/* ---- the process (port.c) ----------------------------------------------- */

/*
 * Reads the environment shared by both collectors (doc/architecture.md):
 * ZOND_DIR (where port_map_output creates the data file), ZOND_NO_TIME,
 * ZOND_FAST_CLOCK and the pool sizes, which replace those cfg already holds
 * (the collector's defaults); sets up the clock and fills pid, ppid and the
 * start time.  -1 when ZOND_DIR is unset: nothing is to be recorded.
 */
int zl_configure(struct zrt_config *cfg);

/* An environment variable set to anything but "" or "0". */
int zl_env_flag(const char *name);
/* getenv without calling a function the program may define: environ read directly. */
const char *zl_getenv(const char *name);
/* A decimal environment variable in [min, max] (max < 2^60); fallback when unset or not. */
uint64_t zl_env_number(const char *name, uint64_t fallback, uint64_t min, uint64_t max);

/*
 * The end of this process image: exited (status valid), or ended without
 * saying how.  Ignored in a vfork child, which shares the parent's memory.
 */
void zl_process_end(int exited, int status);

/*
 * exec: just before the real call, zl_process_exec notes the image's end
 * (end time, state ZR_EXECED, and the last time of t, the calling thread,
 * when it records) and what it replaced into *note; when the call returns
 * (it failed), zl_process_exec_failed takes the notes back: state
 * ZR_RUNNING, end fields 0.  Neither changes errno.  Nothing is noted in a
 * vfork child, which shares the parent's memory.
 */
struct zl_exec_note {
	int secure; /* (in) the image runs set-user-ID or set-group-ID: zl_count_lost_image */
	int noted;
	uint64_t last_ticks;  /* t's last time before the note */
	struct zr_header *lost; /* where the new image was counted as not recorded, or NULL */
};
void zl_process_exec(struct zrt_thread *t, struct zl_exec_note *note);
/*
 * A process image about to start (an exec, a posix_spawn) that could not
 * create its raw file, zond's directory being out of this process's reach
 * (it changed its user or root): counted as not recorded (lost_processes)
 * in this image's header (or, in a forked child that was not recorded, its
 * parent's), which is returned; NULL when the image can be recorded.
 * secure: the image runs set-user-ID or set-group-ID to other ids (its
 * loader ignores zond's library): counted whatever the directory.
 * zl_uncount_lost_image takes the count back (the exec failed).
 */
struct zr_header *zl_count_lost_image(int secure);
void zl_uncount_lost_image(struct zr_header *h);
/* 1 in a forked child that could not make its raw file (its parent's header counts it) */
int zl_recording_lost(void);
void zl_process_exec_failed(struct zrt_thread *t, const struct zl_exec_note *note);

/*
 * In a forked child, on the thread t that forked: recording moves to a new
 * file.  Not under seccomp (zl_sealed), where that takes system calls: the
 * child is then not recorded.
 */
void zl_process_forked(struct zrt_thread *t);
/* (A child whose file cannot be made is counted in its parent's header, and so
   are its own children, once each: port.c lost_to.) */

/* ---- seccomp (port.c) --------------------------------------------------- */

/*
 * Once the program puts itself under seccomp (seen by guard.h), the runtime
 * makes no system call of its own, in any thread, since the kernel may
 * kill the process for one the program never makes (an allow-list; a
 * filter applies to the thread that set it and its later children, or to
 * every thread with TSYNC; zond keeps to it everywhere):
 *   the process id is the one cached at the seal (zl_pid);
 *   no memory is mapped or unmapped and no file block reserved (port.h):
 *   a thread started later is not recorded (lost_threads), a context that
 *   needs more room is lost (lost_contexts, with ZR_FLAG_NO_ROOM);
 *   a forked child is not recorded; thread names are those at their start;
 *   the end's wall-clock time comes from the clock (end_realtime_ns 0), not
 *   refined;
 * and the samplers were stopped before (sample.h).  Under STRICT mode the
 * clock stops too (zl_clock_freeze): later calls are counted, not timed.
 * The header says so: ZR_FLAG_SECCOMP(_STRICT) and seccomp_ticks.
 */
enum { ZL_SECCOMP_NONE = 0, ZL_SECCOMP_FILTER = 1, ZL_SECCOMP_STRICT = 2 };

/* The mode the runtime keeps to, ZL_SECCOMP_*. */
extern int zl_sealed;

/* Before a call that sets mode: from now on.  The mode before, for zl_unseal. */
int zl_seal(int mode);

/* The call failed: back to previous (the clock runs again). */
void zl_unseal(int previous);

/* The calling process's id: getpid, or the one cached at the seal. */
int32_t zl_pid(void);

/* The calling thread's id in its own pid namespace (gettid): what the kernel's calls take. */
int32_t zl_tid(void);

/*
 * 1 when h is the header of the calling process's image (not its parent's,
 * in a forked child before zl_process_forked, nor in a vfork child).
 */
int zl_own_image(const struct zr_header *h);

/* ---- probe cost (port.c) ------------------------------------------------ */

enum { ZL_CALIBRATION_CALLS = 500 };

/*
 * Measures the probes' own cost and stores it (zrt.inner, zrt.pair and the
 * header).  t is the thread state the probes use; for the measurement it is
 * bound to a scratch slot, with no correction, and restored afterwards.
 * probed(outer, leaf) makes ZL_CALIBRATION_CALLS probed calls recorded as
 * function leaf from inside one probed call recorded as outer; bare() runs
 * the same loop without probes.  An empty leaf's own time is the inner part
 * of a probe pair; its parent's time per call, less the bare loop's, the
 * whole pair.  The cheapest of a few rounds wins.
 */
void zl_calibrate(struct zrt_thread *t, void (*probed)(uint64_t outer, uint64_t leaf),
		  void (*bare)(void));

#endif
