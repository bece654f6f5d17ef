/*
 * execname.c - names of processes and threads (QA s13 T F1).  With no
 * argument: renames its main thread with prctl(PR_SET_NAME) after its first
 * call, and a worker with pthread_setname_np.  With a path: forks a child
 * that makes one call, then execs that path with "child" as argument (this
 * program, whose image then calls child_work()).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int before_exec(int x)
{
	return x * 3;
}

__attribute__((noinline)) int child_work(int x)
{
	return x + 1;
}

__attribute__((noinline)) int f(int x)
{
	return x * 5;
}

static void *worker(void *a)
{
	f(1);
	pthread_setname_np(pthread_self(), "worker7");
	f(2);
	return a;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child_work(4) == 5 ? 0 : 1;
	if (argc > 1) {
		pid_t p = fork();
		if (p == 0) {
			before_exec(1);
			execl(argv[1], "child", "child", (char *)0);
			_exit(127);
		}
		int st;
		return waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	f(0);
	prctl(PR_SET_NAME, "mainrenamed");
	pthread_t t;
	if (pthread_create(&t, 0, worker, 0) != 0 || pthread_join(t, 0) != 0)
		return 1;
	f(3);
	return 0;
}
