/* forward.c - signals to zond passed on to the program (forward.h). */
#define _GNU_SOURCE
#include "forward.h"

#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const int forward_signals[FORWARD_N] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM,
					SIGUSR1, SIGUSR2, SIGALRM};
static const char *const forward_names[FORWARD_N] = {"SIGHUP",  "SIGINT",  "SIGQUIT", "SIGTERM",
						     "SIGUSR1", "SIGUSR2", "SIGALRM"};

static volatile pid_t forward_pid;

/* forward_hold's lines, for the next forward_stop (armed) to hold the signals with */
static const char *volatile hold_head, *volatile hold_tail, *volatile hold_again;
static volatile sig_atomic_t armed, holding, held;

/* write(2) of s whole: all a signal handler may use */
static void say(const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static const char *signal_name(int sig)
{
	for (int i = 0; i < FORWARD_N; i++)
		if (forward_signals[i] == sig)
			return forward_names[i];
	return "a signal";
}

/*
 * Dies of sig from its handler.  No core of zond's (SIGQUIT's default):
 * setrlimit is no async-signal-safe function by name, but only the system
 * call, and zond is about to end anyway.
 */
static void die_of(int sig)
{
	struct rlimit none = {0, 0};
	sigset_t set;
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig); /* pending: the handler blocks sig */
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* The program has ended: the first signal is noted, the second ends zond. */
static void hold(int sig)
{
	if (held) {
		say(hold_again);
		die_of(sig);
		return;
	}
	held = sig;
	say(hold_head);
	say(signal_name(sig));
	say(hold_tail);
}

static void pass_on(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	pid_t program = forward_pid;
	if (holding)
		hold(sig);
	else if (program > 0 && si->si_code != SI_KERNEL && si->si_pid != program)
		kill(program, sig);
}

void forward_start(struct forward *f)
{
	struct sigaction sa = {.sa_sigaction = pass_on, .sa_flags = SA_SIGINFO};
	sigemptyset(&sa.sa_mask);
	forward_pid = 0;
	holding = held = 0;
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
	if (!armed) {
		forward_restore(f);
		return;
	}
	/* the handlers stay: one flag, no moment without them */
	armed = 0;
	holding = 1;
	/* what zond's parent made it ignore (nohup's SIGHUP) it ignores again */
	for (int i = 0; i < FORWARD_N; i++)
		if (f->old[i].sa_handler == SIG_IGN)
			sigaction(forward_signals[i], &f->old[i], NULL);
}

void forward_restore(const struct forward *f)
{
	for (int i = 0; i < FORWARD_N; i++)
		sigaction(forward_signals[i], &f->old[i], NULL);
}

void forward_hold(const char *head, const char *tail, const char *again)
{
	hold_tail = tail;
	hold_again = again;
	hold_head = head;
	armed = 1;
}

int forward_held(void)
{
	return held;
}

void forward_defer(void)
{
	sigset_t set;
	sigemptyset(&set);
	for (int i = 0; i < FORWARD_N; i++)
		sigaddset(&set, forward_signals[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static void own_pipe(int sig)
{
	(void)sig; /* the write that raised it fails with EPIPE: said there, or not at all */
}

void forward_own_pipe(void)
{
	struct sigaction sa = {.sa_handler = own_pipe, .sa_flags = SA_RESTART}, old;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return; /* ignored already, as the program will find it */
	sigaction(SIGPIPE, &sa, NULL);
}
