/* plugin_b.c - plugins.c's other plugin, loaded where plugin_a was. */
#include "mylib.h"

long plug_b(int n)
{
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += ml_add(i, 2);
	return sum;
}
