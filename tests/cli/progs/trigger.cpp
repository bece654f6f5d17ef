// trigger.cpp - calls for --trigger: worker(int) calls inner() 100 times,
// the library's lib_work() calls lib_inner() 50 times, then main calls
// inner() 10 times outside both.  Two overloads of twice() (a name that names
// two functions).  checked() calls inner() 3 times; built -O2, g++ splits its
// throw path off as "checked(int) [clone .cold]", not a function to trigger on.
#include <cstdio>
#include <stdexcept>

extern "C" int lib_work(int);

__attribute__((noinline)) int inner(int x)
{
	return x * 2;
}

__attribute__((noinline)) int worker(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += inner(i);
	return s;
}

__attribute__((noinline)) int twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) double twice(double x)
{
	return 2 * x;
}

__attribute__((noinline)) int checked(int x)
{
	if (x < 0)
		throw std::invalid_argument("negative");
	return inner(x);
}

int main()
{
	int c = 0;
	for (int i = 0; i < 3; i++)
		c += checked(i);
	std::printf("%d %d %g %d\n", worker(100), lib_work(50), twice(1) + twice(1.5), c);
	for (int i = 0; i < 10; i++)
		inner(i);
	return 0;
}
