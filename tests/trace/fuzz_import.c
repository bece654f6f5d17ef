/*
 * fuzz_import.c - the importers (QEMU log, PC list) on damaged copies of
 * real traces: deterministic bit flips, runs of random bytes, truncations,
 * lines swapped, prefixes of 1 to 10 lines.  Every read must end in success
 * or one error line naming the file; ASan/UBSan builds catch memory errors.
 *
 * Usage: fuzz_import qemu-log|pcs ARCH ELF TRACE WORKDIR [ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "trace/trace.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Exchanges two lines' first bytes: blocks out of order, listings cut. */
static void swap_lines(unsigned char *buf, size_t len)
{
	size_t a = next() % len, b = next() % len, n = 1 + next() % 40;
	for (size_t k = 0; k < n && a + k < len && b + k < len; k++) {
		unsigned char t = buf[a + k];
		buf[a + k] = buf[b + k];
		buf[b + k] = t;
	}
}

/* The first 1 to 10 lines: a trace cut short, a single block, a single instruction. */
static void prefix(const unsigned char *buf, size_t *len)
{
	int lines = 1 + (int)(next() % 10);
	for (size_t i = 0; i < *len; i++) {
		if (buf[i] == '\n' && --lines == 0) {
			*len = i + 1;
			return;
		}
	}
}

static void mutate(unsigned char *buf, size_t *len, int it)
{
	switch (it % 5) {
	case 4:
		prefix(buf, len);
		break;
	case 0:
		for (int k = 0; k < 1 + (int)(next() % 4); k++)
			buf[next() % *len] ^= (unsigned char)(1u << (next() % 8));
		break;
	case 1: {
		size_t at = next() % *len, run = 1 + next() % 16;
		for (size_t k = at; k < at + run && k < *len; k++)
			buf[k] = (unsigned char)next();
		break;
	}
	case 2:
		swap_lines(buf, *len);
		break;
	default:
		*len = next() % *len;
	}
}

int main(int argc, char **argv)
{
	if (argc < 6)
		return 2;
	const char *format = argv[1];
	struct trace_import o = {.arch = argv[2], .elf = argv[3]};
	FILE *f = fopen(argv[4], "rb");
	if (!f)
		return 77;
	static unsigned char orig[1 << 23], buf[1 << 23];
	size_t n = fread(orig, 1, sizeof orig, f);
	fclose(f);
	int iterations = argc > 6 ? atoi(argv[6]) : 200;
	char path[4096];
	snprintf(path, sizeof path, "%s/fuzz.%s", argv[5], format);
	struct symbols *syms = symbols_new();
	int refused = 0;
	for (int it = 0; it < iterations && n; it++) {
		size_t len = n;
		memcpy(buf, orig, n);
		mutate(buf, &len, it);
		FILE *o_ = fopen(path, "wb");
		if (!o_ || fwrite(buf, 1, len, o_) != len || fclose(o_) != 0)
			return 1;
		struct zp_profile *p = profile_new();
		struct trace_info info;
		struct zerr err = {{0}};
		int rc = strcmp(format, "pcs") == 0 ? trace_read_pcs(path, &o, syms, p, &info, &err)
						    : trace_read_qemu_log(path, &o, syms, p, &info, &err);
		if (rc < 0) {
			refused++;
			CHECK(strstr(err.msg, path) != NULL);
			CHECK(strchr(err.msg, '\n') == NULL);
		}
		profile_free(p);
	}
	symbols_free(syms);
	printf("%d of %d damaged %s traces refused\n", refused, iterations, format);
	CHECK(refused > 0);
	return check_done();
}
