/* Calls into an instrumented shared library. */
#include <stdio.h>

void lib_entry(int n);

int main(void)
{
	for (int i = 0; i < 5; i++)
		lib_entry(2);
	puts("done");
	return 0;
}
