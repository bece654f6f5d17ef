/* unwind.cc's C frame built without -fexceptions: unwound through, no landing pad. */
int c_plain(int (*f)(int), int x)
{
	return f(x) + 1;
}
