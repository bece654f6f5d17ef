/* libcount.c - a shared library for zond inject -f MODULE:GLOB: lib_add counts its calls. */
int lib_calls;

int lib_add(int a, int b)
{
	lib_calls++;
	return a + b;
}
