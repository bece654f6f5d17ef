/*
 * ownsig.c - the program's own handler for SIGRTMAX-3 (zond's sampling
 * signal): it works 0.3 s of CPU time, raises the signal 5 times and
 * counts what its handler got: its 5 signals, none of zond's.
 */
#include <signal.h>
#include <stdio.h>

#include "spin.h"

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	(void)sig;
	got++;
}

int main(void)
{
	/* what it finds there first: the default, as without zond (not zond's handler) */
	struct sigaction was;
	spin_cpu(0.05);
	sigaction(SIGRTMAX - 3, NULL, &was);
	printf("found: %s\n", was.sa_handler == SIG_DFL ? "default" : "a handler");
	printf("signal() found: %s\n",
	       signal(SIGRTMAX - 3, on_signal) == SIG_DFL ? "default" : "a handler");
	spin_cpu(0.3);
	for (int i = 0; i < 5; i++)
		raise(SIGRTMAX - 3);
	printf("handler ran %d times\n", (int)got);
	return 0;
}
