/*
 * manyctx_lib.c - a binary tree of calls, every path its own calling
 * context: lc_l and lc_r call each other and themselves through the PLT
 * (exported, built without -Bsymbolic), so `zond libcalls` sees every call.
 */
#include <stdio.h>

long lc_calls_l, lc_calls_r;
void lc_l(int depth, char *path, int len);
void lc_r(int depth, char *path, int len);

/* Prints the path of this call (its stack from the library's first call), then calls both sides. */
static __attribute__((no_instrument_function)) void visit(int depth, char *path, int len, char side)
{
	path[len++] = side;
	path[len] = 0;
	puts(path);
	if (depth > 0) {
		lc_l(depth - 1, path, len);
		lc_r(depth - 1, path, len);
	}
}

void lc_l(int depth, char *path, int len)
{
	lc_calls_l++;
	visit(depth, path, len, 'l');
}

void lc_r(int depth, char *path, int len)
{
	lc_calls_r++;
	visit(depth, path, len, 'r');
}
