// trigger.cpp - calls for --trigger: worker(int) calls inner() 100 times,
// the library's lib_work() calls lib_inner() 50 times, then main calls
// inner() 10 times outside both.  Two overloads of twice() (a name that names
// two functions).
#include <cstdio>

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

int main()
{
	std::printf("%d %d %g\n", worker(100), lib_work(50), twice(1) + twice(1.5));
	for (int i = 0; i < 10; i++)
		inner(i);
	return 0;
}
