/*
 * sample.h - sampled CPU time for both in-process collectors (ZOND_TIME=
 * sampled, the default of `zond record`): each recorded thread gets a
 * sampler that raises zond's signal on that thread every sample period of
 * its CPU time; the handler charges the sample to the context on top of the
 * thread's shadow stack (zrt_sample).  The hooks read no clock in this mode.
 *
 * The sampler is a perf_event software task clock of the thread when the
 * kernel allows one that counts kernel time too (root, CAP_PERFMON, or
 * perf_event_paranoid <= 1), else (or with ZOND_SAMPLER=timer) a POSIX
 * timer on the thread's CPU-time clock (SIGEV_THREAD_ID).  The kernel checks
 * such timers only at its tick (4 ms at HZ=250): a 1 ms period then comes
 * as one signal and three overruns at one pc, a quarter of the independent
 * samples.  The task clock runs an hrtimer of the period itself.  Its fd
 * sits high (below 1024 and the file limit, O_CLOEXEC), is closed when the
 * thread ends, just before an exec, and in a forked child (which inherits
 * it); a number the program closed or reused is left alone (the event's id
 * is checked).  It counts one period, signals the thread (F_SETOWN_EX
 * F_OWNER_TID, F_SETSIG) and stops until the handler rearms it: a thread
 * blocking the signal has one pending, never a queue.  header.samplers says
 * which ran.
 *
 * The signal is a real-time one, SIGRTMAX-3 unless ZOND_SAMPLE_SIGNAL says
 * otherwise: SIGPROF and SIGALRM belong to the program (setitimer, gprof,
 * its own profilers), and glibc keeps the lowest real-time signals for
 * itself; programs that use real-time signals count up from SIGRTMIN.  A
 * real-time timer signal is not lost or merged with another process's: the
 * kernel keeps one pending per timer and counts the rest as overruns.  The
 * handler is installed with SA_RESTART (system calls that can be restarted
 * are) and saves errno.  When the program installs any disposition of its
 * own for that signal (libzond sees sigaction and signal), sampling stops
 * for the rest of the process (zl_sample_stop) and the program's
 * disposition takes over: its handler works, the header says so.
 *
 * The timer calls are raw system calls: a thread's first call may come
 * from the library-call wrapper, where no libc function may run.
 */
#ifndef ZOND_SAMPLE_H
#define ZOND_SAMPLE_H

#include "linux.h"

/*
 * Reads ZOND_TIME (sampled or exact; unset: exact), ZOND_SAMPLE_PERIOD (ns
 * of CPU time, default 1 ms), ZOND_SAMPLE_SIGNAL and ZOND_SAMPLER (timer:
 * never the task clock) into cfg; sampled sets
 * ZR_FLAG_SAMPLED and ZR_FLAG_NO_TIME.  ZOND_NO_TIME=1 wins over both.
 * Call after zl_configure.
 */
void zl_sample_configure(struct zrt_config *cfg);

/*
 * After zrt_process_start: when the file says sampled, installs the
 * handler; self(), called in the handler, gives the interrupted thread's
 * probe state.  Sampling is off on failure (the header says so).
 */
void zl_sample_start(struct zrt_thread *(*self)(void));

/*
 * Before zl_sample_start: the probes the program calls through its PLT
 * (libzond's hooks).  A sample whose pc is a PLT stub jumping to one of them
 * is zond's cost: the stub runs only because zond's hooks are called, and
 * bench/accuracy's reference counts it with the hooks.
 */
void zl_sample_hooks(uint64_t enter, uint64_t exit);

/* Arms the calling thread's sampler (it was just attached: port_thread_attached). */
void zl_sample_thread_start(void);

/* Ends the calling thread's sampler (the thread ends). */
void zl_sample_thread_end(void);

/*
 * Just before an exec: ends the calling thread's sampler and takes a
 * sample signal still pending (the new image would die of it); nothing in
 * a vfork child (the sampler is its parent's).
 */
void zl_sample_exec(void);

/* The exec failed: the calling thread samples again. */
void zl_sample_exec_failed(void);

/* In a forked child, first: closes the perf_event fds inherited from the parent. */
void zl_sample_forked(void);

/*
 * The program sets a disposition for sig, handler (its sa_handler or
 * sa_sigaction): stops sampling if sig is zond's, unless handler is zond's
 * own or, while zond samples, the one its queries showed it
 * (zl_sample_disposition_seen): a program putting back every action it
 * read.  1 in that last case: the call must leave zond's handler (a query
 * only).
 */
int zl_sample_signal_taken(int sig, const void *handler);
/*
 * After a sigaction call that returned sig's old disposition in *old
 * (old may be NULL): when that is zond's sampling handler, *old becomes
 * what the program would have seen without zond (the disposition before
 * zond's handler, SIG_DFL mostly).
 */
struct sigaction;
void zl_sample_disposition_seen(int sig, struct sigaction *old);

/*
 * Before the program puts itself under seccomp (guard.h): ends every
 * thread's sampler for good while the system calls that takes are still
 * allowed (timer_delete, close: from any thread), so that no handler rearms
 * a perf_event (ioctl) nor a timer interrupts the program later, and takes
 * a sample signal pending on the calling thread.  Another thread's pending
 * one reaches zond's handler, which does nothing with it.  header
 * sample_state 3.
 */
void zl_sample_seal(void);

/*
 * The signal the samplers raise while they run, 0 when none does (not
 * sampling, or the program took the signal): a mask the program sets
 * leaves it out (signals.c), so that it is never pending for the
 * program's sigwait, sigtimedwait or signalfd to take, and the samples of
 * a thread that blocks every signal still come.
 */
int zl_sample_signal_active(void);

/*
 * The program's view of that signal on the calling thread: 1 when the
 * program has it blocked (set by its masks, zl_guard_sigmask; or inherited
 * blocked, which zl_sample_thread_start undoes for real), though zond's
 * mask never blocks it while sampling.
 */
int zl_sample_program_blocks(void);
void zl_sample_set_program_blocks(int blocked);

/* The signal blocked (SIG_BLOCK) or unblocked (SIG_UNBLOCK) for real, by the system call. */
void zl_sample_mask(int sig, int how);

/*
 * 1 when fd is a sampler's perf_event fd of this process (no system call:
 * the samplers' table), so that the program's own closes leave it (fds.c).
 */
int zl_sample_owns_fd(int fd);

/* The next sampler fd of this process at or above fd, -1 when none. */
int zl_sample_next_fd(int fd);

/*
 * A close_range(2) of first..last that leaves the samplers' fds open: calls
 * piece(from, to, flags, arg) for each part of the range without one, in
 * order (the whole range when flags has CLOSE_RANGE_CLOEXEC: theirs are
 * close-on-exec already), and returns the first non-zero result, else 0.
 * piece is the collector's own close_range: the program's C library's for
 * the audit library (errno is the program's), a raw system call in libzond.
 */
long zl_sample_close_around(unsigned first, unsigned last, int flags,
			    long (*piece)(unsigned from, unsigned to, int flags, void *arg), void *arg);

/* libzond's close_range around the samplers' fds (fds.c): 0, or -1 with errno set. */
long zl_fds_close_range(unsigned first, unsigned last, int flags);

#endif
