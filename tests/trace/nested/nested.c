/*
 * nested.c - function symbols nested in one another, as libgcc's RISC-V
 * -msave-restore millicode has them (__riscv_restore_N: entry points into
 * one code sequence, each symbol running to its end).  Every instruction
 * belongs to the innermost symbol holding it, whichever function ran it
 * first; falling (or jumping, not to an entry) into a nested function's
 * code is no call.
 *
 *   r3: add 1    r3 holds r2, r2 holds r1: a call of r3 runs r3's add,
 *   r2: add 2    r2's add and r1's two instructions
 *   r1: add 4
 *       ret
 *   wrap: add 8  wrap holds mid, whose code ends before wrap's: a call of
 *   mid:  add 16 mid falls out of it into wrap's last two instructions
 *         add 32
 *         ret
 *
 * Usage: nested A|B  (A calls the innermost functions first, B the outer
 * ones; the profiles must be the same)
 */
#include <stdio.h>

#if defined(__aarch64__)
#define ADD(n) "add x9, x9, " #n "\n"
#elif defined(__riscv)
#define ADD(n) "addi t1, t1, " #n "\n"
#elif defined(__x86_64__)
#define ADD(n) "add $" #n ", %rcx\n"
#endif
#define FUNC(f) ".globl " #f "\n.type " #f ", %function\n" #f ":\n"
#define END(f) ".size " #f ", .-" #f "\n"

__asm__(".text\n.p2align 4\n"
	FUNC(r3) ADD(1)
	FUNC(r2) ADD(2)
	FUNC(r1) ADD(4) "ret\n" END(r1) END(r2) END(r3)
	".p2align 4\n"
	FUNC(wrap) ADD(8)
	FUNC(mid) ADD(16) END(mid)
	ADD(32) "ret\n" END(wrap));

void r1(void), r2(void), r3(void), wrap(void), mid(void);

/* calls: r1 100, r2 20, r3 3, mid 7, wrap 5 */
static void (*const fns[])(void) = {r1, r2, r3, mid, wrap};
static const int times[] = {100, 20, 3, 7, 5};

int main(int argc, char **argv)
{
	int b = argc > 1 && argv[1][0] == 'B';
	for (int i = 0; i < 5; i++) {
		int k = b ? 4 - i : i;
		for (int n = 0; n < times[k]; n++)
			fns[k]();
	}
	puts("done");
	return 0;
}
