/*
 * daemon: the program daemon()s (a fork made inside libc, the parent exits
 * at once) and the daemon goes on working after its parent has ended: what
 * it does is part of the run.  The parent calls probe() once; the daemon
 * calls it 500 times, then writes its own count to the file named by
 * argv[1] (its stdout is the parent's no more) and exits.
 */
#include <stdlib.h>

#include "scen.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	probe(0); /* the parent's one call, in the parent's own file */
	printf("parent: daemon starting\n");
	fflush(stdout);
	if (daemon(1, 0) < 0)
		return 1;
	/* the parent is gone: run on a while, so that its end comes first */
	usleep(100000);
	scen_calls = 0; /* the parent's call is the parent's */
	for (int i = 0; i < 500; i++)
		probe(i);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "daemon: scen_probe %lu\n", scen_calls);
	fclose(f);
	return 0;
}
