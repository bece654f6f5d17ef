/*
 * execenv: programs the program runs with an environment of its own (an
 * execve envp without zond's variables, execv after clearenv, posix_spawn's
 * envp, system and popen after clearenv, whose shell the C library starts)
 * are recorded too, and see their own variables.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void work(void)
{
}

static void calls(int n)
{
	for (int i = 0; i < n; i++) {
		work();
		getppid();
	}
}

static void run(const char *self, const char *how)
{
	char *argv[] = {(char *)self, (char *)how, NULL};
	fflush(stdout);
	if (!strcmp(how, "spawn")) {
		char *env[] = {"MINE=spawn", NULL};
		pid_t pid;
		if (posix_spawn(&pid, self, NULL, NULL, argv, env) == 0)
			waitpid(pid, NULL, 0);
		return;
	}
	pid_t pid = fork();
	if (pid == 0 && (!strcmp(how, "system") || !strcmp(how, "popen"))) {
		char command[4096];
		snprintf(command, sizeof command, "exec %s %s", self, how);
		clearenv();
		setenv("MINE", how, 1);
		if (!strcmp(how, "system"))
			_exit(system(command) == 0 ? 0 : 1);
		FILE *out = popen(command, "r");
		char line[256];
		while (out && fgets(line, sizeof line, out))
			fputs(line, stdout);
		fflush(stdout);
		_exit(out && pclose(out) == 0 ? 0 : 1);
	}
	if (pid == 0) {
		if (!strcmp(how, "envp")) {
			char *env[] = {"MINE=envp", NULL};
			execve(self, argv, env);
		} else {
			clearenv();
			setenv("MINE", "clearenv", 1);
			execv(self, argv);
		}
		_exit(127);
	}
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		calls(!strcmp(argv[1], "envp")	  ? 7
		      : !strcmp(argv[1], "spawn")  ? 9
		      : !strcmp(argv[1], "system") ? 11
		      : !strcmp(argv[1], "popen")  ? 13
						   : 5);
		printf("%s: MINE=%s\n", argv[1], getenv("MINE"));
		return 0;
	}
	calls(3);
	run(argv[0], "envp");
	run(argv[0], "clearenv");
	run(argv[0], "spawn");
	run(argv[0], "system");
	run(argv[0], "popen");
	return 0;
}
