/* Mutual recursion: is_even(10) and is_odd(7) bounce between the two. */
#include <stdio.h>

static int is_odd(unsigned n);

static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

int main(void)
{
	printf("%d %d\n", is_even(10), is_odd(7));
	return 0;
}
