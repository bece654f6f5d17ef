/* reloc_copies.c - every site of a plan relocated into a blob (reloc_copies.h). */
#include "reloc_copies.h"

#include <inttypes.h>
#include <stdio.h>

int write_copies(struct symbols *s, const char *path, const struct inject_plan *p, int far,
		 const char *blob_path, uint64_t base, int fill)
{
	const struct inject_arch *arch = p->arch;
	FILE *blob = fopen(blob_path, "wb");
	if (!blob)
		return perror(blob_path), -1;
	uint64_t at = base;
	struct zerr err;
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct inject_func *f = &p->funcs[i];
		struct inject_site site = far ? f->far : f->site;
		if (!(far ? f->far_ok : f->ok))
			continue;
		uint8_t code[256], copy[512];
		long got = symbols_read(s, path, f->addr, code, sizeof code, &err);
		char why[INJECT_WHY];
		int n = got < 0 ? -1 : arch->relocate(&site, code, at, copy, sizeof copy, why);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", f->name, got < 0 ? err.msg : why);
			fclose(blob);
			return -1;
		}
		printf("F %" PRIx64 " %x %x %" PRIx64 " %x\n", f->addr, site.keep, site.len, at, n);
		for (uint32_t k = 0; k < site.ninsn; k++)
			printf("I %" PRIx64 " %" PRIx64 "\n",
			       f->addr + site.keep + site.map_from[k], at + site.map_to[k]);
		if (far && !site.by_break) {
			n += (int)arch->jump_far(at + (uint64_t)n, f->addr, copy + n);
			printf("J %" PRIx64 " %" PRIx64 "\n", at + (uint64_t)n - arch->far_len,
			       f->addr);
		}
		fwrite(copy, 1, (size_t)n, blob);
		at += (uint64_t)n;
		for (; at % 16; at++)
			fputc(fill, blob);
	}
	fclose(blob);
	return 0;
}
