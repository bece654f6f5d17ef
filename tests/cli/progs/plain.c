/* plain: a program built without -finstrument-functions; prints and exits 5. */
#include <stdio.h>

int main(void)
{
	puts("plain");
	return 5;
}
