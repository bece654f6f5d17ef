/* recurse.c - recurse N: r() recursing N levels deep, one call per level. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int r(int n)
{
	return n ? r(n - 1) + 1 : 0;
}

int main(int argc, char **argv)
{
	printf("%d\n", r(argc > 1 ? atoi(argv[1]) : 10));
	return 0;
}
