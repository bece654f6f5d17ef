/*
 * stubcheck - no sample of a raw file charged to the program lies in the
 * given code ranges: the PLT stubs through which the program calls zond's
 * hooks (their samples are zond's cost, runtime/linux/sample.c), found by
 * the test with objdump.  Reads the raw files directly (doc/raw-format.md),
 * every thread's (context, pc) table.  Also fails when no sample at all was
 * charged to the program, or none to zond (the run proves nothing then).
 *
 *   stubcheck DIR PROGRAM LO HI [LO HI...]   link-time [LO, HI) of PROGRAM, hex
 */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rawmap.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The load bias of the module named like program, or -1 when there is none. */
static int program_bias(const uint8_t *f, const char *program, uint64_t *bias)
{
	const struct zr_header *h = (const void *)f;
	const struct zr_module *m = (const void *)(f + h->modules_off);
	for (uint32_t i = 0; i < h->n_modules; i++) {
		const char *path = (const char *)f + h->strings_off + m[i].path;
		if (strcmp(base_name(path), base_name(program)) == 0) {
			*bias = m[i].bias;
			return 0;
		}
	}
	return -1;
}

/* Counts samples in ranges (in_stub), elsewhere (program) and zond's; -1 on a bad file. */
static int check_file(const char *path, const char *program, const uint64_t *ranges, int n,
		      uint64_t *in_stub, uint64_t *program_samples, uint64_t *zond)
{
	size_t size;
	const uint8_t *f = map_sampled_raw(path, &size);
	if (!f)
		return -1;
	const struct zr_header *h = (const void *)f;
	uint64_t bias;
	int rc = program_bias(f, program, &bias) < 0 ? -1 : 0;
	for (uint32_t s = 0; rc == 0 && s < h->n_threads; s++) {
		const struct zr_thread *t;
		const struct zr_sample_pc *e = thread_sample_pcs(f, s, &t);
		if (!e)
			continue;
		*zond += t->samples_zond;
		for (uint32_t i = 0; i < h->max_sample_pcs; i++) {
			if (!e[i].samples)
				continue;
			*program_samples += e[i].samples;
			for (int r = 0; r < n; r++)
				if (e[i].pc - bias >= ranges[2 * r] && e[i].pc - bias < ranges[2 * r + 1])
					*in_stub += e[i].samples;
		}
	}
	munmap((void *)f, size);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 5 || (argc - 3) % 2) {
		fprintf(stderr, "usage: stubcheck DIR PROGRAM LO HI [LO HI...]\n");
		return 2;
	}
	int n = (argc - 3) / 2;
	uint64_t *ranges = calloc((size_t)argc, sizeof *ranges);
	for (int i = 0; i < 2 * n; i++)
		ranges[i] = strtoull(argv[3 + i], NULL, 16);
	DIR *d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	uint64_t in_stub = 0, program = 0, zond = 0;
	int files = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (fnmatch("*.zraw", e->d_name, 0) != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
		if (check_file(path, argv[2], ranges, n, &in_stub, &program, &zond) < 0) {
			fprintf(stderr, "%s: not a sampled raw file with module %s\n", path, argv[2]);
			return 1;
		}
		files++;
	}
	closedir(d);
	printf("files %d, samples at the program's pcs %" PRIu64 ", zond's %" PRIu64
	       ", in the stubs %" PRIu64 "\n",
	       files, program, zond, in_stub);
	free(ranges);
	return files && program && zond && !in_stub ? 0 : 1;
}
