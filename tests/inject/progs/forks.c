/*
 * forks.c - fork inside a measured function: the child returns from it
 * too (through its own copy of the frames) and calls work() 300000 times
 * while the parent calls it 200000 times (both at once: a count shared by
 * the two would lose updates), then ends; the parent waits for it and
 * calls work() 200 more times.  Its counts: work 100 + 300000 + 200000 +
 * 200 (the child's calls are in the run: one run, all processes, as with
 * zond record; the child a thread of its own), in_fork 1: it returns in
 * both, but was called once (the child's return from its parent's call
 * counts nothing).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long n_work;

__attribute__((noinline)) long work(long x)
{
	n_work++;
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) int in_fork(void)
{
	fflush(stdout);
	int pid = fork();
	__asm__ volatile("");
	return pid;
}

int main(void)
{
	long s = 0;
	for (int i = 0; i < 100; i++)
		s += work(i);
	int pid = in_fork();
	if (pid == 0) {
		for (int i = 0; i < 300000; i++)
			s += work(i);
		printf("child %ld\n", s);
		fflush(stdout);
		_exit(0);
	}
	for (int i = 0; i < 200000; i++)
		s += work(i);
	int status;
	waitpid(pid, &status, 0);
	for (int i = 0; i < 200; i++)
		s += work(i);
	printf("parent %ld, child status %d\n", s, status);
	printf("count work %lu\ncount in_fork 1\n", n_work + 300000);
	return 0;
}
