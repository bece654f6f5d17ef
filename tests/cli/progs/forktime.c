/*
 * forktime.c - a parent and the child it forks hand N jobs back and forth
 * over two pipes: the parent's send_job(i) is before the child's got_job(i),
 * the child's send_reply(i) before the parent's got_reply(i), on any clock.
 * A timeline that draws an effect before its cause has the processes' clocks
 * anchored apart (cli forktime.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 20

static volatile int sink;

__attribute__((noinline)) void send_job(int fd, int i)
{
	if (write(fd, &i, sizeof i) != sizeof i)
		exit(2);
}

__attribute__((noinline)) void got_job(int i)
{
	sink += i;
}

__attribute__((noinline)) void send_reply(int fd, int i)
{
	if (write(fd, &i, sizeof i) != sizeof i)
		exit(2);
}

__attribute__((noinline)) void got_reply(int i)
{
	sink -= i;
}

int main(void)
{
	int jobs[2], replies[2], i;
	if (pipe(jobs) || pipe(replies))
		return 2;
	usleep(100000); /* the parent runs a while before it forks */
	pid_t child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		close(jobs[1]);
		while (read(jobs[0], &i, sizeof i) == sizeof i) {
			got_job(i);
			send_reply(replies[1], i);
		}
		_exit(0);
	}
	close(jobs[0]);
	for (int k = 0; k < N; k++) {
		send_job(jobs[1], k);
		if (read(replies[0], &i, sizeof i) != sizeof i || i != k)
			return 2;
		got_reply(i);
		usleep(5000);
	}
	close(jobs[1]);
	int status;
	waitpid(child, &status, 0);
	printf("jobs %d\n", N);
	return 0;
}
