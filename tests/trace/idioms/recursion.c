/* recursion.c - direct recursion (fib) and mutual recursion (even/odd). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NOINLINE int is_odd(int n);
NOINLINE int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
NOINLINE int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	printf("%d %d\n", fib(n), is_even(n * 5));
	return 0;
}
