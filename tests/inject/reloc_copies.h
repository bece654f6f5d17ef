/*
 * reloc_copies.h - the part of the relocation dumps (tests/inject/reloc_dump.c
 * for x86-64, tests/rsp/rv_reloc_dump.c for RISC-V) that both do: every
 * site of a plan relocated into a blob for objdump to disassemble.
 *
 * write_copies() relocates every accepted site of p (far: the far jump's
 * sites, arch->plan_far) as if the file blob_path were loaded at base,
 * copies 16-aligned with fill bytes between; it prints per site
 * "F ADDR KEEP LEN COPY COPYLEN" and per relocated instruction
 * "I ORIG_ADDR COPY_ADDR", and, for far sites that take the far jump, that
 * jump written after the copy as if there, to the function:
 * "J JUMP_ADDR FUNC_ADDR" (hex).  0, or -1 with a line on stderr.
 */
#ifndef ZOND_TESTS_RELOC_COPIES_H
#define ZOND_TESTS_RELOC_COPIES_H

#include <stdint.h>

#include "inject/engine.h"

int write_copies(struct symbols *s, const char *path, const struct inject_plan *p, int far,
		 const char *blob_path, uint64_t base, int fill);

#endif
