/*
 * rexec.c - a service that re-executes itself on SIGHUP (a reload):
 * calls work() every ms; prints "ready GEN" to stderr in each image
 * (generation 1, then 2), and in generation 2 ends with status 3 at a
 * line on stdin, printing the generation to stdout.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <unistd.h>

static volatile sig_atomic_t hup;
static volatile long n;

__attribute__((noinline)) long work(long x)
{
	n++;
	return x * 2;
}

static void on_hup(int sig)
{
	(void)sig;
	hup = 1;
}

int main(int argc, char **argv)
{
	int gen = argc > 1 ? atoi(argv[1]) : 1;
	signal(SIGHUP, on_hup);
	fprintf(stderr, "ready %d\n", gen);
	for (;;) {
		work(n);
		if (hup && gen == 1)
			execl("/proc/self/exe", argv[0], "2", (char *)NULL);
		fd_set in;
		FD_ZERO(&in);
		FD_SET(0, &in);
		struct timeval ms = {0, 1000};
		if (gen == 2 && select(1, &in, NULL, NULL, &ms) == 1) {
			printf("generation %d\n", gen);
			return 3;
		}
		if (gen == 1)
			usleep(1000);
	}
}
