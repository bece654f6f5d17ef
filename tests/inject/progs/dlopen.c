/*
 * dlopen.c - loads the library argv[1] with dlopen after main has started
 * (none when there is no argument), runs its plugin_run(1000) twice, a
 * thread running it once more, and unloads it; prints what it counted.
 * Then loads it again and runs plugin_run(1000) twice more.  With a
 * second argument FIFO it first says "waiting PID" on stderr and waits for a
 * line from FIFO (dlopen.sh kills zond meanwhile: a test's own handshake, not
 * a sleep that a slow machine may outlast).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long (*run)(int);

static void *in_thread(void *arg)
{
	(void)arg;
	return (void *)run(1000);
}

__attribute__((noinline)) unsigned long use(const char *path, int threads)
{
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 0;
	}
	run = (unsigned long (*)(int))dlsym(h, "plugin_run");
	unsigned long *leaf_calls = (unsigned long *)dlsym(h, "plugin_leaf_calls");
	unsigned long s = run(1000) + run(1000);
	if (threads) {
		pthread_t t;
		void *r;
		pthread_create(&t, NULL, in_thread, NULL);
		pthread_join(t, &r);
		s += (unsigned long)r;
	}
	printf("count plugin_leaf %lu\n", *leaf_calls);
	dlclose(h);
	return s;
}

int main(int argc, char **argv)
{
	unsigned long s = 0;
	if (argc > 2) {
		fprintf(stderr, "waiting %d\n", (int)getpid());
		FILE *go = fopen(argv[2], "r");
		char line[8];
		if (!go || !fgets(line, sizeof line, go))
			return 3;
		fclose(go);
	}
	if (argc > 1) {
		s += use(argv[1], 1);
		s += use(argv[1], 0);
	}
	printf("sum %lu\n", s);
	return 0;
}
