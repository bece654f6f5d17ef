/* arch.c - the architectures zond inject was built with. */
#include <stdio.h>
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

void inject_why_jumps_in(char *why, size_t off, uint64_t addr, uint64_t t, uint64_t lo,
			 uint64_t hi)
{
	if (t == lo)
		snprintf(why, INJECT_WHY, "the body (+%zu) jumps back to the entry +%u", off,
			 (unsigned)(t - addr));
	else
		snprintf(why, INJECT_WHY,
			 "the body (+%zu) jumps to +%u, inside the %u bytes the jump overwrites",
			 off, (unsigned)(t - addr), (unsigned)(hi - lo));
}
