/*
 * rawmap.h - for test drivers that read raw files directly (doc/raw-format.md):
 * a sampled raw file mapped read-only.
 */
#ifndef ZOND_TEST_RAWMAP_H
#define ZOND_TEST_RAWMAP_H

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raw.h"

/* The file at path mapped (its size in *size), or NULL when it is no raw file with a (context, pc) table. */
static const uint8_t *map_sampled_raw(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(struct zr_header)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	const uint8_t *f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return NULL;
	const struct zr_header *h = (const void *)f;
	if (memcmp(h->magic, ZR_MAGIC, 8) || !h->max_sample_pcs) {
		munmap((void *)f, (size_t)st.st_size);
		return NULL;
	}
	*size = (size_t)st.st_size;
	return f;
}

/* Thread slot s's (context, pc) table, and its zr_thread in *t; NULL when the slot is unused. */
static const struct zr_sample_pc *thread_sample_pcs(const uint8_t *f, uint32_t s,
						    const struct zr_thread **t)
{
	const struct zr_header *h = (const void *)f;
	const uint8_t *slot = f + h->threads_off + s * h->thread_bytes;
	*t = (const void *)slot;
	return (*t)->used ? (const void *)(slot + h->sample_pcs_off) : NULL;
}

#endif
