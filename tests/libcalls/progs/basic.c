/* basic.c - exact counts and every way of passing arguments and results through the wrapper. */
#include <stdio.h>
#include <stdlib.h>

#include "mylib.h"

static void callback(void *arg)
{
	*(int *)arg = ml_add(*(int *)arg, 1);
}

int main(void)
{
	long sum = 0;
	for (int i = 0; i < 1000; i++)
		sum += ml_add(i, 1);
	for (int i = 0; i < 100; i++)
		sum += ml_twice(i);
	printf("sum %ld\n", sum);
	printf("many %ld\n", ml_many(1, 2, 3, 4, 5, 6, 7, 8));
	printf("fsum %.1f\n", ml_fsum(1, 2, 3, 4, 5, 6, 7, 8, 9.5));
	printf("ldouble %.1Lf\n", ml_ldouble(21.25L));
	struct ml_pair p = ml_pair(3, 4);
	printf("pair %ld %ld\n", p.a, p.b);
	struct ml_big b = ml_big(10);
	printf("big %ld %ld\n", b.v[0], b.v[7]);
	printf("vsum %d\n", ml_vsum(4, 1, 2, 3, 4));
	printf("vfsum %.2f\n", ml_vfsum(3, 0.25, 0.5, 1.0));
	int x = 41;
	ml_call(callback, &x);
	printf("callback %d\n", x);
	int v[] = {5, 3, 9, 1};
	qsort(v, 4, sizeof v[0], ml_compare);
	printf("sorted %d %d %d %d\n", v[0], v[1], v[2], v[3]);
	return 3;
}
