/*
 * vsyscall.c - x86-64: calls the legacy vsyscall page's gettimeofday
 * (0xffffffffff600000, as old static programs and Go runtimes do) between
 * two loops of 10 calls of leaf() (vsyscall.sh).
 */
#include <stdio.h>
#include <sys/time.h>

typedef int (*gtod_fn)(struct timeval *, void *);

__attribute__((noinline)) int leaf(int x)
{
	return x + 1;
}

int main(void)
{
	struct timeval tv;
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += leaf(i);
	s += ((gtod_fn)0xffffffffff600000UL)(&tv, 0);
	for (int i = 0; i < 10; i++)
		s += leaf(i);
	printf("%d\n", s);
	return 0;
}
