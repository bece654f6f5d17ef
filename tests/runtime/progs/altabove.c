/*
 * altabove.c - a signal handler on a sigaltstack that lives in main's own
 * frame, above the frames it interrupts: its calls nest under the
 * interrupted function, and the interrupted frames stay open (they were
 * all closed: the handler's probe ran above them).  Stacks: main;top 2,
 * main;top;mid 13, main;top;mid;leaf 26, main;top;mid;handler 1,
 * main;top;mid;handler;hleaf 1, main;top;leaf 2.
 */
#include <signal.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void hleaf(void)
{
	sink++;
}

__attribute__((noinline)) static void handler(int sig)
{
	(void)sig;
	hleaf();
}

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) static void mid(int i)
{
	leaf(i);
	if (i == 5)
		raise(SIGUSR1);
	leaf(i + 1);
}

__attribute__((noinline)) static void top(int n)
{
	for (int i = 0; i < n; i++)
		mid(i);
	leaf(0);
}

int main(void)
{
	char altbuf[65536];
	stack_t ss = {.ss_sp = altbuf, .ss_size = sizeof altbuf};
	sigaltstack(&ss, NULL);
	struct sigaction sa = {0};
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	top(10);
	top(3);
	puts("done");
	return 0;
}
