/*
 * excs.cpp - C++ exceptions through measured functions, every way the
 * program's behaviour could show a wrong return: a throw caught two
 * levels up, a rethrow from a handler, nested try blocks, a destructor
 * run while unwinding that throws and catches inside itself, a catch(...)
 * that returns normally; with an argument, std::terminate from a noexcept
 * function (the program dies of SIGABRT).  Prints what it caught and its
 * counts ("count NAME N", C names).
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static unsigned long n_thrower, n_middle, n_rethrower, n_nested, n_guard, n_inner_catch,
	n_noexcept_f;
static long trace;

extern "C" __attribute__((noinline)) int thrower(int i)
{
	n_thrower++;
	if (i % 2)
		throw std::runtime_error("odd");
	return i;
}

extern "C" __attribute__((noinline)) int inner_catch(int i)
{
	n_inner_catch++;
	try {
		return thrower(i) * 2;
	} catch (const std::runtime_error &) {
		return -1;
	}
}

struct Guard {
	int v;
	__attribute__((noinline)) ~Guard()
	{
		n_guard++;
		trace += inner_catch(v); /* throws and catches while another unwinds */
	}
};

extern "C" __attribute__((noinline)) int middle(int i)
{
	n_middle++;
	Guard g{i | 1};
	return thrower(i) + 1;
}

extern "C" __attribute__((noinline)) int rethrower(int i)
{
	n_rethrower++;
	try {
		return middle(i);
	} catch (...) {
		trace += 10;
		throw;
	}
}

extern "C" __attribute__((noinline)) int nested(int i)
{
	n_nested++;
	try {
		try {
			return rethrower(i);
		} catch (const std::logic_error &) {
			return -100; /* never: a runtime_error passes this one */
		}
	} catch (const std::exception &e) {
		trace += 1000;
		return -1;
	}
}

extern "C" __attribute__((noinline)) void noexcept_f() noexcept
{
	n_noexcept_f++;
	thrower(1);
}

int main(int argc, char **)
{
	long sum = 0;
	for (int i = 0; i < 20; i++)
		sum += nested(i);
	std::printf("sum %ld trace %ld\n", sum, trace);
	std::printf("count thrower %lu\ncount middle %lu\ncount rethrower %lu\ncount nested %lu\n"
		    "count inner_catch %lu\n",
		    n_thrower, n_middle, n_rethrower, n_nested, n_inner_catch);
	std::fflush(stdout);
	if (argc > 1)
		noexcept_f(); /* std::terminate: abort */
	return 0;
}
