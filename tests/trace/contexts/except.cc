/*
 * except.cc - C++ exceptions unwinding through calling contexts: thrower()
 * throws on one call in three through mid(), whose local object's
 * destructor calls guard_done() whether mid returns or is unwound, to
 * catcher(), whose handler calls after().  The unwinder reaches each
 * frame's landing pad by a jump, not a return: the frames above it must be
 * closed there, or guard_done and after would show under frames that were
 * gone.  Stacks as for contexts.c ("expect: THREAD PATH CALLS"):
 *
 * expect: 0 main 1
 * expect: 0 main;catcher 9
 * expect: 0 main;catcher;mid 9
 * expect: 0 main;catcher;mid;thrower 9
 * expect: 0 main;catcher;mid;guard_done 9
 * expect: 0 main;catcher;after 3
 */
#include <cstdio>

#define NOINLINE __attribute__((noinline))

extern "C" {
static volatile int done;
NOINLINE void guard_done(void) { done = done + 1; }
NOINLINE int after(int e) { return e + 2; }
NOINLINE int thrower(int i)
{
	if (i % 3 == 0)
		throw i;
	return i;
}
}

struct guard {
	~guard() { guard_done(); }
};

extern "C" {
NOINLINE int mid(int i)
{
	guard g;
	return thrower(i) + 1;
}

NOINLINE int catcher(int i)
{
	try {
		return mid(i);
	} catch (int e) {
		return after(e);
	}
}
}

int main()
{
	int s = 0;
	for (int i = 0; i < 9; i++)
		s += catcher(i);
	std::printf("%d %d\n", s, done);
	return 0;
}
