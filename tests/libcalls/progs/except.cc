// except.cc - C++ exceptions thrown through profiled calls, caught by the program.
#include <cstdio>
#include <stdexcept>

int mx_throw(int n);
int mx_call(int (*fn)(int), int n);

static int thrower(int n)
{
	if (n % 3 == 0)
		throw n;
	return n;
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
		} catch (int) {
			caught++;
		}
	}
	std::printf("caught %d sum %d\n", caught, sum);
	return 0;
}
