/*
 * first.c - built with -O2 (stripped.sh: and stripped): gcc puts main in .text.startup,
 * first in .text, so main's unwind entry (FDE) starts the section that also
 * holds the CRT's code without one.  main runs once, a2 and a1 10 times
 * (staticpie.sh: as a static-pie).
 */
#include <stdio.h>

__attribute__((noinline)) int a1(int x)
{
	return x + 1;
}

__attribute__((noinline)) int a2(int x)
{
	return a1(x) * 2;
}

int main(int argc, char **argv)
{
	int s = 0;
	(void)argv;
	for (int i = 0; i < 10; i++)
		s += a2(i + argc);
	printf("%d\n", s);
	return 0;
}
