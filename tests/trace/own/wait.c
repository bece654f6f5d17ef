/*
 * wait.c - prints "ready" and waits for a signal (SIGTERM's default action
 * ends it); "not killed" and exit 7 if pause() ever returns.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("ready\n");
	fflush(stdout);
	pause();
	printf("not killed\n");
	return 7;
}
