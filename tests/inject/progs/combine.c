/*
 * combine.c - heavy and light do all the work, each call one loop of n steps
 * and 3 fresh pages touched: outer calls heavy 30 times and light 10 times,
 * main calls outer once.  So by construction main's and outer's self are near
 * 0, heavy's is 3/4 of the program's time and light's 1/4; in page faults
 * exactly 90 and 30 (combine.sh).  The loop is one function (spin, not
 * measured, so in its caller's self) for both: two copies of it ran at
 * different speeds (2.2x on an AMD EPYC, the loop's alignment), which made
 * the time shares the CPU's and not the construction's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* 3 page faults: fresh pages mapped, each written once, unmapped */
static void touch(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED)
		exit(2);
	for (int i = 0; i < 3; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, 3 * (size_t)page);
}

__attribute__((noipa)) long spin(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return s;
}

__attribute__((noipa)) long heavy(long n)
{
	touch();
	return spin(n);
}

__attribute__((noipa)) long light(long n)
{
	touch();
	return -spin(n);
}

__attribute__((noipa)) long outer(long n)
{
	long s = 0;
	for (int i = 0; i < 30; i++)
		s += heavy(n);
	for (int i = 0; i < 10; i++)
		s += light(n);
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	printf("%ld\n", outer(n));
	return 0;
}
