/* inexact.c - a function shaped as -finstrument-functions shapes one, written by hand so that
 * its prologue branches before the entry hook's call: straight-line code no more, which the
 * runtime cannot count from the code (runtime/bare/sites.c).  Its figure is short by the six
 * instructions before the hook's call (addi, the store of ra, beqz, lla's two, mv) per call,
 * and zond must say so (inexact.sh). */
#include <stdio.h>

#if __riscv_xlen == 64
#define SAVE "sd"
#define LOAD "ld"
#else
#define SAVE "sw"
#define LOAD "lw"
#endif

void odd(void);
__asm__(".text\n"
	".globl odd\n"
	".type odd, @function\n"
	".p2align 2\n"
	"odd:\n"
	"	addi sp, sp, -16\n"
	"	" SAVE " ra, 8(sp)\n"
	"	beqz zero, 1f\n"
	"1:	lla a0, odd\n"
	"	mv a1, ra\n"
	"	call __cyg_profile_func_enter\n"
	"	lla a0, odd\n"
	"	" LOAD " a1, 8(sp)\n"
	"	call __cyg_profile_func_exit\n"
	"	" LOAD " ra, 8(sp)\n"
	"	addi sp, sp, 16\n"
	"	ret\n"
	".size odd, .-odd\n");

int main(void)
{
	for (int i = 0; i < 3; i++)
		odd();
	printf("odd called 3 times\n");
	return 0;
}
