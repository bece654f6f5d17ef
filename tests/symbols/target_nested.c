/*
 * target_nested.c - function symbols nested in one another, as libgcc's
 * RISC-V millicode has them: outer holds middle, middle holds inner, and
 * outer's code goes on past middle's end.  symbols_test looks addresses up
 * in each part: the innermost symbol holding one names it.
 */
__asm__(".text\n"
	".p2align 4\n"
	".globl outer\n.type outer, @function\nouter:\n"
	"\tnop\n"
	".globl middle\n.type middle, @function\nmiddle:\n"
	"\tnop\n"
	".globl inner\n.type inner, @function\ninner:\n"
	"\tnop\n"
	"\tnop\n"
	".size inner, .-inner\n"
	"\tnop\n"
	".size middle, .-middle\n"
	"\tnop\n"
	"\tret\n"
	".size outer, .-outer\n");
void outer(void);

int main(void)
{
	outer();
	return 0;
}
