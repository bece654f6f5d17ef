/*
 * samplerproc - one line per process of a sampled run (its raw files in
 * DIR): which sampler ran, whether any sample was charged to the program,
 * and how many of those lie in zond's own code (the runtime's executable
 * mappings in that process, from CODE: lines "zond_code PID LO HI", hex,
 * written by progs/sampler.c; other lines are ignored).  Reads the raw
 * files directly (doc/raw-format.md), every thread's (context, pc) table.
 *
 *   samplerproc DIR CODE
 *   -> "sampler=perf|timer|... counted=yes|no in_zond_code=N", lines sorted
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

struct range {
	int pid;
	uint64_t lo, hi;
};

static struct range ranges[64];
static int n_ranges;

static void read_code(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	struct range r;
	while (f && fgets(line, sizeof line, f))
		if (n_ranges < 64 &&
		    sscanf(line, "zond_code %d %" SCNx64 " %" SCNx64, &r.pid, &r.lo, &r.hi) == 3)
			ranges[n_ranges++] = r;
	if (f)
		fclose(f);
}

static int in_zond_code(int pid, uint64_t pc)
{
	for (int i = 0; i < n_ranges; i++)
		if (ranges[i].pid == pid && pc >= ranges[i].lo && pc < ranges[i].hi)
			return 1;
	return 0;
}

/* Whether pid's code ranges are known at all: without them nothing is checked. */
static int known(int pid)
{
	for (int i = 0; i < n_ranges; i++)
		if (ranges[i].pid == pid)
			return 1;
	return 0;
}

static const char *sampler_name(uint32_t samplers)
{
	static const char *const names[] = {"none", "perf", "timer", "perf+timer"};
	return names[samplers & 3];
}

static int check_file(const char *path, char *out, size_t size)
{
	size_t bytes;
	const uint8_t *f = map_sampled_raw(path, &bytes);
	if (!f)
		return -1;
	const struct zr_header *h = (const void *)f;
	uint64_t program = 0, stray = 0;
	for (uint32_t s = 0; s < h->n_threads; s++) {
		const struct zr_thread *t;
		const struct zr_sample_pc *e = thread_sample_pcs(f, s, &t);
		if (!e)
			continue;
		for (uint32_t i = 0; i < h->max_sample_pcs; i++) {
			program += e[i].samples;
			if (e[i].samples && in_zond_code(h->pid, e[i].pc))
				stray += e[i].samples;
		}
	}
	if (known(h->pid))
		snprintf(out, size, "sampler=%s counted=%s in_zond_code=%" PRIu64,
			 sampler_name(h->samplers), program ? "yes" : "no", stray);
	else
		snprintf(out, size, "pid %d: zond's code not known", h->pid);
	munmap((void *)f, bytes);
	return 0;
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(a, b);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: samplerproc DIR CODE\n");
		return 2;
	}
	read_code(argv[2]);
	DIR *d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	static char lines[64][128];
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < 64;) {
		if (fnmatch("*.zraw", e->d_name, 0) != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
		if (check_file(path, lines[n], sizeof lines[n]) < 0) {
			fprintf(stderr, "%s: not a sampled raw file\n", path);
			return 1;
		}
		n++;
	}
	closedir(d);
	qsort(lines, (size_t)n, sizeof lines[0], compare_lines);
	for (int i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	return 0;
}
