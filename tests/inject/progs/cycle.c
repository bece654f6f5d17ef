/*
 * cycle.c - a control loop for zond inject's cyclic scenario: each pass
 * calls tick() (the safe point) once, then one() once, two() twice,
 * three() three times and four() four times; it counts its passes itself.
 * argv[1]: passes to make (0: until SIGTERM); argv[2]: "never" makes
 * rare() the only function of a pass besides the four (tick() is never
 * called).  It prints "ready PID" to stderr first and its count of
 * passes at the end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static volatile unsigned long sink;

__attribute__((noinline)) void tick(void)
{
	sink++;
}

__attribute__((noinline)) void one(void)
{
	sink += 1;
}

__attribute__((noinline)) void two(void)
{
	sink += 2;
}

__attribute__((noinline)) void three(void)
{
	sink += 3;
}

__attribute__((noinline)) void four(void)
{
	sink += 4;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 0, done = 0;
	int with_tick = !(argc > 2 && strcmp(argv[2], "never") == 0);
	signal(SIGTERM, on_term);
	fprintf(stderr, "ready %d\n", (int)getpid());
	while (!stop && (passes == 0 || done < passes)) {
		if (with_tick)
			tick();
		one();
		for (int i = 0; i < 2; i++)
			two();
		for (int i = 0; i < 3; i++)
			three();
		for (int i = 0; i < 4; i++)
			four();
		done++;
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "passes %ld\n", done);
	return 0;
}
