/*
 * mem.c - the shared libraries' own memcpy and memset (the core's copies,
 * the compiler's own calls): never the program's, which may count its calls
 * or be instrumented, and never libc's, which may use vector registers (the
 * audit probes keep only the general ones).  Hidden: they stay inside
 * libzond.so and libzond-audit.so.  Not in libzond.a, where they would
 * replace the program's own.  The loops stay loops (built with
 * -fno-tree-loop-distribute-patterns).
 */
#include <stddef.h>
#include <stdint.h>

__attribute__((visibility("hidden"))) void *memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	while (n--)
		*d++ = *s++;
	return dst;
}

__attribute__((visibility("hidden"))) void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}
