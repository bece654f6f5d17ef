/* eventfds.c - 6 threads call work(), end and are joined; then main opens /dev/null 8 times
   and prints the numbers open() gave, then reads its own descriptor table (opendir needs one
   more): for eventfds.sh, where they must be as without zond under a small ulimit -n. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static long calls;

__attribute__((noinline)) long work(long x)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	return x * 2;
}

static void *thread(void *arg)
{
	long s = 0;
	for (int i = 0; i < 100; i++)
		s += work(i);
	return arg ? (void *)s : NULL;
}

int main(void)
{
	pthread_t t[6];
	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, thread, NULL);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	int fail = 0;
	printf("open():");
	for (int i = 0; i < 8; i++) {
		int fd = open("/dev/null", O_RDONLY);
		printf(" %d", fd);
		fail += fd < 0;
	}
	DIR *d = opendir("/proc/self/fd");
	printf("\nopendir %s\nwork calls %ld\n", d ? "ok" : "failed", calls);
	if (d)
		closedir(d);
	return fail || !d ? 3 : 0;
}
