/*
 * proctitle.c - a process title set as nginx, PostgreSQL and sendmail set
 * theirs (QA s14 V2 F7): environ's strings copied elsewhere, the area of
 * argv and environ cleared and the title written over it; then a forked
 * child makes 17 calls of cf() and 17 of getppid() (a library call).  The
 * environment's strings a runtime read at start-up are gone by then.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile long sink;

__attribute__((noinline)) void cf(int i)
{
	sink += i;
}

static void set_title(int argc, char **argv, const char *title)
{
	char *begin = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	int n = 0;
	while (environ[n])
		n++;
	char **copy = malloc((n + 1) * sizeof *copy);
	for (int i = 0; i < n; i++) {
		if (environ[i] == end)
			end = environ[i] + strlen(environ[i]) + 1;
		copy[i] = strdup(environ[i]);
	}
	copy[n] = NULL;
	environ = copy;
	memset(begin, 0, (size_t)(end - begin));
	strcpy(begin, title);
}

int main(int argc, char **argv)
{
	set_title(argc, argv, "proctitle: master process");
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 17; i++) {
			cf(i);
			sink += getppid();
		}
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "done" : "failed");
	return 0;
}
