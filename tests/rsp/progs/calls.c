/*
 * calls.c - a bare-metal program that counts its own calls, for zond
 * inject over GDB (inject.sh): a straight-line leaf, a recursion, a
 * function calling both, one called through a pointer, an empty one (a
 * lone ret: too short for zond's jump, entered through a breakpoint)
 * called through a pointer.  It prints its
 * counts; zond's must be the same.  Under -icount shift=0 every call of
 * leaf runs the same instructions (objdump counts them: no branch).
 */
#include <stdio.h>

static volatile unsigned n_leaf, n_fib, n_work, n_twice;

__attribute__((noipa)) unsigned leaf(unsigned x)
{
	n_leaf++;
	return x * 2654435761u ^ (x >> 7);
}

__attribute__((noipa)) unsigned fib(unsigned n)
{
	n_fib++;
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noipa)) unsigned twice(unsigned x)
{
	n_twice++;
	return leaf(leaf(x));
}

static unsigned (*volatile indirect)(unsigned) = twice;

__attribute__((noipa)) unsigned work(unsigned k)
{
	n_work++;
	unsigned s = 0;
	for (unsigned i = 0; i < k; i++)
		s += leaf(i) + indirect(i);
	return s + fib(k % 12);
}

__attribute__((noipa)) void empty(void)
{
}

static void (*volatile empty_ptr)(void) = empty;

int main(void)
{
	unsigned s = 0;
	for (unsigned i = 0; i < 20; i++) {
		s += work(i);
		empty_ptr();
	}
	printf("leaf=%u fib=%u work=%u twice=%u sum=%u\n", n_leaf, n_fib, n_work, n_twice, s);
	return 5;
}
