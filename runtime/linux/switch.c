/*
 * switch.c - stack switches (coroutines): swapcontext, and setcontext with
 * getcontext.  The frames a thread has open belong to the stack they run on:
 * a coroutine resumed later must find its own callers, not those of whoever
 * resumed it, and the stack it left must not take its calls.  So the
 * switches are interposed: the frames of the stack being left are parked
 * under the context that will bring the thread back to it (core.h
 * zrt_park), and put back when the thread comes back through that context.
 * A makecontext'd function's first run starts with no frames: its calls are
 * roots, as its stack has nothing below it.
 *
 * swapcontext(save, to) parks under save and puts the frames back when its
 * call of the real swapcontext returns.  setcontext(to) saves nothing: the
 * stack it leaves comes back, if ever, through the last getcontext made on
 * it (a coroutine's yield: getcontext(&me), then setcontext(&other)).  So
 * getcontext notes the context it saves (an assembly wrapper that jumps on
 * to the real one: the context must be saved in the caller's own frame), and
 * setcontext parks the stack it leaves under that context when the context
 * resumes on this stack (its saved stack pointer lies between the
 * setcontext and the stack's outermost frame); else the stack is dead, its
 * frames dropped.  A getcontext'd context resumes in the program's code,
 * where no wrapper of zond's runs, so the switch that goes to it (setcontext,
 * swapcontext) puts its frames back first.  A setcontext to a context on the
 * stack it runs on is a jump (longjmp), which the probes' own test handles.
 * glibc's own switch at the end of a makecontext'd function (uc_link) is not
 * seen; the landing's swapcontext return handles it, a getcontext landing
 * does not.
 *
 * Only in the shared runtime (the real functions found with dlsym(RTLD_NEXT)
 * at load), for glibc; getcontext and setcontext on x86-64.
 */
#define _GNU_SOURCE
#include "instrument.h"
#include "tasks.h"

#include <dlfcn.h>
#include <errno.h>
#include <ucontext.h>

#if defined(__GLIBC__)

#define API __attribute__((visibility("default")))

typedef int swap_fn(ucontext_t *, const ucontext_t *);
typedef int set_fn(const ucontext_t *);
static swap_fn *real_swap;
#if defined(__x86_64__)
static set_fn *real_set;
/* the real getcontext, jumped to by the wrapper below */
__attribute__((visibility("hidden"))) void *zl_real_getcontext;
#endif

__attribute__((constructor)) static void find_swap(void)
{
	real_swap = (swap_fn *)dlsym(RTLD_NEXT, "swapcontext");
#if defined(__x86_64__)
	real_set = (set_fn *)dlsym(RTLD_NEXT, "setcontext");
	zl_real_getcontext = dlsym(RTLD_NEXT, "getcontext");
#endif
}

#if defined(__x86_64__)
/* The stack pointer a context resumes with. */
static uint64_t resumes_at(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
}

/* Whether a context resumes on the stack t runs on, at sp now: between sp and its outermost frame. */
static int on_this_stack(struct zrt_thread *t, const ucontext_t *uc, uint64_t sp)
{
	uint32_t d = t->info->depth;
	if (!d || d > zrt.max_depth)
		return 0;
	uint64_t at = resumes_at(uc);
	return at >= sp && at <= zrt_frame_sp(&t->stack[0]) + 16;
}

/* Called by the getcontext wrapper with the context being saved. */
__attribute__((visibility("hidden"), used)) void zl_noted_getcontext(ucontext_t *uc)
{
	if (!zl_real_getcontext) /* a getcontext before the constructors */
		zl_real_getcontext = dlsym(RTLD_NEXT, "getcontext");
	struct zrt_thread *t = zl_me();
	if (t->state == ZRT_THREAD_ON)
		t->saved_ctx = (uintptr_t)uc;
}

/*
 * getcontext: notes its argument, then jumps to the real one with the
 * caller's stack and return address as they were, so that the context is
 * the caller's.  No real getcontext: ENOSYS, as swapcontext.
 */
__asm__(".text\n"
	".globl getcontext\n"
	".type getcontext, @function\n"
	"getcontext:\n"
	"	endbr64\n"
	"	push %rdi\n"
	"	call zl_noted_getcontext\n"
	"	pop %rdi\n"
	"	mov zl_real_getcontext(%rip), %rax\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	jmp *%rax\n"
	"1:	jmp zl_no_getcontext\n"
	".size getcontext, .-getcontext\n");

__attribute__((visibility("hidden"), used)) int zl_no_getcontext(void)
{
	errno = ENOSYS;
	return -1;
}

API int setcontext(const ucontext_t *to)
{
	if (!real_set) {
		errno = ENOSYS;
		return -1;
	}
	struct zrt_thread *t = zl_me();
	uint64_t sp = (uintptr_t)__builtin_frame_address(0);
	if (t->state == ZRT_THREAD_ON && !on_this_stack(t, to, sp)) {
		ucontext_t *saved = (ucontext_t *)(uintptr_t)t->saved_ctx;
		t->saved_ctx = 0;
		/* the stack left comes back through its last getcontext, if any; else it is dead */
		zrt_park(t, saved && saved != to && on_this_stack(t, saved, sp) ? (uintptr_t)saved : 0, 0);
		/* a swapcontext's save puts its frames back itself, on its return */
		if (zrt_parked_by(t, (uintptr_t)to) != ZRT_PARKED_SWAP)
			zrt_unpark(t, (uintptr_t)to);
	}
	return real_set(to);
}
#endif

API int swapcontext(ucontext_t *save, const ucontext_t *to)
{
	if (!real_swap) {
		errno = ENOSYS; /* no C library's swapcontext: this call cannot have been made */
		return -1;
	}
	struct zrt_thread *t = zl_me();
	if (t->state == ZRT_THREAD_ON) {
		zrt_park(t, (uintptr_t)save, 1);
#if defined(__x86_64__)
		/* to resumes after a getcontext, where nothing of zond's runs */
		if (zrt_parked_by(t, (uintptr_t)to) == ZRT_PARKED_GET)
			zrt_unpark(t, (uintptr_t)to);
#endif
	}
	int rc = real_swap(save, to);
	/* back through save: maybe on another thread (a scheduler that moves coroutines) */
	t = zl_me();
	if (t->state == ZRT_THREAD_ON)
		zrt_unpark(t, (uintptr_t)save);
	return rc;
}

#endif
