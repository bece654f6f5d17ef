/*
 * switch.c - swapcontext between stacks (coroutines).  The frames a thread
 * has open belong to the stack they run on: a coroutine resumed later must
 * find its own callers, not those of whoever resumed it, and the stack it
 * left must not take its calls.  So swapcontext is interposed: the frames of
 * the stack being left are parked under the context it saves (core.h
 * zrt_park), and put back when the thread comes back through that context,
 * which is when this wrapper's call of the real swapcontext returns.  A
 * makecontext'd function's first run starts with no frames: its calls are
 * roots, as its stack has nothing below it.
 *
 * setcontext is left alone: it saves nothing, and the stack it leaves is dead
 * unless a getcontext on the same stack is its target (a longjmp, which the
 * probes' own test handles); the wrapper's return drops whatever a stack left
 * that way still had open.
 *
 * Only in the shared runtime (the real function found with dlsym(RTLD_NEXT)
 * at load), for glibc.
 */
#define _GNU_SOURCE
#include "instrument.h"

#include <dlfcn.h>
#include <errno.h>
#include <ucontext.h>

#if defined(__GLIBC__)

#define API __attribute__((visibility("default")))

typedef int swap_fn(ucontext_t *, const ucontext_t *);
static swap_fn *real_swap;

__attribute__((constructor)) static void find_swap(void)
{
	real_swap = (swap_fn *)dlsym(RTLD_NEXT, "swapcontext");
}

API int swapcontext(ucontext_t *save, const ucontext_t *to)
{
	if (!real_swap) {
		errno = ENOSYS; /* no C library's swapcontext: this call cannot have been made */
		return -1;
	}
	struct zrt_thread *t = &zl_self;
	if (t->state == ZRT_THREAD_ON)
		zrt_park(t, (uintptr_t)save, 1);
	int rc = real_swap(save, to);
	/* back through save: maybe on another thread (a scheduler that moves coroutines) */
	t = &zl_self;
	if (t->state == ZRT_THREAD_ON)
		zrt_unpark(t, (uintptr_t)save);
	return rc;
}

#endif
