/* chainb.c - the far end of the library-calls-library chains (chain.c): called from libchaina. */
#include <string.h>

int cb_leaf(int x)
{
	return x + 1;
}

/* a library calling libc */
int cb_len(const char *s)
{
	return (int)strlen(s);
}
