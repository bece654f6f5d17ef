/* tailcall.c - sibling calls at -O2: a jump to another function's entry. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;
NOINLINE int leaf(int x) { sink = x; return x * 3 + 1; }
NOINLINE int middle(int x) { sink = x; return leaf(x + 1); }   /* b leaf at -O2 */
NOINLINE int chain(int x) { sink = x; return middle(x ^ 5); } /* b middle at -O2 */
NOINLINE int countdown(int n) { sink = n; return n ? countdown(n - 1) : 0; } /* a loop, or a tail call */

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50, s = 0;
	for (int i = 0; i < n; i++)
		s += chain(i);
	printf("%d %d\n", s, countdown(n));
	return 0;
}
