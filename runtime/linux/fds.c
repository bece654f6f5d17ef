/*
 * fds.c - the program's closes leave the samplers' perf_event fds (high
 * numbers, close-on-exec: sample.c), which a daemon's close of everything
 * from 3 up (a loop of close, close_range, closefrom) would otherwise take,
 * and with them every later sample of the run, without a word.  A close of
 * such an fd does nothing and says it succeeded; a range is closed around
 * it.  Only in the shared library: it interposes libc's functions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sample.h"

#define API __attribute__((visibility("default")))

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC 4
#endif

typedef int close_fn(int);

API int close(int fd)
{
	static close_fn *real;
	if (zl_sample_owns_fd(fd))
		return 0;
	if (!real)
		real = (close_fn *)dlsym(RTLD_NEXT, "close");
	return real(fd);
}

/* close_range(2) from first to last, around the samplers' fds. */
static int close_around(unsigned first, unsigned last, int flags)
{
	if (flags & CLOSE_RANGE_CLOEXEC) /* theirs are close-on-exec already */
		return (int)syscall(SYS_close_range, first, last, flags);
	unsigned from = first;
	for (int fd; from <= last && from <= INT_MAX && (fd = zl_sample_next_fd((int)from)) >= 0 &&
		     (unsigned)fd <= last;
	     from = (unsigned)fd + 1)
		if ((unsigned)fd > from && syscall(SYS_close_range, from, fd - 1, flags) != 0)
			return -1;
	if (from > last)
		return 0;
	return (int)syscall(SYS_close_range, from, last, flags);
}

API int close_range(unsigned first, unsigned last, int flags)
{
	return close_around(first, last, flags);
}

API void closefrom(int lowfd)
{
	if (close_around(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u, 0) == 0)
		return;
	/* no close_range (Linux < 5.9): one by one up to the limit, as glibc does */
	long max = sysconf(_SC_OPEN_MAX);
	int saved = errno;
	for (long fd = lowfd < 0 ? 0 : lowfd; fd < max; fd++)
		close((int)fd);
	errno = saved;
}
