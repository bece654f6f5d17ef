/*
 * forever.c - calls tick() until QEMU is killed or zond stops it (inject.sh,
 * region.sh, stop.sh, crash.sh).  After its 100th call of tick() it prints
 * "ticking" once: the tests wait for that line, not for a time, before they
 * stop or kill the run, since zond lets main() run only once tick's entry
 * (or breakpoint) is in: calls were measured, however slow the machine.
 */
#include <stdio.h>

volatile unsigned n_tick;

__attribute__((noipa)) void tick(void)
{
	n_tick++;
}

int main(void)
{
	for (unsigned i = 1;; i++) {
		tick();
		if (i == 100) {
			puts("ticking");
			fflush(stdout);
		}
	}
}
