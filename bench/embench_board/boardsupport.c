/* boardsupport.c - a native "board" for Embench under zond inject: no hooks needed. */
#include "support.h"

void initialise_board(void)
{
}

void __attribute__((noinline)) start_trigger(void)
{
	__asm__ volatile("");
}

void __attribute__((noinline)) stop_trigger(void)
{
	__asm__ volatile("");
}
