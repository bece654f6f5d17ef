/* lazylib.c - the library of lazy.c: three leaf functions, bound lazily by its caller. */
__attribute__((noipa)) int lazy_a(int i)
{
	return i + 1;
}

__attribute__((noipa)) int lazy_b(int i)
{
	return i * 3;
}

__attribute__((noipa)) int lazy_c(int i)
{
	return i - 7;
}
