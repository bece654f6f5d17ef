/*
 * manyctx.c - more calling contexts than a thread's old default pool held
 * (65536): lc_l(depth) walks a binary tree of lc_l and lc_r calls, every
 * call a path of its own (2^(depth+1) - 1 of them), and prints each path
 * (l and r from the first call down) as the truth its profile is checked
 * against, then the number of calls of each.
 */
#include <stdio.h>
#include <stdlib.h>

extern long lc_calls_l, lc_calls_r;
void lc_l(int depth, char *path, int len);

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 16;
	char path[64];
	if (depth < 0 || depth > 60)
		return 2;
	lc_l(depth, path, 0);
	printf("calls lc_l %ld lc_r %ld\n", lc_calls_l, lc_calls_r);
	return 0;
}
