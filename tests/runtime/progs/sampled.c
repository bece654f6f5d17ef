/*
 * Sampled time: hot spins 200 ms of CPU time, cold 20 ms, two threads 20 ms
 * each in worker.  The program profiles itself with SIGPROF meanwhile
 * (setitimer(ITIMER_PROF)), which zond must leave alone.  With the argument
 * "take" it then installs a handler of its own for zond's sampling signal
 * (SIGRTMAX-3) and raises it: its handler must run.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "spin.h"

static volatile sig_atomic_t prof_signals, own_signals;

static void hot(void)
{
	spin(0.2);
}

static void cold(void)
{
	spin(0.02);
}

static void *worker(void *arg)
{
	(void)arg;
	spin(0.02);
	return NULL;
}

static void on_prof(int sig)
{
	(void)sig;
	prof_signals++;
}

static void on_own(int sig)
{
	(void)sig;
	own_signals++;
}

int main(int argc, char **argv)
{
	signal(SIGPROF, on_prof);
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_PROF, &it, NULL);
	hot();
	cold();
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	printf("own SIGPROF handler ran: %s\n", prof_signals > 0 ? "yes" : "no");
	if (argc > 1 && strcmp(argv[1], "take") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_own;
		sigaction(SIGRTMAX - 3, &sa, NULL);
		raise(SIGRTMAX - 3);
		cold();
		printf("own SIGRTMAX-3 handler ran: %d\n", (int)own_signals);
	}
	return 0;
}
