/*
 * sigjump R: the timeout pattern.  R times, a one-shot 2 ms timer's SIGALRM
 * handler siglongjmps out of a recursion of depth 50 that calls a short
 * leaf() forever: most signals land in zond's probes, whose work the jump
 * leaves half done.  Prints its own counts: spin's calls, after's, the
 * handler's; leaf's calls are those its body counted (a call whose entry
 * probe the jump cut short is entered, not counted here: at most one a jump;
 * strtol's, leaf's own but for those cut short).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static sigjmp_buf env;
static volatile long n_leaf, n_spin, n_after, n_handler;
static volatile int stop; /* never set: the loop ends by the jump */

static const char *volatile digits = "12";

/* a library call too: zond libcalls's probes are where its signals land */
__attribute__((noinline)) static long leaf(long x)
{
	n_leaf++;
	return x * 3 + strtol(digits, NULL, 10);
}

__attribute__((noinline)) static long spin(int depth)
{
	n_spin++;
	if (depth > 0)
		return spin(depth - 1) + 1;
	long s = 0;
	while (!stop)
		s += leaf(s);
	return s;
}

__attribute__((noinline)) static void handler(int sig)
{
	(void)sig;
	n_handler++;
	siglongjmp(env, 1);
}

__attribute__((noinline)) static void after(void)
{
	n_after++;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGALRM, &sa, NULL);
	for (int r = 0; r < rounds; r++) {
		if (!sigsetjmp(env, 1)) {
			struct itimerval it = {{0, 0}, {0, 2000}};
			setitimer(ITIMER_REAL, &it, NULL);
			spin(50);
		}
		after();
	}
	printf("spin %ld after %ld handler %ld leaf %ld\n", n_spin, n_after, n_handler, n_leaf);
	return 0;
}
