/*
 * hotpatch.c - x86-64: calls f() 10 times, patches the immediate of its
 * first instruction (mov $1,%eax -> mov $2,%eax: hot patching, userspace
 * jump labels), and calls it 10 times more (patched.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

__attribute__((noinline, aligned(64))) int f(void)
{
	__asm__ volatile("");
	return 1;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += f();
	unsigned char *p = (unsigned char *)f;
	uintptr_t page = (uintptr_t)p & ~(uintptr_t)4095;
	mprotect((void *)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC);
	if (p[0] == 0xb8)
		p[1] = 2;
	mprotect((void *)page, 8192, PROT_READ | PROT_EXEC);
	for (int i = 0; i < 10; i++)
		s += f();
	printf("%d\n", s);
	return s == 30 ? 0 : 1;
}
