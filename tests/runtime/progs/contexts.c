/*
 * Edges mislead: a and b both call c, which calls x when called from a and y
 * when called from b.  Edges alone would also allow main;a;c;y and
 * main;b;c;x, stacks that never happen.  The program counts each real stack
 * itself.
 */
#include <stdio.h>

static unsigned n_a_c_x, n_b_c_y;
static volatile unsigned sink;

static void x(void)
{
	n_a_c_x++;
}

static void y(void)
{
	n_b_c_y++;
}

static void c(int from_a)
{
	if (from_a)
		x();
	else
		y();
}

static void a(void)
{
	c(1);
}

static void b(void)
{
	c(0);
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		a();
	for (int i = 0; i < 5; i++)
		b();
	printf("main;a;c;x %u\nmain;b;c;y %u\n", n_a_c_x, n_b_c_y);
	return 0;
}
