/* unblock.c ARG - unblocks every signal, then says it is alive (built static: not audited). */
#include <signal.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	printf("unblocked %s alive\n", argc > 1 ? argv[1] : "");
	return 0;
}
