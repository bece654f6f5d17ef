/*
 * cycle.c - a control loop for zond inject's cyclic scenario over GDB
 * (cyclic.sh): each pass calls tick() (the safe point) once, then five()
 * (2 bytes: a lone ret, entered through a breakpoint) once, one() once,
 * two() twice, three() three and four() four times.  It sees the
 * sets zond swaps itself: a function whose first instruction is now a
 * `jal x0` (none of them starts with one) is patched.  It runs until it
 * has seen another set measured than at its start and then the first one
 * again (for ever when never_called() is made the safe point), then says
 * how many passes it made: whole passes, counted by the program, not by
 * zond.
 */
#include <stdint.h>
#include <stdio.h>

static volatile unsigned n_one, n_two, n_three, n_four, passes;

__attribute__((noipa)) void tick(void)
{
	passes++;
}

__attribute__((noipa)) void never_called(void)
{
	passes = 0;
}

/* Too short for zond's jump: measured through a breakpoint (no write the loop could see). */
__attribute__((noipa)) void five(void)
{
}

__attribute__((noipa)) void one(void)
{
	n_one++;
}

__attribute__((noipa)) void two(void)
{
	n_two++;
}

__attribute__((noipa)) void three(void)
{
	n_three++;
}

__attribute__((noipa)) void four(void)
{
	n_four++;
}

/* Whether f's first instruction is a jal x0 (zond's jump to its trampoline). */
static int patched(void (*f)(void))
{
	const volatile uint16_t *p = (const volatile uint16_t *)(uintptr_t)f;
	return (p[0] & 0xfff) == 0x06f;
}

/* Which of one..four are patched now, a bit each. */
static unsigned measured(void)
{
	return patched(one) | patched(two) << 1 | patched(three) << 2 | patched(four) << 3;
}

int main(void)
{
	unsigned first = measured();
	int seen = 0; /* 1: another set seen measured, 2: then the first one again */
	while (seen < 2) {
		tick();
		five();
		one();
		for (int i = 0; i < 2; i++)
			two();
		for (int i = 0; i < 3; i++)
			three();
		for (int i = 0; i < 4; i++)
			four();
		unsigned now = measured();
		if (seen == 0 && now != first)
			seen = 1;
		else if (seen == 1 && now == first)
			seen = 2;
	}
	printf("passes=%u one=%u two=%u three=%u four=%u\n", passes, n_one, n_two, n_three,
	       n_four);
	return 0;
}
