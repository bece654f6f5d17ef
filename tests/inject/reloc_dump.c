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

#include "reloc_copies.h"

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
	uint64_t base = (p.image_end + 0xfffff) & ~(uint64_t)0xfffff;
	printf("B %" PRIx64 "\n", base);
	if (write_copies(s, argv[1], &p, 0, argv[2], base, 0xcc) < 0)
		return 1;
	inject_plan_free(&p);
	symbols_free(s);
	return 0;
}
