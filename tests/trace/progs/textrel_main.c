/* textrel_main.c - calls getp() of the TEXTREL library textrel.S 5 times (patched.sh). */
#include <stdio.h>

long *getp(void);

int main(void)
{
	long s = 0;
	for (int i = 0; i < 5; i++)
		s += *getp();
	printf("%ld\n", s);
	return 0;
}
