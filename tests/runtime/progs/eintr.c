/*
 * eintr.c - sleeps, selects, polls and timed semaphore waits between
 * stretches of CPU work, counting those that fail with EINTR: none without
 * zond, and none under zond's sampler, whose signal must never be pending
 * while the thread is in a system call (signal(7): these are never
 * restarted).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/select.h>
#include <time.h>

static volatile unsigned long sink;

static void burn(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned long)i * i;
}

int main(void)
{
	int failed = 0;
	sem_t s;
	sem_init(&s, 0, 0);
	for (int k = 0; k < 3000; k++) {
		burn(20000);
		struct timespec ts = {0, 20000};
		failed += nanosleep(&ts, NULL) < 0 && errno == EINTR;
		burn(20000);
		failed += poll(NULL, 0, 0) < 0 && errno == EINTR;
		struct timeval tv = {0, 20};
		failed += select(0, NULL, NULL, NULL, &tv) < 0 && errno == EINTR;
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_nsec += 20000;
		if (dl.tv_nsec >= 1000000000) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000;
		}
		failed += sem_timedwait(&s, &dl) < 0 && errno == EINTR;
	}
	printf("interrupted %d\n", failed);
	return 0;
}
