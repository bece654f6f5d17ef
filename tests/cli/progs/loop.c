/* A tiny leaf called N times (argv[1]) from loop, called from main. */
#include <stdlib.h>

static volatile unsigned long sink;

static void leaf(unsigned long i)
{
	sink += i;
}

static void loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		leaf(i);
}

int main(int argc, char **argv)
{
	loop(argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000);
	return 0;
}
