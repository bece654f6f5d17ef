/*
 * exctime.cpp - one exception thrown by thrower() and caught in catcher(),
 * then heavy() calls work() ten times: every frame still live where the
 * exception was caught (catcher, heavy, main) returns later, with its
 * time.  Prints its counts.
 */
#include <cstdio>
#include <stdexcept>

static volatile long sink;
static unsigned long n_work;

extern "C" __attribute__((noinline)) void thrower()
{
	throw std::runtime_error("x");
}

extern "C" __attribute__((noinline)) void catcher()
{
	try {
		thrower();
	} catch (const std::exception &) {
		sink++;
	}
}

extern "C" __attribute__((noinline)) void work()
{
	n_work++;
	for (long i = 0; i < 2000000; i++)
		sink += i;
}

extern "C" __attribute__((noinline)) void heavy()
{
	catcher();
	for (int i = 0; i < 10; i++)
		work();
}

int main()
{
	heavy();
	std::printf("count work %lu\n", n_work);
	return 0;
}
