/*
 * reuse: dlopen liba, call its entry 100 times, dlclose it; dlopen libb,
 * which the loader maps at the same addresses, call its entry 200 times.
 * Functions are told apart by the object they were loaded with, not by
 * address: liba's entry 100 calls (a_only 100), libb's entry 200 (b_one 200).
 * argv[3] repeats the two loads (a plugin reloaded in a loop, more often
 * than the runtime has module records): each object keeps one record.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *entry_of[2];

static int run(const char *lib, int n, int which)
{
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 0;
	}
	int (*entry)(int) = (int (*)(int))dlsym(h, "entry");
	entry_of[which] = (void *)entry;
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += entry(i);
	dlclose(h);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int rounds = argc > 3 ? atoi(argv[3]) : 1, sum = 0;
	for (int i = 0; i < rounds; i++)
		sum += run(argv[1], 100, 0) + run(argv[2], 200, 1);
	printf("sum %d\nentry of liba, of libb at the same address: %s\n", sum,
	       entry_of[0] == entry_of[1] ? "yes" : "no");
	printf("calls: liba entry %d a_only %d, libb entry %d b_one %d\n", 100 * rounds,
	       100 * rounds, 200 * rounds, 200 * rounds);
	return 0;
}
