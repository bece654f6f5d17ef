/*
 * threads: 300 threads that come and go, at most three alive with main,
 * thread k calling probe() k % 5 + 1 times; the count is kept per thread
 * and added up in main after each join.
 */
#include <pthread.h>

#include "scen.h"

static void *run(void *arg)
{
	unsigned long k = (unsigned long)arg;
	for (unsigned long i = 0; i < k % 5 + 1; i++)
		scen_probe((int)i);
	return (void *)(k % 5 + 1);
}

int main(void)
{
	for (unsigned long k = 0; k < 300; k += 3) {
		pthread_t t[3];
		for (unsigned long i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, run, (void *)(k + i));
		for (int i = 0; i < 3; i++) {
			void *n;
			pthread_join(t[i], &n);
			scen_calls += (unsigned long)n;
		}
	}
	scen_report("threads");
	return 0;
}
