/*
 * fdlimit.c N: N threads alive (each has made calls, so each is sampled)
 * while main opens /dev/null until it runs out of fds; prints how many it
 * got and its soft file limit.  Under zond the figures must be those of
 * the program alone: the samplers' fds take none of the program's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

static pthread_barrier_t started, done;

static int open_all(void)
{
	int n = 0;
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	return n;
}

static void *idle(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[256];
	if (n < 0 || n > 256)
		return 2;
	pthread_barrier_init(&started, NULL, (unsigned)n + 1);
	pthread_barrier_init(&done, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, idle, NULL);
	pthread_barrier_wait(&started);
	int got = open_all();
	pthread_barrier_wait(&done);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	struct rlimit lim;
	getrlimit(RLIMIT_NOFILE, &lim);
	printf("opened %d fds with %d threads alive; soft limit %llu\n", got, n,
	       (unsigned long long)lim.rlim_cur);
	return 0;
}
