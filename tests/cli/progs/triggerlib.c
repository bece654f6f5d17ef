/* triggerlib.c - the library of trigger.cpp: lib_work(n) calls lib_inner() n times. */
__attribute__((noinline)) int lib_inner(int x)
{
	return x + 1;
}

int lib_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += lib_inner(i);
	return s;
}
