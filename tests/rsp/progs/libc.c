/*
 * libc.c - a bare-metal program that links much of picolibc (stdio,
 * strings, conversions, sorting, soft floating point), whose code the
 * RISC-V relocator test decodes and relocates against objdump.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
	int v[8] = {5, 3, 8, 1, 9, 2, 7, argc};
	char buf[128];
	qsort(v, 8, sizeof *v, cmp);
	double d = strtod(argc > 1 ? argv[1] : "2.5", NULL);
	snprintf(buf, sizeof buf, "%d %s %g %ld", v[0], strchr("abc", 'b'), sqrt(d) + sin(d),
		 strtol("42", NULL, 10));
	int x = 0;
	sscanf(buf, "%d", &x);
	printf("%s %zu %d\n", buf, strlen(buf), memcmp(buf, "1", 1) + x);
	return 0;
}
