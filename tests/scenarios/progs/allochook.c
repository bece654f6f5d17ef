/*
 * allochook: the program's own malloc family (allocator-hooking code),
 * forwarding to a bump allocator and counting its own calls, which must be
 * what the program makes (none made by zond), next to the probe() count.
 * With "all" it also prints the calls made before main (none: under zond
 * record; `zond libcalls` has the dynamic loader's own calloc, see
 * doc/libcalls.md).
 */
#include <stddef.h>
#include <sys/mman.h>

#include "scen.h"

static unsigned long allocs, frees;
static char *arena, *top;

static void *bump(size_t n)
{
	if (!arena) {
		arena = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		top = arena;
	}
	size_t *p = (size_t *)top;
	top += ((n + 15) & ~(size_t)15) + 16;
	p[0] = n;
	return p + 2;
}

void *malloc(size_t n)
{
	allocs++;
	return bump(n);
}

void free(void *p)
{
	frees += p != NULL;
}

void *calloc(size_t a, size_t b)
{
	allocs++;
	return memset(bump(a * b), 0, a * b);
}

void *realloc(void *p, size_t n)
{
	allocs++;
	void *q = bump(n);
	if (p)
		memcpy(q, p, ((size_t *)p)[-2] < n ? ((size_t *)p)[-2] : n);
	return q;
}

int main(int argc, char **argv)
{
	unsigned long a0 = allocs, f0 = frees;
	for (int i = 0; i < 50; i++) {
		char *p = malloc(64);
		p[0] = (char)probe(i);
		free(realloc(p, 128));
	}
	/* formatted into a buffer: stdio would call malloc itself */
	char line[96];
	int n = snprintf(line, sizeof line, "allocations %lu frees %lu in main\n", allocs - a0,
			 frees - f0);
	if (argc > 1 && !strcmp(argv[1], "all"))
		n += snprintf(line + n, sizeof line - (size_t)n,
			      "allocations %lu frees %lu before main\n", a0, f0);
	if (write(1, line, (size_t)n) != n)
		return 99;
	scen_report("allochook");
	return 0;
}
