/*
 * signals: calls made from signal handlers, chosen by argv[1]: on the
 * thread's stack ("handler"), on an alternate signal stack ("altstack"),
 * and a handler that longjmps out of a call in progress ("longjmp").
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

#include "scen.h"

static sigjmp_buf back;
static int jump;

static void handler(int sig)
{
	probe(sig);
	if (jump)
		siglongjmp(back, 1);
}

static void busy(int depth)
{
	probe(depth);
	if (depth > 0)
		busy(depth - 1);
	else
		raise(SIGUSR1);
	probe(depth); /* not reached when the handler jumps */
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "handler";
	struct sigaction sa = {.sa_handler = handler};
	sigemptyset(&sa.sa_mask);
	if (!strcmp(how, "altstack")) {
		static char stack[64 * 1024];
		stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack};
		if (sigaltstack(&ss, NULL) < 0)
			return 1;
		sa.sa_flags = SA_ONSTACK;
	}
	jump = !strcmp(how, "longjmp");
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 20; i++) {
		if (jump && sigsetjmp(back, 1))
			continue;
		busy(3);
	}
	probe(0);
	scen_report(how);
	return 0;
}
