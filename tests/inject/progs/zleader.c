/*
 * zleader.c - a process whose main thread has exited (pthread_exit) while
 * another thread runs on: it waits for a line on its stdin, then exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *waiter(void *a)
{
	(void)a;
	char line[16];
	if (!fgets(line, sizeof line, stdin))
		exit(1);
	exit(0);
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, waiter, 0);
	pthread_exit(0);
}
