/* noreturn.c - the end of the trace with frames open: _exit from deep recursion (start-up
 * code and main never return).  _exit skips gprof's gmon.out: expected counts below.
 * expect: deep=17 twice=1
 */
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;
NOINLINE void deep(int n) { if (n == 0) _exit(3); deep(n - 1); sink++; } /* not a loop at -O2 */
NOINLINE int twice(int x) { return 2 * x; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	deep(twice(n));
	return 0;
}
