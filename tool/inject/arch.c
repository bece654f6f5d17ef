/* arch.c - the architectures zond inject was built with. */
#include <string.h>

#include "arch.h"

#ifdef ZOND_HAVE_ZYDIS
extern const struct inject_arch inject_arch_x86_64;
#endif

const struct inject_arch *inject_arch_find(const char *name)
{
#ifdef ZOND_HAVE_ZYDIS
	if (strcmp(name, "x86_64") == 0)
		return &inject_arch_x86_64;
#endif
	(void)name;
	return NULL;
}
