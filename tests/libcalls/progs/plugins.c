/*
 * plugins.c - two plugins calling the same library function (mylib's
 * ml_add) through their own PLTs, one loaded where the other was unloaded:
 * dlopen A, 100 calls, dlclose; dlopen B (the loader maps it at A's old
 * addresses), 200 calls, dlclose; dlopen A again, 300 calls.  ml_add's
 * calls are filed under the plugin that made them, 400 from A and 200 from
 * B, in every time mode (QA finding F2: with --no-time, or with dlopen not
 * seen, B's calls went to A, whose module's cached range they fell in).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

static void *loaded_at[3];

static long run(const char *lib, const char *entry, int n, int k)
{
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 0;
	}
	long (*fn)(int) = (long (*)(int))dlsym(h, entry);
	Dl_info info;
	if (dladdr((void *)fn, &info))
		loaded_at[k] = info.dli_fbase;
	long sum = fn(n);
	dlclose(h);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long sum = run(argv[1], "plug_a", 100, 0) + run(argv[2], "plug_b", 200, 1) +
		   run(argv[1], "plug_a", 300, 2);
	printf("sum %ld\nB loaded where A was: %s\n", sum,
	       loaded_at[0] == loaded_at[1] ? "yes" : "no");
	printf("ml_add calls: from plugin_a 400, from plugin_b 200\n");
	return 0;
}
