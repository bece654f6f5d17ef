/* dlopen.c - dlopen, dlsym (function pointers stay equal), dlclose, and reopening. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argc;
	int sum = 0, equal = 1;
	for (int round = 0; round < 3; round++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		if (!h) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
		int (*twice)(int) = (int (*)(int))dlsym(h, "ml_twice");
		int (*add)(int, int) = (int (*)(int, int))dlsym(h, "ml_add");
		for (int i = 0; i < 10; i++)
			sum += twice(i) + add(i, 1);
		/* the same function named twice gives the same pointer */
		equal &= dlsym(h, "ml_add") == (void *)add;
		dlclose(h);
	}
	printf("sum %d equal %d\n", sum, equal);
	return 0;
}
