/*
 * catch.c - C++ exceptions through code whose compiler calls no exit probe
 * while unwinding (clang): the catch clause's call of __cxa_begin_catch
 * tells which frame control came back to, and everything above it is
 * closed.  gcc's code calls the exit probes during unwinding, so this finds
 * nothing to close there.
 *
 * Only in the shared runtime: a static libzond.a would clash with a
 * statically linked C++ runtime's own definition.
 */
#define _GNU_SOURCE
#include "instrument.h"

#include <dlfcn.h>
#include <stdlib.h>

__attribute__((visibility("default"))) void *__cxa_begin_catch(void *exception)
{
	static void *(*real_begin_catch)(void *);
	struct zrt_thread *t = &zl_self;
	if (t->state == ZRT_THREAD_ON)
		zrt_unwound(t, ZL_PROBE_SP());
	if (!real_begin_catch)
		real_begin_catch = (void *(*)(void *))dlsym(RTLD_NEXT, "__cxa_begin_catch");
	if (!real_begin_catch)
		abort(); /* a catch with no C++ runtime loaded cannot happen */
	return real_begin_catch(exception);
}
