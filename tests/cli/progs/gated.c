/*
 * gated N GOFILE [done]: calls work() N times (each a call of getppid(), a
 * library call), prints "work N", creates GOFILE.ready and waits, calling
 * nothing instrumented, until GOFILE exists; then prints "done" if asked and
 * exits 3.  While it waits its calls are exactly main's and work's, N + 1:
 * the truth a progress line is compared with.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile long calls;

static void work(void)
{
	calls++;
	getppid();
}

int main(int argc, char **argv)
{
	char ready[4096];
	struct timespec tick = {0, 10 * 1000 * 1000};
	if (argc < 3)
		return 98;
	long n = atol(argv[1]);
	for (long i = 0; i < n; i++)
		work();
	printf("work %ld\n", calls);
	fflush(stdout);
	snprintf(ready, sizeof ready, "%s.ready", argv[2]);
	close(open(ready, O_WRONLY | O_CREAT, 0600));
	while (access(argv[2], F_OK) != 0)
		nanosleep(&tick, NULL);
	if (argc > 3)
		printf("done\n");
	return 3;
}
