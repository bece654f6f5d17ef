/*
 * shortthr N: N threads, two at a time, each burning about a third of a
 * millisecond of CPU in burn(), then burn() in main for as long as 20 of
 * them.  Prints the CPU time of every burn() in microseconds
 * (CLOCK_THREAD_CPUTIME_ID: the truth for sampled time).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double burnt_us;
static volatile long sink;

static double cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

__attribute__((noinline)) static void burn(long k)
{
	for (long i = 0; i < k; i++)
		sink += i ^ (sink >> 1);
}

static void timed_burn(long k)
{
	double t0 = cpu_us();
	burn(k);
	double d = cpu_us() - t0;
	pthread_mutex_lock(&lock);
	burnt_us += d;
	pthread_mutex_unlock(&lock);
}

static void *task(void *arg)
{
	timed_burn(300000);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400;
	for (int i = 0; i < n; i += 2) {
		pthread_t a, b;
		if (pthread_create(&a, NULL, task, NULL) || pthread_create(&b, NULL, task, NULL) ||
		    pthread_join(a, NULL) || pthread_join(b, NULL))
			return 1;
	}
	timed_burn(300000 * 20);
	printf("%.0f\n", burnt_us);
	return 0;
}
