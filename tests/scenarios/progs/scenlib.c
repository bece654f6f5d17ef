/* scenlib.c - libscen.so: the function every scenario counts. */
int scen_probe(int x)
{
	return x * 3 + 1;
}
