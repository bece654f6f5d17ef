/*
 * lazy.c - calls the three functions of liblazy (lazylib.c) through its PLT, linked
 * -z lazy: the first call of each goes through the PLT header and the loader's
 * resolver (plt.sh).  Prints how often it called each, in the order of their first
 * calls, interleaved so that a binding is resolved while others are bound already.
 */
#include <stdio.h>

int lazy_a(int i);
int lazy_b(int i);
int lazy_c(int i);

int main(void)
{
	int a = 0, b = 0, c = 0, s = 0;
	for (int i = 0; i < 4; i++, a++)
		s += lazy_a(i);
	for (int i = 0; i < 3; i++, b++, a++)
		s += lazy_b(i) + lazy_a(i);
	for (int i = 0; i < 2; i++, c++)
		s += lazy_c(i);
	printf("lazy_a %d\nlazy_b %d\nlazy_c %d\n", a, b, c);
	return s == -1;
}
