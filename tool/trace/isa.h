/*
 * isa.h - what a trace reader needs to know of an instruction: how control
 * leaves it.
 *
 * Each architecture has a classifier that looks at the bytes of one
 * instruction at address pc and says whether it is a call (it links a
 * return address), a return, a direct or indirect jump, a conditional
 * branch, a system call, or anything else (control falls through), and for
 * direct transfers where they go.  The decoders know only control transfer:
 * everything else is ZI_OTHER.  Their rules, per architecture, are in
 * doc/trace.md; tests/trace/isa_objdump.sh checks them against objdump.
 */
#ifndef ZOND_TRACE_ISA_H
#define ZOND_TRACE_ISA_H

#include <stddef.h>
#include <stdint.h>

enum zi_class {
	ZI_OTHER = 0,   /* falls through */
	ZI_CALL,        /* links a return address: BL/BLR, JAL/JALR with rd = x1/x5, C.JAL(R), CALL */
	ZI_RET,         /* RET, jalr x0, 0(ra|t0), C.JR ra|t0, x86 RET */
	ZI_JUMP,        /* direct unconditional jump (B, J, C.J, JMP rel) */
	ZI_IJUMP,       /* indirect jump (BR, JR rs1 other than ra/t0, JMP r/m) */
	ZI_COND,        /* conditional branch (Jcc, JRCXZ, LOOP*): taken to target, else falls through */
	ZI_SYSCALL,     /* SVC, ECALL, SYSCALL: may not come back (exit, sigreturn) */
};

struct zi_insn {
	enum zi_class cls;
	int direct;      /* target is known from the bytes */
	uint64_t target; /* for direct transfers */
};

struct isa {
	const char *name;  /* as in trace headers and run.arch: "aarch64", "riscv64", ... */
	int elf_machine;   /* EM_* of its ELF files */
	int elf_class;     /* ELFCLASS32 or ELFCLASS64 */
	/* Bytes of the instruction starting at b (n bytes available), 0 if n is too short. */
	size_t (*length)(const uint8_t *b, size_t n);
	/* Classifies the instruction of len bytes at b, placed at pc. */
	void (*classify)(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out);
	/*
	 * 0 only if the instruction cannot raise an exception in user mode
	 * (plain arithmetic, direct branches): a block cannot stop there part
	 * way, so the plugin counts executed instructions only at the others.
	 * When unsure, 1.
	 */
	int (*may_stop)(const uint8_t *b, size_t len);
	/*
	 * 1 when the instruction runs as a block of its own once per iteration
	 * under QEMU (x86's rep-prefixed string instructions: with block
	 * chaining the block jumps back to itself, and runs once more with its
	 * count at 0 to leave), so that the extra run is not counted
	 * (rebuild.c).  NULL: none does.
	 */
	int (*repeats)(const uint8_t *b, size_t len);
};

/* The ISA of a trace's "arch" (QEMU's target names and their aliases), or NULL. */
const struct isa *isa_find(const char *name);

/* The names isa_find knows, for messages: "aarch64, riscv64, riscv32". */
const char *isa_names(void);

void isa_aarch64_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out);
void isa_riscv64_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out);
void isa_riscv32_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out);
size_t isa_riscv_length(const uint8_t *b, size_t n);
int isa_aarch64_may_stop(const uint8_t *b, size_t len);
int isa_riscv_may_stop(const uint8_t *b, size_t len);
/* x86-64 through Zydis (isa/x86_64.c), present when built with it (ZOND_HAVE_ZYDIS). */
void isa_x86_64_classify(const uint8_t *b, size_t len, uint64_t pc, struct zi_insn *out);
size_t isa_x86_64_length(const uint8_t *b, size_t n);
int isa_x86_64_may_stop(const uint8_t *b, size_t len);
int isa_x86_64_repeats(const uint8_t *b, size_t len);

#endif
