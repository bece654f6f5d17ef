/*
 * unwind: C++ exceptions thrown through instrumented frames, for
 * tests/cli/unwind.sh.  Each case prints its result; "spin MS" makes the
 * unwinding that thrower's frame pays for long: this program's personality
 * routine (the C++ runtime's, wrapped) spins MS ms of the thread's CPU time
 * when the unwinding thrower's cleanup resumed reaches mid's frame, all of
 * it inside thrower's call of _Unwind_Resume, with thrower's frame still on
 * the stack (a profiler that walks the stack charges it to thrower).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>
#include <unwind.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>

#define NOI __attribute__((noinline))
#define PLAIN __attribute__((no_instrument_function))

extern "C" {
int c_cleanup(int (*f)(int), int x); /* C built with -fexceptions: a cleanup */
int c_plain(int (*f)(int), int x);   /* C built without: no landing pad */
}

static int spin_ms, spin_pending;

/* ---- one throw through two frames, unwound slowly ---- */
extern "C" NOI int thrower(int x)
{
	spin_pending = spin_ms;
	if (x >= 0)
		throw std::runtime_error("thrown");
	return x;
}

extern "C" NOI int mid(int x)
{
	return thrower(x) + 1;
}

extern "C" NOI int catcher(int x)
{
	try {
		return mid(x);
	} catch (std::exception &) {
		return -1;
	}
}

PLAIN static double cpu_ms()
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef _Unwind_Reason_Code personality_fn(int, _Unwind_Action, _Unwind_Exception_Class,
					   struct _Unwind_Exception *, struct _Unwind_Context *);

extern "C" PLAIN _Unwind_Reason_Code __gxx_personality_v0(int version, _Unwind_Action actions,
							  _Unwind_Exception_Class cls,
							  struct _Unwind_Exception *e,
							  struct _Unwind_Context *ctx)
{
	static personality_fn *real;
	if (!real)
		real = (personality_fn *)dlsym(RTLD_NEXT, "__gxx_personality_v0");
	/* the first look at mid's frame in the cleanup phase: from thrower's
	   _Unwind_Resume (the next, at -O0, is mid's own, from its cleanup) */
	if (spin_pending && (actions & _UA_CLEANUP_PHASE) &&
	    _Unwind_GetRegionStart(ctx) == (uintptr_t)&mid) {
		/* in user space mostly: a sample ending in the kernel is none */
		double end = cpu_ms() + spin_pending;
		spin_pending = 0;
		for (volatile unsigned i = 0; cpu_ms() < end; i = 0)
			while (i < 100000)
				i = i + 1;
	}
	return real(version, actions, cls, e, ctx);
}

/* ---- rethrow ---- */
extern "C" NOI void leaf_throw()
{
	throw 1;
}

extern "C" NOI void after_catch()
{
}

extern "C" NOI void rethrower()
{
	try {
		leaf_throw();
	} catch (...) {
		after_catch();
		throw;
	}
}

extern "C" NOI int outer()
{
	try {
		rethrower();
	} catch (int v) {
		after_catch();
		return v;
	}
	return 0;
}

/* ---- an exception thrown and caught inside a destructor's callee, while unwinding ---- */
extern "C" NOI void inner_throw()
{
	throw 2;
}

extern "C" NOI int inner_catch()
{
	try {
		inner_throw();
	} catch (int v) {
		return v;
	}
	return 0;
}

static int guard_result;

struct Guard {
	NOI ~Guard() { guard_result = inner_catch(); }
};

extern "C" NOI int guarded(int x)
{
	Guard g;
	return thrower(x);
}

extern "C" NOI int nest()
{
	try {
		return guarded(0);
	} catch (std::exception &) {
		after_catch();
		return guard_result;
	}
}

/* ---- an exception caught on one thread, rethrown on another ---- */
extern "C" NOI void ptr_thrower()
{
	throw std::runtime_error("across");
}

static std::exception_ptr captured;

extern "C" NOI void *capture(void *)
{
	try {
		ptr_thrower();
	} catch (...) {
		captured = std::current_exception();
	}
	return nullptr;
}

extern "C" NOI int ptr_catcher()
{
	try {
		std::rethrow_exception(captured);
	} catch (std::exception &e) {
		after_catch();
		return !strcmp(e.what(), "across");
	}
	return 0;
}

/* ---- through C frames ---- */
extern "C" NOI int c_catcher(int plain)
{
	try {
		return plain ? c_plain(thrower, 0) : c_cleanup(thrower, 0);
	} catch (std::exception &) {
		return -1;
	}
}

/* ---- std::terminate from a noexcept frame: phase 2 runs the cleanups below it ---- */
PLAIN static void terminated()
{
	std::puts("terminate");
	std::fflush(stdout);
	std::abort();
}

extern "C" NOI void noexcept_frame() noexcept
{
	mid(0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "terminate")) {
		std::set_terminate(terminated);
		noexcept_frame();
		return 0;
	}
	int n = argc > 2 && !strcmp(argv[1], "spin") ? 5 : 1;
	if (n > 1)
		spin_ms = atoi(argv[2]);
	int s = 0;
	for (int i = 0; i < n; i++)
		s += catcher(i);
	spin_ms = 0;
	std::printf("catcher %d\n", s);
	std::printf("outer %d\n", outer());
	std::printf("nest %d\n", nest());
	pthread_t t;
	pthread_create(&t, nullptr, capture, nullptr);
	pthread_join(t, nullptr);
	std::printf("ptr_catcher %d\n", ptr_catcher());
	std::printf("c_catcher %d %d\n", c_catcher(0), c_catcher(1));
	return 0;
}
