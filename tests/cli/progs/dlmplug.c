/*
 * dlmplug: an instrumented plugin (dlmhost loads it into a namespace of its
 * own).  run(n) calls its helper n times, and dlopens from inside that
 * namespace the instrumented libcli_dlmleaf.so, calls its leaf 10 times and
 * closes it.
 */
#include <dlfcn.h>

static volatile int sink;

__attribute__((noinline)) void dlmplug_helper(int i)
{
	sink += i;
}

int run(int n)
{
	sink = 0;
	for (int i = 0; i < n; i++)
		dlmplug_helper(i);
	void *leaf = dlopen("libcli_dlmleaf.so", RTLD_NOW);
	int (*fn)(int) = leaf ? (int (*)(int))dlsym(leaf, "dlmleaf_fn") : 0;
	int s = sink;
	for (int i = 0; fn && i < 10; i++)
		s += fn(i);
	if (leaf)
		dlclose(leaf);
	return fn ? s : -s;
}
