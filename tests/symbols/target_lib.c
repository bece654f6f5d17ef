/* A shared library for the symbols tests: one exported, one local function. */

static int __attribute__((noinline)) lib_hidden(int x)
{
	return x * 7 - 2; /* LINE lib_hidden body */
}

int lib_exported(int x)
{
	return lib_hidden(x) + 1;
}
