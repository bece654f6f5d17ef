/*
 * threadend.c - a thread that ends inside a profiled call (pthread_exit from
 * ml_call's callback), then a long sleep of the main thread: the open call
 * ends with its thread (its end time, noted by the key destructor), not with
 * the process (threadend.sh).
 */
#include <pthread.h>
#include <unistd.h>

#include "mylib.h"

static void leave(void *arg)
{
	(void)arg;
	pthread_exit(NULL);
}

static void *exiter(void *arg)
{
	ml_call(leave, arg);
	return arg; /* not reached */
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, exiter, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	usleep(400000);
	return 0;
}
