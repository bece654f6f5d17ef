/*
 * catch.c - C++ exceptions: where a throw starts and where its catch ends
 * the unwinding.
 *
 * The catch: code whose compiler calls no exit probe while unwinding
 * (clang) leaves the frames it unwinds open; the catch clause's call of
 * __cxa_begin_catch tells which frame control came back to, and everything
 * above it is closed.  gcc's cleanup landing pads call the exit probes
 * while unwinding, each then calling _Unwind_Resume from its own frame: that
 * frame stays open, resuming, until the next landing pad or the catch
 * (core.h zrt_exit_resuming), which closes it here.
 *
 * The throws (__cxa_throw, __cxa_rethrow, std::rethrow_exception) mark the
 * thread as throwing, so that its exit probes look for the landing pads'
 * call of _Unwind_Resume (hooks.c); the catch puts the mark back to the
 * C++ runtime's own count of exceptions thrown and not yet caught (one
 * thrown while unwinding, from a destructor, and caught there leaves the
 * first in flight).  Unwinding the C++ runtime did not start (a thread's
 * cancellation, pthread_exit) is not marked: its frames close at their
 * exit probes, as they always did.
 *
 * Only in the shared runtime: a static libzond.a would clash with a
 * statically linked C++ runtime's own definitions.
 */
#define _GNU_SOURCE
#include "instrument.h"
#include "tasks.h"

#include <dlfcn.h>
#include <stdlib.h>

#define API __attribute__((visibility("default")))

/* The C++ runtime's function named name (the next definition after ours), or NULL. */
static void *next(void **cache, const char *name)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_RELAXED);
	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, fn, __ATOMIC_RELAXED);
	}
	return fn;
}

/* The same, never NULL. */
static void *real(void **cache, const char *name)
{
	void *fn = next(cache, name);
	if (!fn)
		abort(); /* a throw or catch with no C++ runtime loaded cannot happen */
	return fn;
}

/* A throw starts on the calling thread. */
static void throwing(void)
{
	zl_me()->throwing = 1;
	if (!__atomic_load_n(&zl_unwind_resume, __ATOMIC_RELAXED)) {
		void *fn = dlsym(RTLD_DEFAULT, "_Unwind_Resume");
		__atomic_store_n(&zl_unwind_resume, (uint64_t)(uintptr_t)fn, __ATOMIC_RELAXED);
	}
}

API __attribute__((noreturn)) void __cxa_throw(void *obj, void *type, void (*dtor)(void *))
{
	static void *fn;
	throwing();
	((void (*)(void *, void *, void (*)(void *)))real(&fn, "__cxa_throw"))(obj, type, dtor);
	__builtin_unreachable();
}

API __attribute__((noreturn)) void __cxa_rethrow(void)
{
	static void *fn;
	throwing();
	((void (*)(void))real(&fn, "__cxa_rethrow"))();
	__builtin_unreachable();
}

/* std::rethrow_exception(std::exception_ptr): the argument, a class with a
   copy constructor, is passed as the address of the caller's copy */
API __attribute__((noreturn)) void _ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE(
	void *ep)
{
	static void *fn;
	throwing();
	((void (*)(void *))real(&fn, "_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE"))(
		ep);
	__builtin_unreachable();
}

/* The C++ ABI's per-thread exception state (__cxa_eh_globals). */
struct eh_globals {
	void *caught;
	unsigned int uncaught;
};

API void *__cxa_begin_catch(void *exception)
{
	static void *fn, *globals;
	struct zrt_thread *t = zl_me();
	if (t->state == ZRT_THREAD_ON)
		zrt_unwound(t, ZL_PROBE_SP());
	void *r = ((void *(*)(void *))real(&fn, "__cxa_begin_catch"))(exception);
	if (t->throwing) {
		void *get = next(&globals, "__cxa_get_globals");
		struct eh_globals *g = get ? ((struct eh_globals * (*)(void)) get)() : NULL;
		t->throwing = g && g->uncaught;
	}
	return r;
}
