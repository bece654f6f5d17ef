/* bench/accuracy_check.c - a program whose self-time shares are known by
 * construction, to check bench/accuracy's reference (perf samples charged to
 * the innermost instrumented function).  Every function runs the same loop, a
 * chain of dependent multiply-adds, for a number of rounds read at run time
 * (so that the compiler shapes every loop alike), and does nothing else of
 * weight: its share of the time is its share of the rounds.  c is inlined
 * into main but instrumented, so it counts as its own.  It prints each
 * function's designed share in percent, one 'name share' a line. */
#include <stdio.h>

static volatile unsigned sink;
static unsigned rounds[] = {4000, 2000, 1000, 1000, 2000}; /* a, b, c, d, main */
static const char *names[] = {"a", "b", "c", "d", "main"};

#define WORK(n)                                                 \
	do {                                                    \
		unsigned x_ = sink;                             \
		for (unsigned i_ = 0; i_ < (n); i_++)           \
			x_ = x_ * 1103515245u + 12345u;         \
		sink = x_;                                      \
	} while (0)

__attribute__((noinline)) void a(void) { WORK(rounds[0]); }
__attribute__((noinline)) void b(void) { WORK(rounds[1]); }
static inline void c(void) { WORK(rounds[2]); }
__attribute__((noinline)) void d(void) { WORK(rounds[3]); }

int main(void)
{
	for (int r = 0; r < 100000; r++) {
		a();
		b();
		c();
		d();
		WORK(rounds[4]);
	}
	unsigned total = 0;
	for (int i = 0; i < 5; i++)
		total += rounds[i];
	for (int i = 0; i < 5; i++)
		printf("%s %.1f\n", names[i], 100.0 * rounds[i] / total);
	return 0;
}
