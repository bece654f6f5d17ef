/*
 * allochook: the program's own malloc family (allocator-hooking code),
 * forwarding to a bump allocator, and its own open and getenv (as
 * interposing libraries have), counting their calls, which must be what the
 * program makes (none made by zond), next to the probe() count.
 * With "all" it also prints the calls made before main (none: under zond
 * record; `zond libcalls` has the dynamic loader's own calloc, see
 * doc/libcalls.md).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "scen.h"

static unsigned long allocs, frees, others;
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

int open(const char *path, int flags, ...)
{
	others++;
	va_list ap;
	va_start(ap, flags);
	int mode = flags & O_CREAT ? va_arg(ap, int) : 0;
	va_end(ap);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

extern char **environ;

char *getenv(const char *name)
{
	others++;
	size_t n = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long a0 = allocs, f0 = frees, o0 = others;
	int fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 50; i++) {
		char *p = malloc(64);
		p[0] = (char)probe(i);
		free(realloc(p, 128));
	}
	/* formatted into a buffer: stdio would call malloc itself */
	char line[160];
	int n = snprintf(line, sizeof line, "allocations %lu frees %lu others %lu in main\n",
			 allocs - a0, frees - f0, others - o0);
	if (argc > 1 && !strcmp(argv[1], "all"))
		n += snprintf(line + n, sizeof line - (size_t)n,
			      "allocations %lu frees %lu others %lu before main\n", a0, f0, o0);
	if (write(1, line, (size_t)n) != n)
		return 99;
	scen_report("allochook");
	return 0;
}
