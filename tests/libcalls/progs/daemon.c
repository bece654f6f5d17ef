/*
 * daemon.c (libcalls; tests/runtime/progs/daemon.c calls work() instead): the program daemon()s (a fork made inside libc, the parent exits
 * at once) and the daemon goes on working after its parent has ended: what
 * it does is part of the run.  It calls ml_add 500 times, then writes its
 * own count to the file named by argv[1] (the parent made one call before) (its stdout is the parent's no
 * more) and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mylib.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	ml_add(0, 0); /* the parent's one call, in the parent's own file */
	printf("parent: daemon starting\n");
	fflush(stdout);
	if (daemon(1, 0) < 0)
		return 1;
	/* the parent is gone: run on a while, so that its end comes first */
	usleep(100000);
	unsigned calls = 0;
	for (unsigned i = 0; i < 500; i++, calls++)
		ml_add((int)i, 1);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "daemon: work %u\n", calls);
	fclose(f);
	return 0;
}
