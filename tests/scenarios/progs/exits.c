/*
 * exits: the ways a process ends, chosen by argv[1]: return from main,
 * exit and _exit from deep inside, abort, death by SIGSEGV and by SIGTERM.
 * The status or signal must be the plain run's, the calls made before the
 * end all counted.
 */
#include <signal.h>
#include <stdlib.h>

#include "scen.h"

static void end(const char *how, int depth)
{
	probe(depth);
	if (depth > 0) {
		end(how, depth - 1);
		return;
	}
	scen_report(how);
	if (!strcmp(how, "exit"))
		exit(4);
	if (!strcmp(how, "_exit"))
		_exit(5);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "segv"))
		*(volatile int *)0 = 1;
	if (!strcmp(how, "term"))
		raise(SIGTERM);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "return";
	for (int i = 0; i < 10; i++)
		probe(i);
	end(how, 5);
	return 3;
}
