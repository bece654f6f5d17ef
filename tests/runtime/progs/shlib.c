/* A shared library built with -finstrument-functions. */
void lib_inner(void);

void lib_inner(void)
{
}

void lib_entry(int n);

void lib_entry(int n)
{
	for (int i = 0; i < n; i++)
		lib_inner();
}
