/*
 * seccomp.c - libzond.so sees the program put itself under seccomp:
 * prctl(PR_SET_SECCOMP, ...) and syscall(SYS_seccomp or SYS_prctl, ...),
 * the ways a program or libseccomp reaches it through the C library (glibc
 * has no seccomp function).  The runtime stops everything that makes
 * system calls of its own just before the call (guard.h, linux.h
 * zl_seal), since the filter may kill the process for one the program
 * never makes.  Only in the shared library: it interposes libc's functions,
 * found at load (not under seccomp, where dlsym's allocation may be denied).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "guard.h"
#include "sample.h"

#define API __attribute__((visibility("default")))

typedef int prctl_fn(int, unsigned long, unsigned long, unsigned long, unsigned long);
typedef long syscall_fn(long, long, long, long, long, long, long);

static prctl_fn *real_prctl;
static syscall_fn *real_syscall;

__attribute__((constructor)) static void find_reals(void)
{
	if (!real_prctl)
		real_prctl = (prctl_fn *)dlsym(RTLD_NEXT, "prctl");
	if (!real_syscall)
		real_syscall = (syscall_fn *)dlsym(RTLD_NEXT, "syscall");
}

/* glibc's prctl takes four more words whatever the option: so do we */
API int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long),
		      a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (!real_prctl)
		find_reals();
	int mode = zl_seccomp_of_prctl(option, (long)a2, (long)a3);
	int previous = zl_guard_seccomp(mode);
	int rc = real_prctl(option, a2, a3, a4, a5);
	zl_guard_seccomp_done(mode, previous, rc);
	return rc;
}

/* The seccomp mode syscall(nr, a, b, c) would set. */
static int seccomp_of(long nr, long a, long b, long c)
{
	if (nr == SYS_seccomp)
		return zl_seccomp_of_syscall(a, c);
	if (nr == SYS_prctl)
		return zl_seccomp_of_prctl(a, b, c);
	return ZL_SECCOMP_NONE;
}

/* glibc's syscall takes six words after the number whatever it is: so do we */
API long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long),
	     d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	if (!real_syscall)
		find_reals();
	long ret;
	/* the mask the program reads back through the system call (guard.h) */
	if (zl_guard_sigmask_syscall(real_syscall, nr, a, b, c, d, &ret))
		return ret;
	/* the samplers' fds outlive the program's closes (fds.c) */
	if (nr == SYS_close && zl_sample_owns_fd((int)a))
		return 0;
	if (nr == SYS_close_range)
		return zl_fds_close_range((unsigned)a, (unsigned)b, (int)c);
	int mode = seccomp_of(nr, a, b, c);
	if (mode == ZL_SECCOMP_NONE)
		return real_syscall(nr, a, b, c, d, e, f);
	int previous = zl_guard_seccomp(mode);
	long rc = real_syscall(nr, a, b, c, d, e, f);
	zl_guard_seccomp_done(mode, previous, rc);
	return rc;
}
