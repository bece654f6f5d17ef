/* hello.c - prints its arguments and a count it keeps, exits with status 3. */
#include <stdio.h>

static int counter;

__attribute__((noinline)) static void bump(void)
{
	counter++;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		printf("arg %d: %s\n", i, argv[i]);
	for (int i = 0; i < 1000; i++)
		bump();
	printf("bump called %d times\n", counter);
	return 3;
}
