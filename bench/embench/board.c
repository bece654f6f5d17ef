/*
 * board.c - the board support the Embench programs ask for (support.h), for
 * bench/embench: QEMU's virt machine with picolibc's semihosting crt0, which
 * also gives them exit.  Not instrumented: the triggers mark the measured
 * region in QEMU's log by their addresses.
 */
void initialise_board(void)
{
}

__attribute__((noinline)) void start_trigger(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void stop_trigger(void)
{
	__asm__ volatile("" ::: "memory");
}
