/* isr.c - a machine timer interrupt whose instrumented handler calls functions, taken NIRQ
 * times inside an uninstrumented loop of an instrumented function (isr.sh).  The handler
 * returns with mret, restoring the interrupted code's ra: no return address of its own. */
#include <stdint.h>
#include <stdio.h>

#define NIRQ 6
#define PERIOD 40 /* mtime ticks between interrupts */
#define CLINT_MTIMECMP (*(volatile uint64_t *)0x2004000UL)
#define CLINT_MTIME (*(volatile uint64_t *)0x200bff8UL)

static volatile int handled, ticked;

__attribute__((noinline)) static void count_tick(void)
{
	ticked++;
}

__attribute__((interrupt("machine"), aligned(4))) static void on_timer(void)
{
	handled++;
	count_tick();
	CLINT_MTIMECMP = handled >= NIRQ ? UINT64_MAX : CLINT_MTIME + PERIOD;
}

/* n rounds of a two-instruction loop the interrupts land in */
__attribute__((noinline)) static void spin(int n)
{
	__asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

int main(void)
{
	__asm__ volatile("csrw mtvec, %0" : : "r"((uintptr_t)on_timer));
	CLINT_MTIMECMP = CLINT_MTIME + PERIOD;
	__asm__ volatile("csrs mie, %0" : : "r"(1 << 7));
	__asm__ volatile("csrs mstatus, 8");
	spin(20000);
	__asm__ volatile("csrc mstatus, 8");
	printf("handled=%d ticked=%d\n", handled, ticked);
	return 0;
}
