/*
 * signal_above.c - as signal.c, but the alternate signal stack lives in
 * main's own frame, above the frames the handler interrupts: the handler's
 * calls nest under the interrupted call, whose frames stay open.
 */
#include <signal.h>
#include <stdio.h>

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
	char above[65536];
	stack_t ss = {.ss_sp = above, .ss_size = sizeof above};
	sigaltstack(&ss, NULL);
	struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_ONSTACK};
	sigaction(SIGUSR2, &sa, NULL);
	int usr2 = SIGUSR2;
	for (int i = 0; i < 50; i++)
		ml_call(raise_in, &usr2);
	printf("handled %d\n", handled);
	return 0;
}
