/*
 * sigq.c - queued signals through zond's stops.  "sigq" calls work()
 * every 500 us, counts the SIGRTMIN+1 it handles, those without the value
 * 42 or the si_code SI_QUEUE, and prints the counts at SIGTERM; prints
 * "ready" to stderr first.  "sigq send PID ZPID" sigqueue()s SIGRTMIN+1
 * (value 42) to PID every 200 us as long as process ZPID lives and prints
 * how many it sent.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got, novalue, othercode;
static volatile long n;

__attribute__((noinline)) void work(void)
{
	n++;
}

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got++;
	if (si->si_value.sival_int != 42)
		novalue++;
	if (si->si_code != SI_QUEUE)
		othercode++;
}

static void on_term(int sig)
{
	(void)sig;
	printf("handled %d, without the value %d, another si_code %d\n", (int)got, (int)novalue,
	       (int)othercode);
	fflush(stdout);
	_exit(0);
}

static int send(pid_t pid, pid_t zond)
{
	union sigval v = {.sival_int = 42};
	long sent = 0;
	while (kill(zond, 0) == 0) {
		if (sigqueue(pid, SIGRTMIN + 1, v) == 0)
			sent++;
		usleep(200);
	}
	printf("sent %ld\n", sent);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "send") == 0)
		return send(atoi(argv[2]), atoi(argv[3]));
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	signal(SIGTERM, on_term);
	fprintf(stderr, "ready\n");
	for (;;) {
		work();
		usleep(500);
	}
}
