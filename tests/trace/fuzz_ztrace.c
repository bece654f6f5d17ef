/*
 * fuzz_ztrace.c - the .ztrace reader on damaged traces: deterministic
 * mutations (bit flips, byte runs, truncation) of a real trace, each read
 * into a fresh profile.  Every read must end in success or one error line
 * naming the file; ASan/UBSan builds catch memory errors.
 *
 * Usage: fuzz_ztrace TRACE WORKDIR [ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "trace/trace.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 77;
	static unsigned char orig[1 << 22], buf[1 << 22];
	size_t n = fread(orig, 1, sizeof orig, f);
	fclose(f);
	int iterations = argc > 3 ? atoi(argv[3]) : 300;
	char path[4096];
	snprintf(path, sizeof path, "%s/fuzz.ztrace", argv[2]);
	struct symbols *syms = symbols_new();
	int failed_reads = 0, cut_reads = 0;
	for (int it = 0; it < iterations; it++) {
		memcpy(buf, orig, n);
		size_t len = n;
		switch (it % 3) {
		case 0: /* a few bit flips, header included */
			for (int k = 0; k < 1 + (int)(next() % 4); k++)
				buf[next() % len] ^= (unsigned char)(1u << (next() % 8));
			break;
		case 1: /* a run of random bytes */
		{
			size_t at = next() % len, run = 1 + next() % 16;
			for (size_t k = at; k < at + run && k < len; k++)
				buf[k] = (unsigned char)next();
			break;
		}
		default: /* truncation */
			len = next() % len;
		}
		FILE *o = fopen(path, "wb");
		if (!o || fwrite(buf, 1, len, o) != len || fclose(o) != 0)
			return 1;
		struct zp_profile *p = profile_new();
		struct trace_info info;
		struct zerr err = {{0}};
		if (trace_read_ztrace(path, syms, p, &info, &err) < 0) {
			failed_reads++;
			CHECK(strstr(err.msg, path) != NULL);
			CHECK(strchr(err.msg, '\n') == NULL);
		} else if (len < n && it % 3 == 2) {
			/* cut short: read up to its last complete chunk, and said so */
			CHECK(info.cut > 0 && info.cut <= len);
			CHECK(info.insns > 0);
			cut_reads++;
		}
		profile_free(p);
	}
	symbols_free(syms);
	printf("%d of %d damaged traces refused, %d cut ones read\n", failed_reads, iterations,
	       cut_reads);
	CHECK(failed_reads > iterations / 2);
	return check_done();
}
