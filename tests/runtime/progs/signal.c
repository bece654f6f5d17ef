/* A signal handler whose code is instrumented runs on top of the interrupted frame. */
#include <signal.h>
#include <stdio.h>

static volatile int handled_count;

static void handled(void)
{
	handled_count++;
}

static void on_signal(int sig)
{
	(void)sig;
	handled();
}

static void after_signal(void)
{
}

static void work(void)
{
	raise(SIGUSR1);
	after_signal();
}

int main(void)
{
	signal(SIGUSR1, on_signal);
	for (int i = 0; i < 2; i++)
		work();
	printf("handled %d\n", handled_count);
	return 0;
}
