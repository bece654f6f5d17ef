/*
 * paths.c - more calling contexts than zond inject keeps per thread
 * (INJ_CTX_MAX): main calls each of a00..a99 once, each of them calls each
 * of b00..b99 once: 1 + 100 + 10000 paths.
 */
#include <stdio.h>

static volatile unsigned long sink;

#define TEN(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define HUNDRED(M)                                                                                 \
	TEN(M, 0)                                                                                  \
	TEN(M, 1) TEN(M, 2) TEN(M, 3) TEN(M, 4) TEN(M, 5) TEN(M, 6) TEN(M, 7) TEN(M, 8) TEN(M, 9)

#define B(i)                                                                                       \
	__attribute__((noinline)) void b##i(void)                                                  \
	{                                                                                          \
		sink++;                                                                            \
	}
HUNDRED(B)
#define BPTR(i) b##i,
static void (*const bs[])(void) = {HUNDRED(BPTR)};

#define A(i)                                                                                       \
	__attribute__((noinline)) void a##i(void)                                                  \
	{                                                                                          \
		for (int j = 0; j < 100; j++)                                                      \
			bs[j]();                                                                   \
	}
HUNDRED(A)
#define APTR(i) a##i,
static void (*const as[])(void) = {HUNDRED(APTR)};

int main(void)
{
	for (int i = 0; i < 100; i++)
		as[i]();
	printf("calls of b %lu\n", sink);
	return 0;
}
