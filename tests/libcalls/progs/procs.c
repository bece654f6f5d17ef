/* procs.c - fork, vfork + exec, posix_spawn and exec: every process profiled with its own data. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mylib.h"

extern char **environ;

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		ml_add(i, i);
}

int main(int argc, char **argv)
{
	if (argc > 1) { /* the exec'ed or spawned image */
		calls(atoi(argv[1]));
		return 0;
	}
	calls(1);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		calls(10);
		exit(0);
	}
	waitpid(pid, NULL, 0);
	char arg[] = "100";
	char *args[] = {argv[0], arg, NULL};
	pid = vfork();
	if (pid == 0) {
		execv(argv[0], args);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	char arg2[] = "1000";
	char *args2[] = {argv[0], arg2, NULL};
	posix_spawn(&pid, argv[0], NULL, NULL, args2, environ);
	waitpid(pid, NULL, 0);
	calls(2);
	char arg3[] = "10000";
	char *args3[] = {argv[0], arg3, NULL};
	puts("exec");
	fflush(stdout);
	execv(argv[0], args3);
	return 1;
}
