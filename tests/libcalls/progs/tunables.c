/*
 * tunables.c - prints GLIBC_TUNABLES: under zond libcalls, a program whose
 * libraries fit in the loader's spare static TLS (the C library's own)
 * finds it as without zond.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	const char *t = getenv("GLIBC_TUNABLES");
	printf("GLIBC_TUNABLES: %s\n", t ? t : "(unset)");
	return 0;
}
