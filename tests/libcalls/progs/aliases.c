/*
 * aliases.c - names bound to one address are counted apart: ml_add and its
 * alias ml_sum (mylib), memcpy and memmove (glibc binds both to one IFUNC
 * variant on x86-64).
 */
#include <stdio.h>
#include <string.h>

#include "mylib.h"

int main(int argc, char **argv)
{
	(void)argv;
	int s = 0;
	for (int i = 0; i < 3; i++)
		s = ml_add(s, i);
	for (int i = 0; i < 5; i++)
		s = ml_sum(s, i);
	char a[64] = "aliases", b[64] = {0};
	size_t n = strlen(a) + (size_t)argc; /* not a constant: a real call */
	for (int i = 0; i < 2; i++)
		memcpy(b, a, n);
	for (int i = 0; i < 4; i++)
		memmove(b + 1, b, n);
	printf("%d %s\n", s, b + 4);
	return 0;
}
