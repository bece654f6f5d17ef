/*
 * alloc: a program with its own malloc, free, calloc and realloc (as
 * allocator-hooking code has), counting its calls.  zond's runtime must
 * never call them: the counts, before main and in it, are what the program
 * makes itself, and its functions are profiled.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned long n_malloc, n_free, n_calloc, n_realloc;
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
	n_malloc++;
	return bump(n);
}

void free(void *p)
{
	if (p)
		n_free++;
}

void *calloc(size_t a, size_t b)
{
	n_calloc++;
	void *p = bump(a * b);
	memset(p, 0, a * b);
	return p;
}

void *realloc(void *p, size_t n)
{
	n_realloc++;
	void *q = bump(n);
	if (p) {
		size_t old = ((size_t *)p)[-2];
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

static int work(int i)
{
	char *p = malloc(100 + (size_t)i);
	p[0] = (char)i;
	p = realloc(p, 300);
	int r = p[0];
	free(p);
	free(calloc(2, 8));
	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	unsigned long m0 = n_malloc, f0 = n_free, c0 = n_calloc, r0 = n_realloc;
	int s = 0;
	for (int i = 0; i < 100; i++)
		s += work(i);
	/* formatted by hand into a buffer: stdio would call malloc itself */
	char buf[256];
	int len = snprintf(buf, sizeof buf, "sum %d\nin main: malloc %lu free %lu calloc %lu realloc %lu\n",
			   s, n_malloc - m0, n_free - f0, n_calloc - c0, n_realloc - r0);
	if (argc < 2) /* not under libcalls, whose dynamic loader calls calloc itself */
		len += snprintf(buf + len, sizeof buf - (size_t)len,
				"before main: malloc %lu free %lu calloc %lu realloc %lu\n", m0, f0,
				c0, r0);
	return write(1, buf, (size_t)len) == len ? 0 : 1;
}
