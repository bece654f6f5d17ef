/* Built -fsanitize=address -finstrument-functions: AddressSanitizer's runtime
 * wants to be the first library; zond record preloads its own (cli_programs). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x)
{
	return x * 2;
}

__attribute__((noinline)) int mid(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(void)
{
	int *p = malloc(4 * sizeof *p);
	p[0] = mid(100);
	printf("%d\n", p[0]);
	free(p);
	return 3;
}
