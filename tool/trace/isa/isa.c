/* isa.c - the table of architectures zond's trace readers know. */
#include <elf.h>
#include <string.h>

#include "../isa.h"

static size_t fixed4(const uint8_t *b, size_t n)
{
	(void)b;
	return n >= 4 ? 4 : 0;
}

static const struct isa isas[] = {
	{"aarch64", EM_AARCH64, ELFCLASS64, fixed4, isa_aarch64_classify, isa_aarch64_may_stop, NULL},
	{"riscv64", EM_RISCV, ELFCLASS64, isa_riscv_length, isa_riscv64_classify, isa_riscv_may_stop,
	 NULL},
	{"riscv32", EM_RISCV, ELFCLASS32, isa_riscv_length, isa_riscv32_classify, isa_riscv_may_stop,
	 NULL},
#ifdef ZOND_HAVE_ZYDIS
	{"x86_64", EM_X86_64, ELFCLASS64, isa_x86_64_length, isa_x86_64_classify, isa_x86_64_may_stop,
	 isa_x86_64_repeats},
#endif
};

const struct isa *isa_find(const char *name)
{
	if (name && strcmp(name, "arm64") == 0)
		name = "aarch64";
	if (name && strcmp(name, "amd64") == 0)
		name = "x86_64";
	for (size_t i = 0; name && i < sizeof isas / sizeof isas[0]; i++)
		if (strcmp(isas[i].name, name) == 0)
			return &isas[i];
	return NULL;
}

const char *isa_names(void)
{
#ifdef ZOND_HAVE_ZYDIS
	return "aarch64, riscv64, riscv32, x86_64";
#else
	return "aarch64, riscv64, riscv32";
#endif
}
