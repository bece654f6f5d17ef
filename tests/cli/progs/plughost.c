/*
 * plughost PLUGIN...: dlopens each PLUGIN (progs/plugin.c) and calls its run()
 * after calling local() 3 times; plugin code loaded after start-up, which
 * --filter/--exclude do not reach, and copies of one plugin loaded from two
 * paths (functions of one name in two objects).
 */
#include <dlfcn.h>
#include <stdio.h>

__attribute__((noinline)) static int local(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += local(i);
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW);
		int (*run)(int) = h ? (int (*)(int))dlsym(h, "run") : NULL;
		if (!run)
			return 1;
		printf("%d\n", s + run(4));
	}
	return 0;
}
