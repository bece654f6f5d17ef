/* plugin_a.c - a plugin of plugins.c calling mylib through its own PLT. */
#include "mylib.h"

long plug_a(int n)
{
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += ml_add(i, 1);
	return sum;
}
