/* gotcalls.c - calls that never pass a PLT slot: built with -fno-plt (calls through the GOT),
 * a function whose address is taken, a -Bsymbolic library calling itself.  zond info lists
 * them; zond libcalls does not see them (only ml_twice's own call of ml_add). */
#include <stdio.h>

#include "mylib.h"

int sl_outer(int a);

int main(void)
{
	int (*twice)(int) = ml_twice; /* address taken: a GOT entry */
	long sum = 0;
	for (int i = 0; i < 10; i++)
		sum += ml_add(i, 1) + twice(i) + sl_outer(i);
	printf("sum %ld\n", sum);
	return 0;
}
