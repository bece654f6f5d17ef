/*
 * retaddr.c - functions that read their own return address
 * (__builtin_return_address(0): an allocation tracker's call site), with no
 * frame and with one (pushes and a subtracted rsp, or rbp at -O0).  Measured,
 * each would see the trampoline's za_exit, outside the program's text: zond
 * inject refuses them (QA s14 V3 F1).  Prints whether each address lies in
 * the program's text and work's calls; exits 0.
 */
#include <stdio.h>

extern char __executable_start[], etext[];

__attribute__((noinline)) int work(int i)
{
	return i * 3 + 1;
}

__attribute__((noinline)) void *bare(void)
{
	return __builtin_return_address(0);
}

__attribute__((noinline)) void *framed(int n)
{
	volatile int buf[32];
	for (int i = 0; i < 32; i++)
		buf[i] = work(n + i);
	return (char *)__builtin_return_address(0) + buf[n & 31] * 0;
}

static int in_text(const void *p)
{
	return (const char *)p >= __executable_start && (const char *)p < etext;
}

int main(void)
{
	int bare_in = 0, framed_in = 0;
	for (int i = 0; i < 10; i++) {
		bare_in += in_text(bare());
		framed_in += in_text(framed(i));
	}
	printf("bare in text %d of 10\nframed in text %d of 10\n", bare_in, framed_in);
	return 0;
}
