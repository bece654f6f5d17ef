/* reuse_a.c - loaded, called and unloaded first by reuse.c; libreuse_b takes its place. */
int a_only(int x)
{
	return x + 1;
}

int entry(int x)
{
	return a_only(x) * 2;
}
