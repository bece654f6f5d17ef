/*
 * clone.c - libzond's clone and vfork (the shared library only): tasks that
 * run on their creator's thread-local storage get a struct of their own
 * (tasks.h).
 *
 * clone with CLONE_VM and without CLONE_SETTLS (CLONE_THREAD or not,
 * CLONE_VFORK or not) starts fn on the given stack with the caller's thread
 * pointer: the child (guard.c zl_guard_clone, which libzond-audit's guard
 * of clone calls too) runs zl_task_run, which calls fn(arg) and returns what
 * it returns, after ending the task's struct.  Everything else the child
 * sees is what it would see without zond: its thread pointer, its stack
 * (but for zl_task_run's frame above fn's), its errno (the caller's
 * variable: nothing here writes it in the child), its signal mask (the
 * caller's in the caller's view: guard.h zl_guard_inherit_begin, as for
 * pthread_create).  Other clones pass through untouched.  A bare
 * clone/clone3 system call is not seen.
 *
 * vfork (x86-64): the child returns from vfork, runs and execs or exits
 * while its parent waits, on the parent's stack.  A wrapper whose frame the
 * child returned through would leave the parent a frame the child wrote
 * over, so the wrapper keeps its caller's return address in a register
 * (%rsi: glibc's vfork keeps it, the system call too, and the child's
 * registers are its own), calls the real vfork as glibc's own does its
 * system call, puts the address back and tells zl_task_vforked which side
 * it is on.
 */
#define _GNU_SOURCE
#include "guard.h"
#include "instrument.h"
#include "tasks.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/types.h>

#define API __attribute__((visibility("default")))

static zl_clone_fn *real_clone;
#if defined(__x86_64__)
__attribute__((visibility("hidden"))) void *zl_real_vfork;
#endif

/* Looked up at load: a vfork child then calls no dlsym. */
__attribute__((constructor)) static void find_reals(void)
{
	real_clone = (zl_clone_fn *)dlsym(RTLD_NEXT, "clone");
#if defined(__x86_64__)
	zl_real_vfork = dlsym(RTLD_NEXT, "vfork");
#endif
}

API int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	/* glibc's clone passes these on whatever the flags: so do we */
	va_list ap;
	va_start(ap, arg);
	pid_t *ptid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!real_clone)
		find_reals();
	if (!real_clone) {
		errno = ENOSYS;
		return -1;
	}
	/* zl_task_new may start the runtime: errno as the program left it for the real clone */
	int saved_errno = errno;
	zl_start();
	errno = saved_errno;
	return zl_guard_clone(real_clone, fn, stack, flags, arg, ptid, tls, ctid,
			      (uintptr_t)__builtin_dwarf_cfa());
}

#if defined(__x86_64__)
__attribute__((visibility("hidden"), used)) void zl_vforked(long rc)
{
	int saved_errno = errno;
	zl_task_vforked(rc);
	errno = saved_errno;
}

__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
	"	endbr64\n"
	"	pop %rsi\n"
	"	call *zl_real_vfork(%rip)\n"
	"	push %rsi\n"
	"	push %rax\n"
	"	mov %rax, %rdi\n"
	"	call zl_vforked\n"
	"	pop %rax\n"
	"	ret\n"
	".size vfork, .-vfork\n");
#endif
