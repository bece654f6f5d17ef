/*
 * symbols_at.c - what symbols_lookup names at addresses of an ELF file, for
 * plt.sh to compare with objdump's labels.
 *
 * Reads one hex address a line from stdin, prints per address:
 *   ADDR NAME START SIZE      (NAME "-" when nothing covers it)
 *
 * Usage: symbols_at ELF
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbols/symbols.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: symbols_at ELF <addresses\n");
		return 2;
	}
	struct symbols *s = symbols_new();
	char line[256];
	int rc = 0;
	while (fgets(line, sizeof line, stdin)) {
		uint64_t addr = strtoull(line, NULL, 16);
		struct symbol sym;
		struct zerr err;
		if (symbols_lookup(s, argv[1], addr, &sym, &err) < 0) {
			fprintf(stderr, "symbols_at: %s\n", err.msg);
			rc = 1;
			break;
		}
		printf("%" PRIx64 " %s %" PRIx64 " %" PRIu64 "\n", addr, sym.name ? sym.name : "-",
		       sym.start, sym.size);
	}
	symbols_free(s);
	return rc;
}
