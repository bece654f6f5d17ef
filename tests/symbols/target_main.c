/*
 * A program for the symbols tests: plain functions, an address with three
 * names (global, weak, local), a sizeless assembler function, and C++ code
 * from target_cxx.cpp.  It is read, never run.
 */
int lib_exported(int x);
int cxx_entry(int n);

int alias_target(int x)
{
	return x + 40;
}

/* Aliases sort before "alias_target" by name; lookups must still prefer it. */
int aaa_weak(int x) __attribute__((weak, alias("alias_target")));
static int aaa_local(int x) __attribute__((alias("alias_target"), used));

static int __attribute__((noinline)) helper(int x)
{
	int y = x * 2;
	return y + 1; /* LINE helper return */
}

/* A function without .size, as hand-written assembler often is. */
__asm__(".text\n"
	".globl sizeless_asm\n"
	".type sizeless_asm, @function\n"
	"sizeless_asm:\n"
	"\tmovl $42, %eax\n"
	"\tret\n"
	"\tnop\n"
	"\tnop\n");
int sizeless_asm(void);

int main(int argc, char **argv)
{
	(void)argv;
	return helper(argc) + alias_target(argc) + lib_exported(argc) + cxx_entry(argc) +
	       sizeless_asm();
}
