/*
 * host.c - a plugin host: loads la.so, calls fa 5 times, unloads it, loads
 * lb.so, calls fb 7 times, unloads it; three rounds.  Each load maps the
 * library anew (under qemu-user at a new address).  Prints its own count of
 * calls of each function.
 */
#include <dlfcn.h>
#include <stdio.h>

static long use(const char *lib, const char *name, int n, int *calls)
{
	void *h = dlopen(lib, RTLD_NOW);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, name) : NULL;
	long s = 0;
	if (!f)
		return -1;
	for (int i = 0; i < n; i++, ++*calls)
		s += f(i);
	dlclose(h);
	return s;
}

int main(void)
{
	int ca = 0, cb = 0;
	long s = 0;
	for (int r = 0; r < 3; r++)
		s += use("./la.so", "fa", 5, &ca) + use("./lb.so", "fb", 7, &cb);
	printf("fa %d\nfb %d\nsum %ld\n", ca, cb, s);
	return 0;
}
