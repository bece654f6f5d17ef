/* isr.c - a machine timer interrupt whose instrumented handler calls functions, taken NIRQ
 * times inside an uninstrumented loop of an instrumented function (isr.sh).  The handler
 * returns with mret, restoring the interrupted code's ra: no return address of its own.
 * -DISR_IN_HOOKS: 40 interrupts at periods of 15 to 21 ticks while main calls an empty
 * instrumented function, so that they land all over the hooks' shells. */
#include <stdint.h>
#include <stdio.h>

#ifdef ISR_IN_HOOKS
#define NIRQ 40
#define PERIOD (15 + handled % 7)
#else
#define NIRQ 6
#define PERIOD 40 /* mtime ticks between interrupts */
#endif
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
#ifdef ISR_IN_PROBES
	CLINT_MTIMECMP = UINT64_MAX; /* interrupt_in_probe sets the next */
#else
	CLINT_MTIMECMP = handled >= NIRQ ? UINT64_MAX : CLINT_MTIME + PERIOD;
#endif
}

/* n rounds of a two-instruction loop the interrupts land in */
__attribute__((noinline)) static void spin(int n)
{
	__asm__ volatile("1: addi %0, %0, -1\n bnez %0, 1b" : "+r"(n));
}

/* -DISR_IN_PROBES: each interrupt lands inside the entry hook of a call of pause_once, where
 * the handler's calls are counted without a stack: under -icount shift=0 mtime steps every 100
 * instructions, so once it has just stepped, an interrupt due at the next step comes some 90
 * instructions into the call, inside the hook (hundreds long), whatever the code's layout. */
__attribute__((noinline)) void pause_once(void)
{
	__asm__ volatile("" ::: "memory");
}

static void interrupt_in_probe(void)
{
	uint64_t t = CLINT_MTIME;
	while (CLINT_MTIME == t)
		;
	CLINT_MTIMECMP = t + 2;
	pause_once();
}

int main(void)
{
	__asm__ volatile("csrw mtvec, %0" : : "r"((uintptr_t)on_timer));
	CLINT_MTIMECMP = CLINT_MTIME + PERIOD;
	__asm__ volatile("csrs mie, %0" : : "r"(1 << 7));
	__asm__ volatile("csrs mstatus, 8");
#if defined ISR_IN_PROBES
	CLINT_MTIMECMP = UINT64_MAX;
	while (handled < NIRQ)
		interrupt_in_probe();
#elif defined ISR_IN_HOOKS
	while (handled < NIRQ)
		pause_once();
#else
	spin(20000);
#endif
	__asm__ volatile("csrc mstatus, 8");
	printf("handled=%d ticked=%d\n", handled, ticked);
	return 0;
}
