/* unwind.cc's C frame built with -fexceptions: its cleanup runs as a landing pad. */
static int released;

static void release(int *p)
{
	released += *p;
}

int c_cleanup(int (*f)(int), int x)
{
	int v __attribute__((cleanup(release))) = 1;
	return f(x) + v;
}
