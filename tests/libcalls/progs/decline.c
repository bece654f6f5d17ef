/*
 * decline.c - an audit module that declines (la_version returns 0, the way
 * rtld-audit(7) gives a module to opt out): the loader unloads it while it
 * starts the program, calling zond's la_objclose for a map it never opened.
 */
#include <link.h>

unsigned int la_version(unsigned int version)
{
	(void)version;
	return 0;
}
