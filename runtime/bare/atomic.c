/*
 * atomic.c - the 64-bit atomic loads and stores the core uses, for rv32,
 * where gcc calls out for them and a bare-metal toolchain has no libatomic.
 * One hart: a load or store is atomic once no interrupt can split it, so
 * machine-mode builds mask interrupts around it (user-mode builds cannot,
 * and the core only uses them on cold paths and on data of the one hart).
 */
#include <stdint.h>

#if __riscv_xlen == 32

static inline unsigned long interrupts_off(void)
{
	unsigned long was = 0;
#ifndef ZOND_BARE_USER
	__asm__ volatile("csrrci %0, mstatus, 8" : "=r"(was) : : "memory");
#endif
	return was;
}

static inline void interrupts_back(unsigned long was)
{
#ifndef ZOND_BARE_USER
	if (was & 8)
		__asm__ volatile("csrsi mstatus, 8" : : : "memory");
#else
	(void)was;
#endif
}

uint64_t __atomic_load_8(const volatile void *p, int order)
{
	(void)order;
	unsigned long was = interrupts_off();
	uint64_t v = *(const volatile uint64_t *)p;
	interrupts_back(was);
	return v;
}

void __atomic_store_8(volatile void *p, uint64_t v, int order)
{
	(void)order;
	unsigned long was = interrupts_off();
	*(volatile uint64_t *)p = v;
	interrupts_back(was);
}

#endif
