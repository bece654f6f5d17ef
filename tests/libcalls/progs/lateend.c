/*
 * lateend: library calls a thread makes after zond noted its end (its key
 * destructor runs before the program's keys', created later): the
 * program's key destructor, and after main's pthread_exit the exit
 * handlers the last thread runs.  And a forked child's calls, made once
 * its parent has left the function that forked: under that function.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_key_t key;
static int ready[2];

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		getppid();
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

__attribute__((noinline)) static pid_t spawn(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		if (read(ready[0], &c, 1) != 1)
			_exit(2);
		calls(3);
		_exit(0);
	}
	return pid;
}

int main(void)
{
	pthread_t t;
	if (pipe(ready) != 0)
		return 1;
	atexit(at_exit);
	pthread_key_create(&key, key_gone);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	pid_t pid = spawn();
	usleep(1000);
	if (write(ready[1], "x", 1) != 1 || waitpid(pid, NULL, 0) != pid)
		return 1;
	printf("main done\n");
	fflush(stdout);
	pthread_create(&t, NULL, last, NULL);
	pthread_exit(NULL);
}
