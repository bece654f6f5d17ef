/*
 * isr.c - a machine timer interrupt whose handler calls a function the
 * interrupted code calls too (isr.sh): main calls leaf() N times in a row
 * (a short function: under zond inject most of a call is zond's payload, so
 * the interrupts land inside it), the handler calls work(), which calls
 * leaf(), NIRQ times at periods of 2 to 6 mtime ticks (under -icount
 * shift=0 one tick is 100 instructions: the landing points vary).  Its
 * output does not depend on where the interrupts land: N + NIRQ calls of
 * leaf, NIRQ of work.
 */
#include <stdint.h>
#include <stdio.h>

#define N    3000
#define NIRQ 40
#define CLINT_MTIMECMP (*(volatile uint64_t *)0x2004000UL)
#define CLINT_MTIME (*(volatile uint64_t *)0x200bff8UL)

static volatile unsigned n_leaf, n_leaf_isr, n_work, handled, in_isr;
static volatile unsigned sink;

/* counted apart in the handler: n_leaf++ interrupted between its load and store would lose one */
__attribute__((noipa)) void leaf(unsigned k)
{
	if (in_isr)
		n_leaf_isr++;
	else
		n_leaf++;
	sink += k;
}

__attribute__((noipa)) void work(void)
{
	n_work++;
	leaf(handled);
}

/* The handler keeps s0 and the other callee-saved registers live across its call (the
 * payload once returned the interrupted call into the handler's context: s0 lost). */
__attribute__((interrupt("machine"), aligned(4))) static void on_timer(void)
{
	volatile unsigned *h = &handled;
	unsigned n = *h + 1;
	in_isr = 1;
	work();
	in_isr = 0;
	*h = n;
	CLINT_MTIMECMP = n >= NIRQ ? UINT64_MAX : CLINT_MTIME + 2 + n % 5;
}

int main(void)
{
	__asm__ volatile("csrw mtvec, %0" : : "r"((uintptr_t)on_timer));
	CLINT_MTIMECMP = CLINT_MTIME + 2;
	__asm__ volatile("csrs mie, %0" : : "r"(1 << 7));
	__asm__ volatile("csrs mstatus, 8");
	for (unsigned i = 0; i < N; i++)
		leaf(i);
	while (handled < NIRQ)
		;
	__asm__ volatile("csrc mstatus, 8");
	printf("leaf=%u work=%u handled=%u\n", n_leaf + n_leaf_isr, n_work, handled);
	return 3;
}
