/* twomods.c - one function (ml_add) called from two modules in turn: the program and libmylib (ml_twice). */
#include <stdio.h>

#include "mylib.h"

int main(void)
{
	long sum = 0;
	for (int i = 0; i < 1000; i++) {
		sum += ml_add(i, 1);
		if (i % 4 == 0)
			sum += ml_twice(i);
	}
	for (int i = 0; i < 300; i++)
		sum += ml_twice(i);
	printf("sum %ld\n", sum);
	return 0;
}
