/*
 * manyforks.c - more forked children than zond inject has shared blocks
 * (QA s11 F3): 300 children one after the other; each calls work() 1000
 * times while its parent does the same, and the parent waits for it
 * before the next.  Prints the calls made (600000).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOI __attribute__((noipa))
static volatile long sink;

NOI void work(long i)
{
	sink += i;
}

int main(void)
{
	long total = 0;
	for (int c = 0; c < 300; c++) {
		pid_t p = fork();
		if (p == 0) {
			for (int i = 0; i < 1000; i++)
				work(i);
			_exit(0);
		}
		for (int i = 0; i < 1000; i++)
			work(i);
		waitpid(p, 0, 0);
		total += 2000;
	}
	printf("work calls: %ld\n", total);
	return 0;
}
