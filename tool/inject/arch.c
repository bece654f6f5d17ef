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

int inject_site_to_hop(struct inject_site *site, uint32_t hop_len)
{
	if (!hop_len || site->ninsn < 2 || site->map_from[1] < hop_len ||
	    site->map_from[1] > site->len - site->padding)
		return -1;
	site->len = site->map_from[1];
	site->ninsn = 1;
	site->padding = 0;
	site->hop = 1;
	site->slot = 0;
	return 0;
}

uint32_t inject_entry_len(const struct inject_arch *a, const struct inject_site *site)
{
	return site->hop ? a->hop_len : a->jump_len;
}
