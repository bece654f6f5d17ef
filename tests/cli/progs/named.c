/*
 * named.c - a thread that names itself after it started (as programs do
 * with pthread_setname_np), then calls job().
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static void job(void)
{
	puts("job");
}

static void *run(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "renamed");
	job();
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, run, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	return 0;
}
