/*
 * fds.c - the program's closes leave the samplers' perf_event fds (high
 * numbers, close-on-exec: sample.c), which a daemon's close of everything
 * from 3 up (a loop of close, close_range, closefrom) would otherwise take,
 * and with them every later sample of the run, without a word.  A close of
 * such an fd does nothing and says it succeeded; a range is closed around
 * it; also through syscall(SYS_close or SYS_close_range, ...) (seccomp.c's
 * syscall, the C library's way a daemon calls close_range where glibc had
 * no function for it).  Only in the shared library: it interposes libc's
 * functions.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux.h"
#include "sample.h"

#define API __attribute__((visibility("default")))

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

/* One piece of a close_range: a raw system call (syscall() is ours too, seccomp.c). */
static long close_range_raw(unsigned first, unsigned last, int flags, void *arg)
{
	(void)arg;
	long rc = zl_syscall6(SYS_close_range, first, last, flags, 0, 0, 0);
	if (rc < 0) {
		errno = (int)-rc;
		return -1;
	}
	return 0;
}

long zl_fds_close_range(unsigned first, unsigned last, int flags)
{
	return zl_sample_close_around(first, last, flags, close_range_raw, NULL);
}

API int close_range(unsigned first, unsigned last, int flags)
{
	return (int)zl_fds_close_range(first, last, flags);
}

API void closefrom(int lowfd)
{
	if (zl_fds_close_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u, 0) == 0)
		return;
	/* no close_range (Linux < 5.9): one by one up to the limit, as glibc does */
	long max = sysconf(_SC_OPEN_MAX);
	int saved = errno;
	for (long fd = lowfd < 0 ? 0 : lowfd; fd < max; fd++)
		close((int)fd);
	errno = saved;
}
