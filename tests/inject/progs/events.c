/*
 * events.c - a program whose functions cause software events it counts
 * itself, for zond inject --event: touch() writes to N fresh pages (one
 * page fault each: anonymous memory, no huge pages), on the main thread
 * and on a worker; nap() sleeps K times (at least one context switch
 * each).  Each function reads its thread's own counts (getrusage
 * RUSAGE_THREAD) at its start and end and prints the sums:
 *     faults THREAD N          minor faults inside touch() on THREAD (main,
 *                              worker, and child: a forked child's main thread)
 *     switches-in-nap N        context switches inside nap()
 *     switches-thread N        the main thread's switches in the whole run
 *     open-fd N                the fd its open() gets after the measured calls
 *     extra-fd N cloexec C     every fd it did not open itself (zond's counters)
 *     perf-maps N              its mappings of perf_event pages (zond's, for rdpmc)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long thread_faults(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

static long thread_switches(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

__attribute__((noinline)) long touch(char *p, int pages)
{
	long before = thread_faults();
	for (int i = 0; i < pages; i++)
		p[(size_t)i * 4096] = 1;
	return thread_faults() - before;
}

/* pages fresh pages touched (a first call with 0: the code and the counts warm) */
static long touch_fresh(int pages)
{
	size_t len = (size_t)(pages ? pages : 1) * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(3);
	madvise(p, len, MADV_NOHUGEPAGE);
	return touch(p, pages);
}

__attribute__((noinline)) long nap(int times)
{
	long before = thread_switches();
	for (int i = 0; i < times; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return thread_switches() - before;
}

static void *worker(void *arg)
{
	(void)arg;
	long n = touch_fresh(0);
	n += touch_fresh(13);
	printf("faults worker %ld\n", n);
	return NULL;
}

/* Every fd but 0-2 and own, with its close-on-exec flag. */
static void list_fds(int own)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int dfd = dirfd(d);
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd <= 2 || fd == own || fd == dfd)
			continue;
		int flags = fcntl(fd, F_GETFD);
		printf("extra-fd %d cloexec %d\n", fd, (flags & FD_CLOEXEC) != 0);
	}
	closedir(d);
}

static void count_perf_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;
	while (f && fgets(line, sizeof line, f))
		n += strstr(line, "perf_event") != NULL;
	if (f)
		fclose(f);
	printf("perf-maps %d\n", n);
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	long n = touch_fresh(0);
	n += touch_fresh(5);
	n += touch_fresh(7);
	n += touch_fresh(11);
	printf("faults main %ld\n", n);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		long c = touch_fresh(0);
		c += touch_fresh(17);
		printf("faults child %ld\n", c);
		fflush(stdout);
		_exit(0);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	nap(0);
	printf("switches-in-nap %ld\n", nap(5));
	printf("switches-thread %ld\n", thread_switches());
	int fd = open("/dev/null", O_RDONLY);
	printf("open-fd %d\n", fd);
	list_fds(fd);
	count_perf_maps();
	return 0;
}
