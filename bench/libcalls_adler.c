/*
 * libcalls_adler.c - bench/libcalls' library-calls-library workload: N calls
 * of zlib's adler32, which calls adler32_z through zlib's PLT (2N library
 * calls, every second one made by a library).
 */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned char buf[16] = {1, 2, 3, 4};
	unsigned long sum = adler32(0, NULL, 0);
	for (long i = 0; i < n; i++)
		sum = adler32(sum, buf, sizeof buf);
	printf("%lu\n", sum);
	return 0;
}
