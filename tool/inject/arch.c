/* arch.c - the architectures zond inject was built with. */
#include <string.h>

#include "arch.h"

#ifdef ZOND_HAVE_ZYDIS
extern const struct inject_arch inject_arch_x86_64;
#endif
extern const struct inject_arch inject_arch_riscv32, inject_arch_riscv64;

const struct inject_arch *inject_arch_find(const char *name)
{
#ifdef ZOND_HAVE_ZYDIS
	if (strcmp(name, "x86_64") == 0)
		return &inject_arch_x86_64;
#endif
	if (strcmp(name, "riscv32") == 0)
		return &inject_arch_riscv32;
	if (strcmp(name, "riscv64") == 0)
		return &inject_arch_riscv64;
	return NULL;
}
