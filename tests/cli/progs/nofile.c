/*
 * nofile.c - a program at its descriptor limit (QA s14 V2 F11): its soft
 * RLIMIT_NOFILE set to 3 with fds 0-2 open (the hard limit leaves room),
 * then a forked child makes 70 calls of f and 70 of getppid (a library call).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void f(int i)
{
	sink += i;
}

int main(void)
{
	struct rlimit limit;
	getrlimit(RLIMIT_NOFILE, &limit);
	limit.rlim_cur = 3;
	if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
		return 2;
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 70; i++) {
			f(i);
			sink += getppid();
		}
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	getrlimit(RLIMIT_NOFILE, &limit);
	printf("child %d, soft limit %ld\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       (long)limit.rlim_cur);
	return 0;
}
