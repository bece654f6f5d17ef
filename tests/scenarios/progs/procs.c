/*
 * procs: processes made every way, chosen by argv[1]: fork, vfork + exec,
 * exec, posix_spawn.  Each image calls probe() a known number of times and
 * reports its own count; the parent waits for its child and reports last.
 */
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "scen.h"

extern char **environ;

static void calls(int n)
{
	for (int i = 0; i < n; i++)
		probe(i);
}

static int wait_child(pid_t pid)
{
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "fork";
	char *child[] = {argv[0], "child", NULL};
	if (!strcmp(how, "child")) { /* an image started by exec or spawn */
		calls(7);
		scen_report("child");
		return 6;
	}
	calls(3);
	int got = 0;
	if (!strcmp(how, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			scen_calls = 0; /* the parent's calls are the parent's */
			calls(5);
			scen_report("forked");
			exit(2);
		}
		got = wait_child(pid);
	} else if (!strcmp(how, "vfork")) {
		pid_t pid = vfork();
		if (pid == 0) {
			execv(argv[0], child);
			_exit(127);
		}
		got = wait_child(pid);
	} else if (!strcmp(how, "spawn")) {
		pid_t pid;
		got = posix_spawn(&pid, argv[0], NULL, NULL, child, environ) == 0 ? wait_child(pid)
										  : -1;
	} else if (!strcmp(how, "exec")) {
		scen_report("before exec");
		execv(argv[0], child);
		return 127;
	}
	calls(2);
	char line[64];
	int n = snprintf(line, sizeof line, "child status %d\n", got);
	if (write(1, line, (size_t)n) != n)
		return 99;
	scen_report(how);
	return 0;
}
