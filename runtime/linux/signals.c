/*
 * signals.c - libzond.so sees the program take a signal: a disposition of
 * its own for zond's sampling signal stops sampling first (sample.h), so
 * that the program's handler, not zond's, gets that signal from then on.
 * And a signal mask the program sets never blocks the sampling signal
 * while zond samples (zl_sample_signal_active): a thread that blocks every
 * signal to collect them with sigwait, sigtimedwait or a signalfd would
 * otherwise collect zond's too, and its time would go unsampled.  The
 * logic is guard.c's, which libzond-audit shares.  Only in the shared
 * library, like exec.c: it interposes libc's functions, found once at load
 * (dlsym may allocate: not on a later first call, nor under seccomp).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

#include "guard.h"
#include "instrument.h"

#define API __attribute__((visibility("default")))

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t signal_fn(int, sighandler_t);
typedef int sigmask_fn(int, const sigset_t *, sigset_t *);
typedef int sigaltstack_fn(const stack_t *, stack_t *);

static sigaction_fn *real_sigaction;
static signal_fn *real_signal;
static sigmask_fn *real_sigprocmask, *real_pthread_sigmask;
static sigaltstack_fn *real_sigaltstack;

/* The C library's name, *real found now if not yet. */
static void *find(void *real, const char *name)
{
	return real ? real : dlsym(RTLD_NEXT, name);
}

__attribute__((constructor)) static void find_reals(void)
{
	real_sigaction = (sigaction_fn *)find((void *)real_sigaction, "sigaction");
	real_signal = (signal_fn *)find((void *)real_signal, "signal");
	real_sigprocmask = (sigmask_fn *)find((void *)real_sigprocmask, "sigprocmask");
	real_pthread_sigmask = (sigmask_fn *)find((void *)real_pthread_sigmask, "pthread_sigmask");
	real_sigaltstack = (sigaltstack_fn *)find((void *)real_sigaltstack, "sigaltstack");
}

API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction) /* called before our constructor ran (another library's) */
		find_reals();
	if (act && zl_guard_disposition(sig, (const void *)act->sa_handler))
		act = NULL;
	int rc = real_sigaction(sig, act, old);
	if (rc == 0)
		zl_guard_disposition_seen(sig, old);
	return rc;
}

API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (!real_sigprocmask)
		find_reals();
	return zl_guard_sigmask(real_sigprocmask, how, set, old);
}

API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (!real_pthread_sigmask)
		find_reals();
	return zl_guard_sigmask(real_pthread_sigmask, how, set, old);
}

/* The calling thread's signal stack, told to the core (zrt_thread.alt_lo). */
API int sigaltstack(const stack_t *ss, stack_t *old)
{
	if (!real_sigaltstack)
		find_reals();
	int rc = real_sigaltstack(ss, old);
	if (rc == 0)
		zl_guard_altstack(&zl_self, ss);
	return rc;
}

API sighandler_t signal(int sig, sighandler_t handler)
{
	if (!real_signal)
		find_reals();
	if (zl_guard_disposition(sig, (const void *)handler))
		return zl_guard_handler_seen(sig, handler);
	return zl_guard_handler_seen(sig, real_signal(sig, handler));
}
