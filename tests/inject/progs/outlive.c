/*
 * outlive.c - a child that outlives the program, made as argv[1] says:
 * "orphan" (fork; the parent returns at once), "daemon" (daemon(3) in the
 * child) or "dfork" (fork, setsid, fork again; the middle process exits
 * without a measured call).  The program calls childwork(3) and returns;
 * the last child waits for the program's end (the pipe's other end closes
 * with it) and then for the file argv[3] to exist (the test makes it once
 * zond says it waits: the child is still running then, for certain), then
 * calls childwork(33) and writes "done" to the file argv[2] (its output may
 * be gone).  So the whole run makes main 1, childwork 2 and work 36 calls,
 * 33 of them after the program ended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(int i)
{
	sink += i * 3 + 1;
}

__attribute__((noinline)) void childwork(int n)
{
	for (int i = 0; i < n; i++)
		work(i);
}

/* The last child: after the program's end and the go, its own calls, then the note. */
static void outlive(int gate, const char *note, const char *go)
{
	char c;
	while (read(gate, &c, 1) > 0)
		;
	for (int i = 0; i < 3000 && access(go, F_OK) < 0; i++) /* 30 s at most */
		usleep(10000);
	childwork(33);
	FILE *f = fopen(note, "w");
	if (f) {
		fputs("done\n", f);
		fclose(f);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	int gate[2];
	if (pipe(gate) < 0)
		return 1;
	childwork(3);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(gate[1]); /* the program's end closes the last write end */
		if (!strcmp(argv[1], "daemon") && daemon(1, 1) < 0)
			_exit(1);
		if (!strcmp(argv[1], "dfork")) {
			setsid();
			pid_t again = fork();
			if (again != 0)
				_exit(again < 0);
		}
		outlive(gate[0], argv[2], argv[3]);
	}
	printf("program: childwork 1, work 3; its child goes on\n");
	return 0;
}
