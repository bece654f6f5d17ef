/*
 * throws.cpp - C++ exceptions through measured functions: thrower() throws
 * through middle() to catcher(), which catches; some calls do not throw.
 * The program counts its calls ("count NAME N", C names) and prints what it
 * caught.
 */
#include <cstdio>
#include <stdexcept>

static unsigned long n_thrower, n_middle, n_catcher;

extern "C" __attribute__((noinline)) int thrower(int i)
{
	n_thrower++;
	if (i % 3 == 0)
		throw std::runtime_error("boom");
	return i;
}

extern "C" __attribute__((noinline)) int middle(int i)
{
	n_middle++;
	int r = thrower(i) + 1;
	__asm__ volatile("" : "+r"(r));
	return r;
}

extern "C" __attribute__((noinline)) int catcher(int i)
{
	n_catcher++;
	try {
		return middle(i);
	} catch (const std::exception &e) {
		return -1;
	}
}

int main()
{
	long sum = 0, caught = 0;
	for (int i = 0; i < 30; i++) {
		int r = catcher(i);
		if (r < 0)
			caught++;
		else
			sum += r;
	}
	std::printf("sum %ld caught %ld\n", sum, caught);
	std::printf("count thrower %lu\ncount middle %lu\ncount catcher %lu\n", n_thrower, n_middle,
		    n_catcher);
	return 0;
}
