/*
 * signals.c - libzond.so sees the program take a signal: a disposition of
 * its own for zond's sampling signal stops sampling first (sample.h), so
 * that the program's handler, not zond's, gets that signal from then on.
 * And a signal mask the program sets never blocks the sampling signal
 * while zond samples (zl_sample_signal_active): a thread that blocks every
 * signal to collect them with sigwait, sigtimedwait or a signalfd would
 * otherwise collect zond's too, and its time would go unsampled.  Only in
 * the shared library, like exec.c: it interposes libc's functions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

#include "instrument.h"
#include "sample.h"

#define API __attribute__((visibility("default")))

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t signal_fn(int, sighandler_t);

API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static sigaction_fn *real;
	if (!real)
		real = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
	if (act)
		zl_sample_signal_taken(sig);
	return real(sig, act, old);
}

typedef int sigmask_fn(int, const sigset_t *, sigset_t *);

/* set, or a copy of it in own without the sampling signal when it would block it. */
static const sigset_t *without_sampling(int how, const sigset_t *set, sigset_t *own)
{
	int sig = zl_sample_signal_active();
	if (!set || !sig || how == SIG_UNBLOCK || sigismember(set, sig) != 1)
		return set;
	*own = *set;
	sigdelset(own, sig);
	return own;
}

/* The C library's name (found once into *real), its set leaving the sampling signal out. */
static int set_mask(sigmask_fn **real, const char *name, int how, const sigset_t *set,
		    sigset_t *old)
{
	if (!*real)
		*real = (sigmask_fn *)dlsym(RTLD_NEXT, name);
	sigset_t own;
	return (*real)(how, without_sampling(how, set, &own), old);
}

API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn *real;
	return set_mask(&real, "sigprocmask", how, set, old);
}

API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn *real;
	return set_mask(&real, "pthread_sigmask", how, set, old);
}

typedef int sigaltstack_fn(const stack_t *, stack_t *);

/* The calling thread's signal stack, told to the core (zrt_thread.alt_lo). */
API int sigaltstack(const stack_t *ss, stack_t *old)
{
	static sigaltstack_fn *real;
	if (!real)
		real = (sigaltstack_fn *)dlsym(RTLD_NEXT, "sigaltstack");
	int rc = real(ss, old);
	if (rc == 0 && ss) {
		struct zrt_thread *t = &zl_self;
		uint64_t lo = (uintptr_t)ss->ss_sp;
		int on = !(ss->ss_flags & SS_DISABLE);
		t->alt_hi = 0; /* no range while it changes (a handler may read it) */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->alt_lo = on ? lo : 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->alt_hi = on ? lo + ss->ss_size : 0;
	}
	return rc;
}

API sighandler_t signal(int sig, sighandler_t handler)
{
	static signal_fn *real;
	if (!real)
		real = (signal_fn *)dlsym(RTLD_NEXT, "signal");
	zl_sample_signal_taken(sig);
	return real(sig, handler);
}
