/*
 * tail.c - appending what QEMU left in the memory file (tail.h) to a trace
 * it did not complete.
 */
#include "tail.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "format.h"
#include "model/profile.h"

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One slot's records, and its thread's current block, as a chunk. */
static int append_slot(int out, const struct tail_slot *s, const uint8_t *buf, uint8_t *raw,
		       void *z, size_t zcap, ZSTD_CCtx *ctx)
{
	size_t len = s->len <= TAIL_BUF ? (size_t)s->len : 0; /* damaged: nothing */
	memcpy(raw, buf, len);
	if (s->thread && s->pos && s->pos <= s->last_n) {
		len = (size_t)(zt_put_uleb(raw + len, (uint64_t)s->last << 2 | ZT_EXEC) - raw);
		if (s->pos != s->last_n)
			len = (size_t)(zt_put_uleb(raw + len, (uint64_t)s->pos << 2 | ZT_PARTIAL) - raw);
	}
	if (!len)
		return 0;
	size_t n = ZSTD_compressCCtx(ctx, z, zcap, raw, len, 1);
	uint8_t head[12];
	zt_put_u32(head, (uint32_t)len);
	zt_put_u32(head + 4, (uint32_t)n);
	zt_put_u32(head + 8, s->thread);
	return ZSTD_isError(n) || write_all(out, head, 12) < 0 || write_all(out, z, n) < 0 ? -1 : 0;
}

/* A chunk of the shared stream holding one EXIT record. */
static int append_exit(int out, uint64_t exit)
{
	uint8_t rec[24], head[12];
	uint8_t *end = zt_put_uleb(zt_put_uleb(rec, (uint64_t)ZT_EXIT << 2 | ZT_CONTROL), exit);
	uint8_t z[64];
	size_t n = ZSTD_compress(z, sizeof z, rec, (size_t)(end - rec), 1);
	if (ZSTD_isError(n))
		return -1;
	zt_put_u32(head, (uint32_t)(end - rec));
	zt_put_u32(head + 4, (uint32_t)n);
	zt_put_u32(head + 8, 0);
	return write_all(out, head, 12) < 0 || write_all(out, z, n) < 0 ? -1 : 0;
}

int tail_recover(int fd, const char *path, int64_t exit, struct zerr *err)
{
	void *map = mmap(NULL, tail_size(), PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return zerr_set(err, "cannot read QEMU's last trace records: %s", strerror(errno));
	const struct tail_head *h = map;
	if (memcmp(h->magic, TAIL_MAGIC, 8) != 0 || h->done || !h->committed) {
		munmap(map, tail_size());
		return 0;
	}
	int out = open(path, O_WRONLY | O_CLOEXEC);
	int rc = out < 0 || ftruncate(out, (off_t)h->committed) < 0 ||
			 lseek(out, 0, SEEK_END) < 0 ? -1 : 1;
	uint8_t *raw = zp_xmalloc(TAIL_BUF + 32);
	size_t zcap = ZSTD_compressBound(TAIL_BUF + 32);
	void *z = zp_xmalloc(zcap);
	ZSTD_CCtx *ctx = ZSTD_createCCtx();
	/* The shared stream first: a thread's chunk may run blocks it defines. */
	for (unsigned i = 0; rc > 0 && i < TAIL_SLOTS; i++) {
		const struct tail_slot *s = tail_slot(map, i);
		if (s->used && append_slot(out, s, tail_buf(map, i), raw, z, zcap, ctx) < 0)
			rc = -1;
	}
	if (rc > 0 && exit >= 0 && append_exit(out, (uint64_t)exit) < 0)
		rc = -1;
	if (rc < 0)
		zerr_set(err, "%s: cannot append QEMU's last trace records: %s", path,
			 strerror(errno));
	if (out >= 0 && close(out) != 0 && rc > 0)
		rc = zerr_set(err, "%s: cannot write: %s", path, strerror(errno));
	ZSTD_freeCCtx(ctx);
	free(z);
	free(raw);
	munmap(map, tail_size());
	return rc;
}
