/*
 * reclaim.c - more forked children over a run than zond inject has shared
 * blocks (256), their blocks given back when they end.  Phases, in the
 * order given:
 *   seq N     N children one after the other, each calling work() 100
 *             times and leave() once; every tenth ends inside leave()
 *             (_exit: a call never returned), the others return from it
 *   alive N   N children alive at once: each calls work() 100 times, says
 *             so on a pipe, then waits on another that the parent closes
 *             when all N have made their calls (the children beyond the
 *             255 blocks the parent leaves find none)
 *   zombies N N children that call work() 100 times and end, waited for
 *             only after 0.5 s (zombies meanwhile: zond gives their blocks
 *             back), then N more alike
 *   wait      waits for a line on stdin first (zond inject -p meanwhile;
 *             says "ready" on stderr)
 * The parent calls work() once first and once per child.  Prints the calls
 * the program made, "count NAME N" (lib.sh's compare_counts), and the
 * children's calls made while more than 255 children were alive at once
 * ("alive_excess N": those children may find no block).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOI __attribute__((noipa))
static volatile long sink;

NOI void work(long i)
{
	sink += i;
}

NOI void leave(long i)
{
	sink += i;
	if (i % 10 == 0)
		_exit(0); /* inside a measured call: it never returns */
}

int main(int argc, char **argv)
{
	long works = 1, leaves = 0, excess = 0;
	work(0);
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "wait") == 0) {
			char line[16];
			fprintf(stderr, "ready\n");
			if (!fgets(line, sizeof line, stdin))
				return 2;
			continue;
		}
		if (a + 1 >= argc)
			return 2;
		int n = atoi(argv[++a]);
		if (strcmp(argv[a - 1], "seq") == 0) {
			for (int c = 0; c < n; c++) {
				pid_t p = fork();
				if (p == 0) {
					for (int i = 0; i < 100; i++)
						work(i);
					leave(c);
					_exit(0);
				}
				work(c);
				waitpid(p, 0, 0);
			}
			works += 101L * n;
			leaves += n;
		} else if (strcmp(argv[a - 1], "alive") == 0) {
			int fd[2], done[2];
			char b = 0;
			if (pipe(fd) < 0 || pipe(done) < 0)
				return 2;
			for (int c = 0; c < n; c++) {
				pid_t p = fork();
				if (p == 0) {
					close(fd[1]);
					for (int i = 0; i < 100; i++)
						work(i);
					if (write(done[1], &b, 1) != 1)
						_exit(1);
					while (read(fd[0], &b, 1) > 0) {
					}
					_exit(0);
				}
				work(c);
			}
			for (int c = 0; c < n; c++)
				if (read(done[0], &b, 1) != 1)
					return 2;
			close(fd[0]);
			close(fd[1]);
			while (wait(NULL) > 0) {
			}
			close(done[0]);
			close(done[1]);
			works += 101L * n;
			excess += n > 255 ? 100L * (n - 255) : 0;
		} else if (strcmp(argv[a - 1], "zombies") == 0) {
			for (int wave = 0; wave < 2; wave++) {
				for (int c = 0; c < n; c++) {
					pid_t p = fork();
					if (p == 0) {
						for (int i = 0; i < 100; i++)
							work(i);
						_exit(0);
					}
					work(c);
				}
				usleep(500000);
			}
			while (wait(NULL) > 0) {
			}
			works += 2 * 101L * n;
		} else {
			return 2;
		}
	}
	printf("count work %ld\n", works);
	if (leaves) /* a function never called is not in zond's figures */
		printf("count leave %ld\n", leaves);
	printf("alive_excess %ld\n", excess);
	return 0;
}
