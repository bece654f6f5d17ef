/*
 * backtrace: prints its own stack (glibc's backtrace) from a qsort
 * comparator, a library call's callback, each frame as its function's name
 * (or ?) and module's base name, no addresses: once into a buffer with room
 * for all, once into one of 3 entries.  Under zond libcalls it must print
 * the same: no frame of zond's audit library between qsort and main.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int done;

static void show(const char *what, int room)
{
	void *frames[64];
	int n = backtrace(frames, room);
	printf("%s: %d frames\n", what, n);
	for (int i = 0; i < n; i++) {
		Dl_info info;
		const char *name = "?", *module = "?";
		if (dladdr(frames[i], &info)) {
			name = info.dli_sname ? info.dli_sname : "?";
			module = info.dli_fname ? info.dli_fname : "?";
			const char *slash = strrchr(module, '/');
			module = slash ? slash + 1 : module;
		}
		printf("%d %s %s\n", i, name, module);
	}
}

static int cmp(const void *a, const void *b)
{
	if (!done) {
		done = 1;
		show("from qsort's callback", 64);
		show("3 entries", 3);
	}
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	int v[] = {3, 1, 2};
	qsort(v, 3, sizeof v[0], cmp);
	printf("sorted %d%d%d\n", v[0], v[1], v[2]);
	return 0;
}
