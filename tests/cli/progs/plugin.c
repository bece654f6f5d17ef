/* plugin.c - plughost's plugin: run(n) calls helper() n times. */
__attribute__((noinline)) static int helper(int x)
{
	return 2 * x;
}

int run(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += helper(i);
	return s;
}
