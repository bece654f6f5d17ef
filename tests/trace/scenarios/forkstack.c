/*
 * forkstack.c - forks from deep call chains (fork.sh): main -> deep1 ->
 * deep2 -> deep3 -> forker forks; the child calls work() (100 leaf calls)
 * and, with argv[1] = "nest", nested(), which forks a grandchild from there
 * (work: 7 leaf calls) and then calls work (3) itself; the child exits from
 * inside forker (exit), with main's frames still open.  The parent waits,
 * calls work (30) in forker and work (5) in main.  With "spawn", main also
 * starts /bin/true by vfork + execl and by posix_spawn: those children call
 * none of the program's functions before their exec.  With "thread", a second
 * thread (tmain) runs deep1 while main waits for it: the fork is made from that
 * thread, whose stacks start at tmain.
 *
 * Each process prints every call it made itself, per stack of the
 * program's own functions ("stack main;deep1;...;work;leaf 100"; a child
 * starts counting at its fork's return): the tests' truth.  Every call
 * that matters is kept a call (noipa, a result used after it).
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define NOIPA __attribute__((noipa))

#define CHAIN "deep1;deep2;deep3;forker"

static const char *root = "main"; /* the function the forking thread's stacks start at */

static struct {
	char path[200];
	int n;
} calls[16];
static int ncalls;

/* Counts n calls at root;path (root;path;name when name is given). */
static void count(const char *path, const char *name, int n)
{
	char p[200];
	if (*path)
		snprintf(p, sizeof p, name ? "%s;%s;%s" : "%s;%s", root, path, name);
	else
		snprintf(p, sizeof p, "%s", root);
	for (int i = 0; i < ncalls; i++)
		if (strcmp(calls[i].path, p) == 0) {
			calls[i].n += n;
			return;
		}
	snprintf(calls[ncalls].path, sizeof calls[ncalls].path, "%s", p);
	calls[ncalls++].n = n;
}

/* The calls this process made itself, printed before it ends. */
static void print_calls(void)
{
	for (int i = 0; i < ncalls; i++)
		printf("pid %d stack %s %d\n", (int)getpid(), calls[i].path, calls[i].n);
	fflush(stdout);
}

/* A forked child counts its own calls only. */
static void forget_calls(void)
{
	ncalls = 0;
}

NOIPA int leaf(int i)
{
	return i + 1;
}

NOIPA int work(const char *me, int n)
{
	int s = 0;
	count(me, NULL, 1);
	for (int i = 0; i < n; i++)
		s += leaf(i);
	count(me, "leaf", n);
	return s;
}

NOIPA int nested(void)
{
	count(CHAIN ";nested", NULL, 1);
	pid_t g = fork();
	if (g == 0) {
		forget_calls();
		work(CHAIN ";nested;work", 7);
		print_calls();
		_exit(0);
	}
	waitpid(g, NULL, 0);
	return work(CHAIN ";nested;work", 3) + 1;
}

NOIPA int forker(int nest)
{
	count(CHAIN, NULL, 1);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		forget_calls();
		work(CHAIN ";work", 100);
		if (nest)
			nested();
		print_calls();
		exit(0);
	}
	waitpid(pid, NULL, 0);
	return work(CHAIN ";work", 30) + 1;
}

NOIPA int deep3(int nest)
{
	count("deep1;deep2;deep3", NULL, 1);
	return forker(nest) + 1;
}

NOIPA int deep2(int nest)
{
	count("deep1;deep2", NULL, 1);
	return deep3(nest) + 1;
}

NOIPA int deep1(int nest)
{
	count("deep1", NULL, 1);
	return deep2(nest) + 1;
}

/* /bin/true by vfork + exec and by posix_spawn: children that only exec. */
NOIPA int spawn(void)
{
	count("spawn", NULL, 1);
	fflush(stdout);
	pid_t pid = vfork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	int st1 = 0, st2 = 0;
	waitpid(pid, &st1, 0);
	char *argv[] = {"true", NULL};
	if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) == 0)
		waitpid(pid, &st2, 0);
	return st1 + st2;
}

/* The second thread: the fork's chain from tmain. */
NOIPA void *tmain(void *arg)
{
	root = "tmain";
	count("", NULL, 1);
	*(int *)arg = deep1(0);
	root = "main";
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	count("", NULL, 1);
	int s = 0;
	pthread_t t;
	if (strcmp(mode, "thread") == 0) {
		if (pthread_create(&t, NULL, tmain, &s) != 0 || pthread_join(t, NULL) != 0)
			return 3;
	} else {
		s = deep1(strcmp(mode, "nest") == 0);
	}
	s += work("work", 5);
	if (strcmp(mode, "spawn") == 0 && spawn() != 0)
		return 2;
	print_calls();
	return s == 0;
}
