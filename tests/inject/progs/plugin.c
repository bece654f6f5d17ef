/* plugin.c - a library a program loads with dlopen (dlopen.c): its calls counted by itself. */
unsigned long plugin_leaf_calls;

__attribute__((noinline)) unsigned long plugin_leaf(unsigned long x)
{
	plugin_leaf_calls++;
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

unsigned long plugin_run(int n)
{
	unsigned long s = 0;
	for (int i = 0; i < n; i++)
		s += plugin_leaf((unsigned long)i);
	return s;
}
