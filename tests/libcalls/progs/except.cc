// except.cc - C++ exceptions thrown through profiled calls, caught by the program.
#include <cstdio>
#include <stdexcept>

extern "C" int ml_add(int a, int b);
int mx_throw(int n);
int mx_call(int (*fn)(int), int n);

static int thrower(int n)
{
	if (n % 3 == 0)
		throw ml_add(n, 1);
	return n;
}

// through two profiled calls at once: mx_call -> nested -> mx_throw
static int nested(int n)
{
	return mx_throw(n);
}

int main()
{
	int caught = 0, sum = 0;
	for (int i = 0; i < 10; i++) {
		try {
			sum += mx_throw(i);
		} catch (const std::runtime_error &) {
			caught++;
		}
		try {
			sum += mx_call(thrower, i);
		} catch (int v) {
			caught += v;
		}
		try {
			sum += mx_call(nested, i);
		} catch (const std::exception &e) {
			caught += e.what()[0] == 'o';
		}
	}
	// after the throws, calls from main are roots again
	sum += ml_add(caught, 0);
	std::printf("caught %d sum %d\n", caught, sum);
	return 0;
}
