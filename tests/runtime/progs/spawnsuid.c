/*
 * spawnsuid: runs a program that may be set-user-ID to another user (QA s14
 * V2 F3, F4; suid.sh).  "child": 11 calls of cf, exit 0.  "spawn PATH":
 * posix_spawn of PATH child; "execvp NAME": a forked child execvp's NAME
 * child (found along PATH).  Prints the child's status.
 */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile long sink;

__attribute__((noinline)) void cf(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		for (int i = 0; i < 11; i++)
			cf(i);
		return 0;
	}
	if (argc < 3)
		return 2;
	char *args[] = {argv[2], "child", NULL};
	pid_t pid;
	if (!strcmp(argv[1], "spawn")) {
		if (posix_spawn(&pid, argv[2], NULL, NULL, args, environ) != 0)
			return 1;
	} else if ((pid = fork()) == 0) {
		execvp(argv[2], args);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
