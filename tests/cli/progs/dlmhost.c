/*
 * dlmhost ROUNDS: ROUNDS times, loads the instrumented plugin
 * libcli_dlmplug.so with dlmopen into a new link-map namespace (by its bare
 * name, found through this program's RUNPATH: only the program's own call
 * site finds it), calls its run(100) and closes it; before each, a dlmopen
 * of a file that does not exist, whose dlerror() it prints.  More rounds
 * than glibc has namespaces (16) need each closed namespace given back.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	long total = 0;
	for (int r = 0; r < rounds; r++) {
		void *none = dlmopen(LM_ID_NEWLM, "libcli_dlmnone.so", RTLD_NOW);
		const char *why = dlerror();
		if (r == 0)
			printf("missing: %s %s\n", none ? "loaded" : "not loaded", why ? why : "(none)");
		void *h = dlmopen(LM_ID_NEWLM, "libcli_dlmplug.so", RTLD_NOW);
		if (!h) {
			printf("round %d: %s\n", r, dlerror());
			return 1;
		}
		int (*run)(int) = (int (*)(int))dlsym(h, "run");
		total += run ? run(100) : -1;
		if (dlclose(h) != 0) {
			printf("round %d: dlclose: %s\n", r, dlerror());
			return 1;
		}
	}
	printf("rounds %d total %ld\n", rounds, total);
	return 0;
}
