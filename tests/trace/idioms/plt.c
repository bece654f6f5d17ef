/* plt.c - a dynamic program: calls into libc through PLT stubs, and libc calls back.
 * gprof does not see main's entry from the unprofiled libc: expected counts below.
 * expect: main=1 measure=20
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

NOINLINE size_t measure(const char *s) { return strlen(s); }
NOINLINE int compare(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, v[64];
	size_t total = 0;
	for (int i = 0; i < n && i < 64; i++) {
		v[i] = (i * 7919) % 61;
		total += measure(argv[0]);
	}
	qsort(v, (size_t)(n < 64 ? n : 64), sizeof v[0], compare); /* libc calls back */
	printf("%zu %d\n", total, v[0]);
	return 0;
}
