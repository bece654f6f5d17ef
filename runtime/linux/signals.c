/*
 * signals.c - libzond.so sees the program take a signal: a disposition of
 * its own for zond's sampling signal stops sampling first (sample.h), so
 * that the program's handler, not zond's, gets that signal from then on.
 * Only in the shared library, like exec.c: it interposes libc's functions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

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

API sighandler_t signal(int sig, sighandler_t handler)
{
	static signal_fn *real;
	if (!real)
		real = (signal_fn *)dlsym(RTLD_NEXT, "signal");
	zl_sample_signal_taken(sig);
	return real(sig, handler);
}
