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
#include <pthread.h>
#include <signal.h>

#include "guard.h"
#include "instrument.h"
#include "tasks.h"

#define API __attribute__((visibility("default")))

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t signal_fn(int, sighandler_t);
typedef int sigmask_fn(int, const sigset_t *, sigset_t *);
typedef int sigaltstack_fn(const stack_t *, stack_t *);

static sigaction_fn *real_sigaction;
static signal_fn *real_signal;
static sigmask_fn *real_sigprocmask, *real_pthread_sigmask;
static sigaltstack_fn *real_sigaltstack;
typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int thrd_create_fn(void *, int (*)(void *), void *);
static pthread_create_fn *real_pthread_create;
static thrd_create_fn *real_thrd_create;
typedef int int_fn(int);
static int_fn *real_sigsetmask, *real_sighold, *real_sigrelse;

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
	real_pthread_create =
		(pthread_create_fn *)find((void *)real_pthread_create, "pthread_create");
	real_thrd_create = (thrd_create_fn *)find((void *)real_thrd_create, "thrd_create");
	real_sigsetmask = (int_fn *)find((void *)real_sigsetmask, "sigsetmask");
	real_sighold = (int_fn *)find((void *)real_sighold, "sighold");
	real_sigrelse = (int_fn *)find((void *)real_sigrelse, "sigrelse");
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

/* the BSD and System V forms (glibc's call its sigprocmask without the PLT) */
API int sigsetmask(int mask)
{
	if (!real_sigsetmask)
		find_reals();
	return zl_guard_sigsetmask(real_sigsetmask, mask);
}

API int sighold(int sig)
{
	if (!real_sighold)
		find_reals();
	return zl_guard_sighold(real_sighold, sig, 1);
}

API int sigrelse(int sig)
{
	if (!real_sigrelse)
		find_reals();
	return zl_guard_sighold(real_sigrelse, sig, 0);
}

/* The calling thread's signal stack, told to the core (zrt_thread.alt_lo). */
API int sigaltstack(const stack_t *ss, stack_t *old)
{
	if (!real_sigaltstack)
		find_reals();
	int rc = real_sigaltstack(ss, old);
	if (rc == 0)
		zl_guard_altstack(zl_me(), ss);
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

/*
 * A new thread starts with its creator's mask: the sampling signal, blocked
 * in the creator's view, is blocked for real for the call (guard.h), so
 * that the new thread reads back the mask it would have without zond.
 */
API int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
		       void *arg)
{
	if (!real_pthread_create)
		find_reals();
	int blocked = zl_guard_inherit_begin();
	int rc = real_pthread_create(thread, attr, start, arg);
	zl_guard_inherit_end(blocked);
	return rc;
}

/* C11's threads (glibc's thrd_create does not call pthread_create through its PLT) */
API int thrd_create(void *thread, int (*start)(void *), void *arg)
{
	if (!real_thrd_create)
		find_reals();
	if (!real_thrd_create)
		return 2; /* thrd_error: a C library without it cannot have been called */
	int blocked = zl_guard_inherit_begin();
	int rc = real_thrd_create(thread, start, arg);
	zl_guard_inherit_end(blocked);
	return rc;
}
