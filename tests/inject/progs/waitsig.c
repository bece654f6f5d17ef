/*
 * waitsig.c - a program that waits for a signal: it prints "main", then
 * waits up to 20 s (a second at a time) and prints "end" and exits 0 if
 * none came.  Sent SIGTERM, SIGUSR1 or SIGINT at any moment of its life
 * (its default dispositions), it dies of it.  With argument "handle" it
 * takes SIGUSR1 with a handler that prints who sent it (si_code) and exits
 * 7; inject_startsig sends it while zond inject holds the program at its
 * start, before main.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	printf("handled SIGUSR1 %s\n", si->si_code == SI_USER ? "SI_USER" : "other");
	fflush(stdout);
	_exit(7);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "handle") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_usr1;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
	}
	printf("main\n");
	fflush(stdout);
	for (int i = 0; i < 20; i++)
		sleep(1);
	printf("end\n");
	return 0;
}
