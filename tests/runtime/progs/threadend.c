/*
 * threadend: calls a thread still makes after zond noted its end (zond's
 * key destructor runs before the program's keys', created later) are
 * recorded: the program's key destructor, and with "pexit", after main's
 * pthread_exit, the exit handlers and destructors the last thread runs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_key_t key;

static void leaf(void)
{
}

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		leaf();
}

static void key_gone(void *value)
{
	(void)value;
	calls(13);
}

static void at_exit(void)
{
	calls(7);
}

__attribute__((destructor)) static void at_unload(void)
{
	calls(5);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setspecific(key, &key);
	calls(2);
	return NULL;
}

static void *last(void *arg)
{
	(void)arg;
	calls(29);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	atexit(at_exit);
	pthread_key_create(&key, key_gone);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	calls(31);
	printf("main done\n");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "pexit")) {
		pthread_create(&t, NULL, last, NULL);
		pthread_exit(NULL);
	}
	return 0;
}
