/* signal.c - signal handlers that call profiled functions, on the thread's stack and on an
 * alternate one, while the program is inside profiled calls. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include "mylib.h"

static volatile int handled;

static void handler(int sig)
{
	(void)sig;
	handled += ml_add(1, 0);
}

static void raise_in(void *arg)
{
	raise(*(int *)arg);
	ml_add(0, 0);
}

int main(void)
{
	struct sigaction sa = {.sa_handler = handler};
	sigaction(SIGUSR1, &sa, NULL);
	stack_t ss = {.ss_sp = malloc(65536), .ss_size = 65536};
	sigaltstack(&ss, NULL);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
	int usr1 = SIGUSR1, usr2 = SIGUSR2;
	for (int i = 0; i < 50; i++) {
		ml_call(raise_in, &usr1);
		ml_call(raise_in, &usr2);
	}
	printf("handled %d\n", handled);
	return 0;
}
