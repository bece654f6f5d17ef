/*
 * blockexec.c IMAGE ARGS... - blocks every signal, works 0.3 s of CPU time
 * (a sampler's signal comes meanwhile), then execs IMAGE: an image zond
 * does not audit (progs/unblock.c, static) must not meet a signal of zond's
 * pending across the exec.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	spin_cpu(0.3);
	execv(argv[1], argv + 1);
	perror("execv");
	return 127;
}
