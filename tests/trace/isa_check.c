/*
 * isa_check.c - zond's instruction decoders against an expected class per
 * instruction (isa_objdump.sh derives it from objdump's mnemonic and
 * operands).  Reads lines "ADDR WORD CLASS [TARGET]" (hex; CLASS one of
 * other call ret jump ijump cond syscall), classifies WORD at ADDR with the
 * decoder of ARCH and counts disagreements, printing the first few.  For
 * x86_64 WORD is the bytes in memory order and their number must be the
 * decoder's length too.
 *
 * Usage: isa_check ARCH < LINES      exit 0 when every instruction agrees
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/isa.h"

#define MAX_BYTES 16

static const char *const names[] = {"other", "call", "ret", "jump", "ijump", "cond", "syscall"};

static int class_of(const char *name)
{
	for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	const struct isa *isa = argc > 1 ? isa_find(argv[1]) : NULL;
	if (!isa)
		return 2;
	/* x86-64: WORD is the instruction's bytes in memory order, as objdump shows them. */
	int in_order = strcmp(isa->name, "x86_64") == 0;
	char line[512], cls[32];
	uint64_t counts[7] = {0}, n = 0, bad = 0;
	while (fgets(line, sizeof line, stdin)) {
		uint64_t addr, word = 0, target = 0;
		char hex[64];
		int k = sscanf(line, "%" SCNx64 " %63s %31s %" SCNx64, &addr, hex, cls, &target);
		int want = k >= 3 ? class_of(cls) : -1;
		size_t nhex = k >= 2 ? strlen(hex) : 0;
		if (want < 0 || nhex % 2 || nhex > 2 * MAX_BYTES || strspn(hex, "0123456789abcdef") != nhex) {
			fprintf(stderr, "isa_check: bad line: %s", line);
			return 2;
		}
		uint8_t b[MAX_BYTES] = {0};
		size_t len, nb = nhex / 2;
		if (in_order) {
			for (size_t i = 0; i < nb; i++)
				sscanf(hex + 2 * i, "%2hhx", &b[i]);
			len = isa->length(b, nb); /* must be all of objdump's bytes */
		} else {
			word = strtoull(hex, NULL, 16);
			for (int i = 0; i < 8; i++)
				b[i] = (uint8_t)(word >> (8 * i));
			len = isa->length(b, 8);
		}
		struct zi_insn zi;
		isa->classify(b, len, addr, &zi);
		int ok = (int)zi.cls == want && (k < 4 || (zi.direct && zi.target == target)) &&
			 (!in_order || len == nb);
		if (!ok && bad++ < 20)
			fprintf(stderr, "%" PRIx64 ": %s objdump says %s %" PRIx64
				", zond %s %s%" PRIx64 " (%zu bytes)\n", addr, hex, cls, target,
				names[zi.cls], zi.direct ? "" : "(indirect) ", zi.target, len);
		counts[want]++;
		n++;
	}
	printf("%s: %" PRIu64 " instructions, %" PRIu64 " disagreements;", argv[1], n, bad);
	for (int i = 0; i < 7; i++)
		printf(" %s %" PRIu64, names[i], counts[i]);
	printf("\n");
	return bad || n == 0;
}
