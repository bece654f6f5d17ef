/*
 * waiter MODE PIDFILE: calls work() 50 times, writes its pid to PIDFILE
 * (whole, by rename) and then, by MODE:
 *   wait   waits for signals forever (default actions)
 *   catch  catches SIGTERM: calls work() 7 more times, says so, exits 7
 *   catchint  the same with SIGINT (a program's own graceful stop)
 *   abort  dies of SIGABRT
 * The program counts its own calls of work(): the truth a profile is
 * compared with.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int calls;
static volatile sig_atomic_t caught;

static void work(void)
{
	calls++;
}

static void on_term(int sig)
{
	(void)sig;
	caught = 1;
}

static void write_pid(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 || rename(tmp, path))
		exit(99);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 98;
	if (!strcmp(argv[1], "catch"))
		signal(SIGTERM, on_term);
	if (!strcmp(argv[1], "catchint"))
		signal(SIGINT, on_term);
	for (int i = 0; i < 50; i++)
		work();
	printf("work %d\n", calls);
	fflush(stdout);
	if (!strcmp(argv[1], "abort"))
		abort();
	write_pid(argv[2]);
	while (!caught)
		pause();
	for (int i = 0; i < 7; i++)
		work();
	printf("caught, work %d\n", calls);
	return 7;
}
