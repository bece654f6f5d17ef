/*
 * callers.c - code that looks at its caller's address or walks its stack,
 * as a C program does (QA U F1, F5): glibc's dlsym(RTLD_NEXT) finds the
 * object after its caller's from its return address; backtrace() loads
 * libgcc_s.so.1 with dlopen the first time and walks the stack through
 * every frame.  Prints what it gets: the same under zond inject as without.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>

__attribute__((noinline)) void show(void)
{
	void *b[32];
	int n = backtrace(b, 32);
	printf("backtrace: %d frames:", n);
	for (int i = 0; i < n; i++) {
		Dl_info d;
		printf(" %s", dladdr(b[i], &d) && d.dli_sname ? d.dli_sname : "?");
	}
	printf("\n");
}

__attribute__((noinline)) void mid(int k)
{
	show();
	if (k)
		mid(k - 1);
	__asm__ volatile("");
}

__attribute__((noinline)) void top(void)
{
	mid(1);
	__asm__ volatile("");
}

int main(void)
{
	typedef int (*puts_fn)(const char *);
	puts_fn next = (puts_fn)dlsym(RTLD_NEXT, "puts");
	if (!next) {
		printf("dlsym(RTLD_NEXT) failed: %s\n", dlerror());
		return 4;
	}
	next("dlsym(RTLD_NEXT): puts found");
	top();
	top();
	return 0;
}
