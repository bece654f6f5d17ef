/*
 * dlmany DIR N ROUNDS: ROUNDS times, dlopen DIR/lib0.so ... DIR/lib<N-1>.so
 * one after the other (copies of one library: N distinct objects, more than
 * the runtime has module records), call its entry 3 times, dlclose it.  Each
 * object's entry is called 3 * ROUNDS times, its a_only as often.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int call_one(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		exit(1);
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, "entry");
	int sum = entry(1) + entry(2) + entry(3);
	dlclose(h);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int n = atoi(argv[2]), rounds = atoi(argv[3]);
	long sum = 0;
	char path[4096];
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			snprintf(path, sizeof path, "%s/lib%d.so", argv[1], i);
			sum += call_one(path);
		}
	printf("sum %ld entry calls %d\n", sum, 3 * n * rounds);
	return 0;
}
