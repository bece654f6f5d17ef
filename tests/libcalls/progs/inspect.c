/* inspect.c - functions that look at their caller (backtrace, dladdr) work and are counted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>

#include "mylib.h"

static int found_main;

static void trace(void *arg)
{
	(void)arg;
	void *frames[32];
	int n = backtrace(frames, 32);
	/* the backtrace passes through the profiled ml_call back to main */
	for (int i = 0; i < n; i++) {
		Dl_info info;
		if (dladdr(frames[i], &info) && info.dli_sname && !strcmp(info.dli_sname, "main"))
			found_main++;
	}
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		ml_call(trace, NULL);
	printf("main found %d\n", found_main);
	return 0;
}
