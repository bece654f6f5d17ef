/* forward.c - signals to zond passed on to the program (forward.h). */
#define _GNU_SOURCE
#include "forward.h"

#include <stddef.h>

const int forward_signals[FORWARD_N] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM,
					SIGUSR1, SIGUSR2, SIGALRM};

static volatile pid_t forward_pid;

static void pass_on(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	pid_t program = forward_pid;
	if (program > 0 && si->si_code != SI_KERNEL && si->si_pid != program)
		kill(program, sig);
}

void forward_start(struct forward *f)
{
	struct sigaction sa = {.sa_sigaction = pass_on, .sa_flags = SA_SIGINFO};
	sigemptyset(&sa.sa_mask);
	forward_pid = 0;
	for (int i = 0; i < FORWARD_N; i++) {
		/*
		 * Even one zond's parent ignores: the program gets the parent's
		 * disposition (forward_restore), and may take the signal with
		 * a handler of its own, as it would sent to it directly.
		 */
		sigaction(forward_signals[i], NULL, &f->old[i]);
		sigaction(forward_signals[i], &sa, NULL);
	}
}

void forward_to(pid_t program)
{
	forward_pid = program;
}

void forward_stop(const struct forward *f)
{
	forward_pid = 0;
	forward_restore(f);
}

void forward_restore(const struct forward *f)
{
	for (int i = 0; i < FORWARD_N; i++)
		sigaction(forward_signals[i], &f->old[i], NULL);
}
