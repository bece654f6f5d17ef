/*
 * rv_reloc_dump.c - zond inject's RISC-V decoder and relocator over every
 * function of an ELF file, for rv_reloc_objdump.py to check against
 * objdump.
 *
 * Usage: rv_reloc_dump FILE BLOB > LISTING
 * LISTING: "B BASE", then per function "D ADDR LEN [TARGET]" for every
 * instruction of its body as the decoder sees it (linear sweep; TARGET for
 * jal, branches and their compressed forms), and for each function the
 * planner accepts "F ADDR LEN COPY COPYLEN" and per relocated instruction
 * "I ORIG_ADDR COPY_ADDR"; refused ones "R ADDR REASON".  The copies go
 * to BLOB as if loaded at BASE (the first 64 KiB boundary after the image:
 * within a jal's reach), 16-aligned, zeros between.  All numbers hex.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject/arch/riscv/riscv.h"
#include "inject/engine.h"

static void dump_body(struct symbols *s, const char *path, const struct inject_func *f, int xlen)
{
	uint8_t *code = malloc(f->size + 4);
	struct zerr err;
	long got = symbols_read(s, path, f->addr, code, f->size, &err);
	for (size_t off = 0; got > 0 && off < (size_t)got;) {
		struct rv_insn in;
		rv_decode(code + off, (size_t)got - off, xlen, &in);
		if (!in.len) {
			printf("D %" PRIx64 " 0\n", f->addr + off);
			off += 2;
			continue;
		}
		if (in.kind == RV_JAL || in.kind == RV_BRANCH)
			printf("D %" PRIx64 " %x %" PRIx64 "\n", f->addr + off, in.len,
			       f->addr + off + (uint64_t)in.imm);
		else
			printf("D %" PRIx64 " %x\n", f->addr + off, in.len);
		off += in.len;
	}
	free(code);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: rv_reloc_dump FILE BLOB\n");
		return 2;
	}
	struct zerr err;
	const char *name = inject_elf_arch(argv[1], &err);
	const struct inject_arch *arch = name ? inject_arch_find(name) : NULL;
	if (!arch) {
		fprintf(stderr, "%s\n", name ? "not a RISC-V file" : err.msg);
		return 1;
	}
	int xlen = strcmp(name, "riscv64") == 0 ? 64 : 32;
	struct symbols *s = symbols_new();
	struct inject_plan p;
	if (inject_plan_file(s, argv[1], arch, &p, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	FILE *blob = fopen(argv[2], "wb");
	if (!blob)
		return perror(argv[2]), 1;
	uint64_t base = (p.image_end + 0xffff) & ~(uint64_t)0xffff, at = base;
	printf("B %" PRIx64 "\n", base);
	for (size_t i = 0; i < p.nfuncs; i++) {
		struct inject_func *f = &p.funcs[i];
		dump_body(s, argv[1], f, xlen);
		if (!f->ok) {
			printf("R %" PRIx64 " %s\n", f->addr, f->why);
			continue;
		}
		uint8_t code[64] = {0}, copy[512];
		long got = symbols_read(s, argv[1], f->addr, code, sizeof code, &err);
		char why[INJECT_WHY];
		int n = got < 0 ? -1 : arch->relocate(&f->site, code, at, copy, sizeof copy, why);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", f->name, got < 0 ? err.msg : why);
			return 1;
		}
		printf("F %" PRIx64 " %x %" PRIx64 " %x\n", f->addr, f->site.len, at, n);
		for (uint32_t k = 0; k < f->site.ninsn; k++)
			printf("I %" PRIx64 " %" PRIx64 "\n", f->addr + f->site.map_from[k],
			       at + f->site.map_to[k]);
		fwrite(copy, 1, (size_t)n, blob);
		at += (uint64_t)n;
		for (; at % 16; at++)
			fputc(0, blob);
	}
	fclose(blob);
	inject_plan_free(&p);
	symbols_free(s);
	return 0;
}
