// mylibxx.cc - a C++ library for the libcalls tests: exceptions through profiled frames.
#include <stdexcept>

extern "C" int ml_add(int a, int b);

int mx_throw(int n)
{
	if (n % 2)
		throw std::runtime_error("odd");
	return ml_add(n, 0);
}

int mx_call(int (*fn)(int), int n)
{
	return fn(n) + 1;
}
