/*
 * rv_reloc_dump.c - zond inject's RISC-V decoder and relocator over every
 * function of an ELF file, for rv_reloc_objdump.py to check against
 * objdump.
 *
 * Usage: rv_reloc_dump FILE BLOB FARBLOB > LISTING
 * LISTING: "B BASE FARBASE", then per function "D ADDR LEN [TARGET]" for
 * every instruction of its body as the decoder sees it (linear sweep;
 * TARGET for jal, branches and their compressed forms), and for each
 * function the planner accepts "F ADDR KEEP LEN COPY COPYLEN" and per relocated
 * instruction "I ORIG_ADDR COPY_ADDR"; refused ones "R ADDR REASON".  The
 * copies go to BLOB as if loaded at BASE (the first 64 KiB boundary after
 * the image: within a jal's reach), 16-aligned, zeros between.  Then the
 * far jump's sites (arch->plan_far), relocated into FARBLOB at FARBASE
 * (16 MiB further: out of a jal's reach): "F", "I" lines as above, and per
 * far site its jump, written into FARBLOB as if at its own address there
 * and jumping to the function: "J JUMP_ADDR FUNC_ADDR".  All numbers hex
 * (tests/inject/reloc_copies.h writes the copies).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../inject/reloc_copies.h"
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
	if (argc != 4) {
		fprintf(stderr, "usage: rv_reloc_dump FILE BLOB FARBLOB\n");
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
	uint64_t base = (p.image_end + 0xffff) & ~(uint64_t)0xffff, far = base + 0x1000000;
	printf("B %" PRIx64 " %" PRIx64 "\n", base, far);
	for (size_t i = 0; i < p.nfuncs; i++) {
		dump_body(s, argv[1], &p.funcs[i], xlen);
		if (!p.funcs[i].ok)
			printf("R %" PRIx64 " %s\n", p.funcs[i].addr, p.funcs[i].why);
	}
	if (write_copies(s, argv[1], &p, 0, argv[2], base, 0) < 0 ||
	    write_copies(s, argv[1], &p, 1, argv[3], far, 0) < 0)
		return 1;
	inject_plan_free(&p);
	symbols_free(s);
	return 0;
}
