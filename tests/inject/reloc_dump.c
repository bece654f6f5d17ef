/*
 * reloc_dump.c - every patchable function of an ELF file relocated by zond
 * inject's relocator, for reloc_objdump.py to check against objdump.
 *
 * Usage: reloc_dump FILE BLOB > LISTING
 * Each copy goes to BLOB (raw bytes, copies 16-aligned, int3 between them),
 * as if the blob were loaded at BASE, the first 1 MiB boundary after the
 * file's image; LISTING has "B BASE", then per function
 * "F ADDR KEEP LEN COPY COPYLEN" and per relocated instruction
 * "I ORIG_ADDR COPY_ADDR" (hex).  Exit 77 when zond has no x86-64 relocator.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject/engine.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: reloc_dump FILE BLOB\n");
		return 2;
	}
	const struct inject_arch *arch = inject_arch_find("x86_64");
	if (!arch)
		return 77;
	struct symbols *s = symbols_new();
	struct inject_plan p;
	struct zerr err;
	if (inject_plan_file(s, argv[1], arch, &p, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	FILE *blob = fopen(argv[2], "wb");
	if (!blob)
		return perror(argv[2]), 1;
	uint64_t base = (p.image_end + 0xfffff) & ~(uint64_t)0xfffff, at = base;
	printf("B %" PRIx64 "\n", base);
	for (size_t i = 0; i < p.nfuncs; i++) {
		struct inject_func *f = &p.funcs[i];
		if (!f->ok)
			continue;
		uint8_t code[256], copy[512];
		long got = symbols_read(s, argv[1], f->addr, code, sizeof code, &err);
		char why[INJECT_WHY];
		int n = got < 0 ? -1 : arch->relocate(&f->site, code, at, copy, sizeof copy, why);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", f->name, got < 0 ? err.msg : why);
			return 1;
		}
		printf("F %" PRIx64 " %x %x %" PRIx64 " %x\n", f->addr, f->site.keep, f->site.len,
		       at, n);
		for (uint32_t k = 0; k < f->site.ninsn; k++)
			printf("I %" PRIx64 " %" PRIx64 "\n",
			       f->addr + f->site.keep + f->site.map_from[k],
			       at + f->site.map_to[k]);
		fwrite(copy, 1, (size_t)n, blob);
		at += (uint64_t)n;
		for (; at % 16; at++)
			fputc(0xcc, blob);
	}
	fclose(blob);
	inject_plan_free(&p);
	symbols_free(s);
	return 0;
}
