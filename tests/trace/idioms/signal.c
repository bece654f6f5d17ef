/* signal.c - a handler run by signal delivery and left by sigreturn. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int seen;
NOINLINE void note(int sig) { seen += sig > 0; }
NOINLINE void handler(int sig) { note(sig); }
NOINLINE int work(int x) { return x * 2 + 1; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, s = 0;
	signal(SIGUSR1, handler);
	for (int i = 0; i < n; i++) {
		kill(getpid(), SIGUSR1);
		s += work(i);
	}
	printf("%d %d\n", seen, s);
	return 0;
}
