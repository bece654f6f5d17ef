/*
 * libcount.c - a shared library for zond inject -f MODULE:GLOB: lib_add
 * counts its calls; its constructor calls it twice (before the program's
 * main: the loader runs it at start-up) and its destructor four times
 * (after main).
 */
int lib_calls;

__attribute__((noinline)) int lib_add(int a, int b)
{
	lib_calls++;
	return a + b;
}

__attribute__((constructor)) void lib_start(void)
{
	lib_add(lib_add(0, 1), 2);
}

__attribute__((destructor)) void lib_end(void)
{
	lib_add(lib_add(lib_add(lib_add(0, 1), 2), 3), 4);
}
