/* mylib.c - the small library the libcalls tests profile: known call counts and shapes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mylib.h"

int ml_add(int a, int b)
{
	return a + b;
}

/* calls another exported function: through the PLT, so a nested call */
int ml_twice(int a)
{
	return ml_add(a, a);
}

/* seven integer arguments and two on the stack: the wrapper must keep the stack as it was */
long ml_many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

double ml_fsum(double a, double b, double c, double d, double e, double f, double g, double h,
	       double i)
{
	return a + b + c + d + e + f + g + h + i;
}

long double ml_ldouble(long double x)
{
	return x * 2;
}

struct ml_pair ml_pair(long a, long b)
{
	return (struct ml_pair){a, b};
}

struct ml_big ml_big(long a)
{
	struct ml_big r;
	for (int i = 0; i < 8; i++)
		r.v[i] = a + i;
	return r;
}

int ml_vsum(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += va_arg(ap, int);
	va_end(ap);
	return sum;
}

double ml_vfsum(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += va_arg(ap, double);
	va_end(ap);
	return sum;
}

void ml_call(void (*fn)(void *), void *arg)
{
	fn(arg);
}

int ml_compare(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* ml_add exported under a second name: one address, two functions in the profile */
int ml_sum(int a, int b) __attribute__((alias("ml_add")));
