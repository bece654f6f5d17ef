/*
 * ramfunc.c - a bare-metal program with one function in RAM (a .data
 * section: picolibc's crt0 copies it there), for scratch.sh: the others
 * stay in flash, out of a jal's reach from it.  It prints its own counts
 * of calls; zond's must be the same.  -DRAMFN_IN_FLASH: all in flash.
 */
#include <stdio.h>

static volatile unsigned n_leaf, n_mid, n_ram;
static volatile unsigned sink;

__attribute__((noipa)) void leaf(unsigned k)
{
	n_leaf++;
	for (unsigned i = 0; i < k; i++)
		sink += i;
}

__attribute__((noipa)) void mid(unsigned n)
{
	n_mid++;
	for (unsigned i = 0; i < n; i++)
		leaf(10);
}

/* run from RAM, as a flash programming routine would be (-DRAMFN_IN_FLASH: not) */
#ifdef RAMFN_IN_FLASH
__attribute__((noipa)) void ramfn(unsigned n)
#else
__attribute__((noipa, section(".data.ramfn"))) void ramfn(unsigned n)
#endif
{
	n_ram++;
	for (unsigned i = 0; i < n; i++)
		sink += i * 3;
}

int main(void)
{
	for (unsigned j = 0; j < 30; j++)
		mid(7);
	ramfn(9);
	printf("leaf=%u mid=%u ramfn=%u\n", n_leaf, n_mid, n_ram);
	return 3;
}
