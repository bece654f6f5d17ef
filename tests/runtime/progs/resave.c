/*
 * resave.c - puts back every signal's action as it reads it (the idiom of
 * daemons and test harnesses that save and restore all dispositions), zond's
 * sampling handler among them, then spins: sampled time goes on.
 */
#include <signal.h>
#include <stdio.h>

__attribute__((noinline)) void spin(void)
{
	volatile long s = 0;
	for (long i = 0; i < 50000000; i++)
		s += i;
}

int main(void)
{
	for (int sig = 1; sig <= SIGRTMAX; sig++) {
		struct sigaction old;
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &old) == 0)
			sigaction(sig, &old, NULL);
	}
	spin();
	puts("ok");
	return 0;
}
