/*
 * uselib.c - calls lib_add (libinject_count.so) argv[1] times and libc's
 * getpid argv[2] times, and lib_add 3 times more through add_twice, whose
 * call of it is a tail call (a jump into the library from a function of
 * the program); prints what the library counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int lib_add(int a, int b);
extern int lib_calls;

__attribute__((noinline, optimize("optimize-sibling-calls"))) int add_twice(int a, int b)
{
	return lib_add(a, b + b);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 7, m = argc > 2 ? atoi(argv[2]) : 3, s = 0;
	for (int i = 0; i < n; i++)
		s = lib_add(s, i);
	for (int i = 0; i < m; i++)
		s += getpid() > 0;
	for (int i = 0; i < 3; i++)
		s = add_twice(s, i);
	printf("sum %d lib_calls %d\n", s, lib_calls);
	return 0;
}
