/* reuse_b.c - loaded by reuse.c where libreuse_a was: the same addresses, other functions. */
int b_one(int x)
{
	return x + 2;
}

int entry(int x)
{
	return b_one(x) * 3;
}
