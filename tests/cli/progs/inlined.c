/*
 * inlined.c - calls of functions GCC inlines (always_inline) and still
 * instruments (built -O2 -g -finstrument-functions): the hooks of an inlined
 * call get the call site of the physical frame, the enclosing function's
 * return address in ITS caller, so only the entry hook's own return address
 * (in the inlined body) tells where the call was made.  mid calls leaf 10
 * times from the line marked "site leaf" and outer twice from "site outer";
 * outer (inlined into mid) calls inner once a call from "site inner"; main
 * calls mid once from "site mid" and rec(3) from "site main-rec"; rec calls
 * itself from "site rec" and leaf once a call from "site rec-leaf" (the
 * physical call site of its leaf calls lies inside rec, at "site rec").
 * Prints the sum it built: 172.
 */
#include <stdio.h>

static inline __attribute__((always_inline)) long leaf(long x)
{
	return x * 2 + 1;
}

static inline __attribute__((always_inline)) long inner(long x)
{
	return x ^ 5;
}

static inline __attribute__((always_inline)) long outer(long x)
{
	long y = x + 3;
	y += inner(x); /* site inner */
	return y;
}

__attribute__((noinline)) long mid(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += leaf(i); /* site leaf */
	for (long i = 0; i < 2; i++)
		s += outer(i + n); /* site outer */
	return s;
}

__attribute__((noinline)) long rec(long n)
{
	long s = 0;
	if (n > 0)
		s = rec(n - 1); /* site rec */
	s += leaf(n); /* site rec-leaf */
	return s;
}

int main(void)
{
	volatile long n = 10;
	long r = mid(n); /* site mid */
	r += rec(3); /* site main-rec */
	printf("%ld\n", r);
	return 0;
}
