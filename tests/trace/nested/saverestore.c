/*
 * saverestore.c - built for RISC-V with -msave-restore: f12 saves 12
 * registers through libgcc's __riscv_save_12 (which jumps into the nested
 * __riscv_save_10's code, and so on down to __riscv_save_2's) and restores
 * them through __riscv_restore_12, falling through the nested restores; f2
 * uses the smaller ones.  Usage: saverestore A|B (f2 or f12 called first
 * in each round): every function's calls and self costs are the same.
 */
#include <stdio.h>
__attribute__((noinline)) long g(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}
/* twelve values live across calls: s0..s11 saved */
__attribute__((noinline)) long f12(long a)
{
	long s0 = g(a), s1 = g(s0), s2 = g(s1), s3 = g(s2), s4 = g(s3), s5 = g(s4), s6 = g(s5),
	     s7 = g(s6), s8 = g(s7), s9 = g(s8), s10 = g(s9), s11 = g(s10);
	return g(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11) +
	       s0 * s1 * s2 * s3 * s4 * s5 * s6 * s7 * s8 * s9 * s10 * s11;
}
__attribute__((noinline)) long f2(long a)
{
	long s0 = g(a), s1 = g(s0);
	return g(s0) + s1 * s0;
}
int main(int argc, char **argv)
{
	long s = 0;
	for (int i = 0; i < 50; i++)
		s += argc > 1 && argv[1][0] == 'B' ? f12(i) + f2(i) : f2(i) + f12(i);
	printf("%ld\n", s);
	return 0;
}
