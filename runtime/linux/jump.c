/*
 * jump.c - longjmp out of instrumented calls.  The calls it leaves never
 * run their exit probes; the entry or exit probe that comes next finds
 * them by their probes' stack addresses (core.h, zrt_frame_stale), which
 * tells most of them but not all: a function called from the same stack
 * frame as one left by longjmp, with a larger stack frame of its own, has
 * its probe run below the dead one's and would be taken for its callee.
 * So the jumps are interposed and close every frame below the stack
 * pointer the jump returns to, then jump.
 *
 * glibc (x86-64) keeps that stack pointer in the jmp_buf, mangled with the
 * thread's pointer guard (PTR_MANGLE: xor with the guard in the TCB at
 * %fs:0x30, then rotate left by 17).  It is the setjmp caller's stack
 * pointer at its call; that function's own frame has its probe's address
 * 16 below (ZL_PROBE_SP), the frames of its callees at least 32 below.
 *
 * Only in the shared runtime, where the real functions are found with
 * dlsym(RTLD_NEXT) at load (a jump from a signal handler must not call
 * dlsym).  Elsewhere (other C libraries, the static runtime) the probes'
 * own test is all there is.
 */
#define _GNU_SOURCE
#include "instrument.h"
#include "tasks.h"

#include <dlfcn.h>
#include <stdlib.h>

#if defined(__x86_64__) && defined(__GLIBC__)

#define API __attribute__((visibility("default"), noreturn))

typedef void jump_fn(void *env, int val);

enum { J_LONGJMP, J_UNDERSCORE, J_SIG, J_CHK, J_COUNT };
static const char *const jump_names[J_COUNT] = {"longjmp", "_longjmp", "siglongjmp",
						"__longjmp_chk"};
static jump_fn *jumps[J_COUNT];

__attribute__((constructor)) static void find_jumps(void)
{
	for (int i = 0; i < J_COUNT; i++)
		jumps[i] = (jump_fn *)dlsym(RTLD_NEXT, jump_names[i]);
}

/* The stack pointer env returns to (its __jmpbuf[6], JB_RSP). */
static uint64_t jump_sp(const void *env)
{
	uint64_t v = ((const uint64_t *)env)[6], guard;
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	return ((v >> 17) | (v << 47)) ^ guard;
}

__attribute__((noreturn)) static void jump(int i, void *env, int val)
{
	struct zrt_thread *t = zl_me();
	if (t->state == ZRT_THREAD_ON) {
		/* out of a signal handler that interrupted a probe, that probe never
		   ends: zrt_unwound takes the thread back (zrt_still_busy) */
		zrt_unwound(t, jump_sp(env) - 16);
	}
	jump_fn *real = jumps[i] ? jumps[i] : jumps[J_LONGJMP];
	if (!real)
		abort(); /* no C library's longjmp: this call cannot have been made */
	real(env, val);
	__builtin_unreachable();
}

API void longjmp(void *env, int val)
{
	jump(J_LONGJMP, env, val);
}

API void _longjmp(void *env, int val)
{
	jump(J_UNDERSCORE, env, val);
}

API void siglongjmp(void *env, int val)
{
	jump(J_SIG, env, val);
}

API void __longjmp_chk(void *env, int val)
{
	jump(J_CHK, env, val);
}

#endif
