/*
 * guard.c - the program's calls that meet zond's own doings, as both
 * collectors handle them (guard.h).
 */
#define _GNU_SOURCE
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "sample.h"

void zl_guard_disposition(int sig, const void *handler)
{
	zl_sample_signal_taken(sig, handler);
}

enum { WORD_BITS = 8 * sizeof(unsigned long) };

/* Word and bit of sig in a sigset_t, as the kernel and glibc lay it out (no libc call). */
static unsigned word_of(int sig)
{
	return (unsigned)(sig - 1) / WORD_BITS;
}

static unsigned long bit_of(int sig)
{
	return 1ul << ((unsigned)(sig - 1) % WORD_BITS);
}

void zl_guard_altstack(struct zrt_thread *t, const stack_t *ss)
{
	if (!ss)
		return;
	uint64_t lo = (uintptr_t)ss->ss_sp;
	int on = !(ss->ss_flags & SS_DISABLE);
	t->alt_hi = 0; /* no range while it changes (a handler may read it) */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->alt_lo = on ? lo : 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->alt_hi = on ? lo + ss->ss_size : 0;
}

const sigset_t *zl_guard_mask(int how, const sigset_t *set, sigset_t *own)
{
	int sig = zl_sample_signal_active();
	if (!set || !sig || how == SIG_UNBLOCK ||
	    !(((const unsigned long *)(const void *)set)[word_of(sig)] & bit_of(sig)))
		return set;
	*own = *set;
	((unsigned long *)(void *)own)[word_of(sig)] &= ~bit_of(sig);
	return own;
}

void zl_guard_exec(struct zrt_thread *t, struct zl_exec_note *note)
{
	int saved_errno = errno;
	zl_process_exec(t, note);
	/* a sample signal still pending at the exec would meet the new image's default action */
	zl_sample_exec();
	errno = saved_errno;
}

int zl_guard_exec_failed(struct zrt_thread *t, const struct zl_exec_note *note, int ret)
{
	int saved_errno = errno;
	zl_process_exec_failed(t, note);
	zl_sample_exec_failed();
	errno = saved_errno;
	return ret;
}

/*
 * Counted and copied as glibc does (arg0, then every argument up to and
 * including the terminating NULL; execle's environment after it).
 */
static int count_args(va_list ap, ptrdiff_t *argc)
{
	for (*argc = 1; va_arg(ap, const char *); (*argc)++)
		if (*argc == INT_MAX) {
			errno = E2BIG;
			return -1;
		}
	return 0;
}

/* argv[0..argc] from arg0 and the arguments after it (the last one NULL). */
static void copy_args(const char *arg0, char **argv, ptrdiff_t argc, va_list *ap)
{
	argv[0] = (char *)arg0;
	for (ptrdiff_t i = 1; i <= argc; i++)
		argv[i] = va_arg(*ap, char *);
}

int zl_exec_list(zl_execv_fn *vector, zl_execve_fn *execve, const char *file, const char *arg0,
		 int with_envp, va_list ap)
{
	ptrdiff_t argc;
	va_list counting;
	va_copy(counting, ap);
	int bad = count_args(counting, &argc);
	va_end(counting);
	if (bad)
		return -1;
	/* a local copy: a va_list parameter may be an array turned pointer */
	va_list args;
	va_copy(args, ap);
	char *argv[argc + 1];
	copy_args(arg0, argv, argc, &args);
	char *const *envp = with_envp ? va_arg(args, char *const *) : NULL;
	va_end(args);
	return with_envp ? execve(file, argv, envp) : vector(file, argv);
}

int zl_seccomp_of_prctl(long option, long mode, long prog)
{
	if (option != PR_SET_SECCOMP)
		return ZL_SECCOMP_NONE;
	if (mode == SECCOMP_MODE_STRICT)
		return ZL_SECCOMP_STRICT;
	return mode == SECCOMP_MODE_FILTER && prog ? ZL_SECCOMP_FILTER : ZL_SECCOMP_NONE;
}

int zl_seccomp_of_syscall(long op, long args)
{
	if (op == SECCOMP_SET_MODE_STRICT)
		return ZL_SECCOMP_STRICT;
	return op == SECCOMP_SET_MODE_FILTER && args ? ZL_SECCOMP_FILTER : ZL_SECCOMP_NONE;
}

int zl_guard_seccomp(int mode)
{
	if (mode == ZL_SECCOMP_NONE)
		return zl_sealed;
	int saved_errno = errno;
	/* the samplers' system calls while they are still allowed */
	zl_sample_seal();
	int previous = zl_seal(mode);
	errno = saved_errno;
	return previous;
}

void zl_guard_seccomp_done(int mode, int previous, long ret)
{
	if (mode != ZL_SECCOMP_NONE && ret < 0)
		zl_unseal(previous); /* errno untouched: no libc, no system call */
}
