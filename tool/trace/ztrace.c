/*
 * ztrace.c - the reader of zond's .ztrace files (format.h,
 * doc/trace-format.md): one chunk in memory at a time, records handed to
 * the rebuild as they come, so memory does not grow with the trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "format.h"
#include "rebuild.h"
#include "trace.h"

struct reader {
	const char *path;
	FILE *f;
	uint64_t offset;     /* file offset of the current chunk */
	uint8_t *raw, *z;
	size_t rawlen;
	const uint8_t *p, *end;
	ZSTD_DCtx *dctx;
	struct rebuild *rb;
	struct symbols *syms;
	struct trace_info *info;
	int ended;
	uint32_t pending, pending_n; /* the EXEC waiting for a possible PARTIAL */
	int have_pending;
	rebuild_tap tap;
	void *tap_ctx;
	uint64_t ndefined; /* blocks defined so far: the next id (ids are dense) */
};

static int fail(struct reader *r, struct zerr *err, const char *fmt, const char *what)
{
	return zerr_set(err, "%s: chunk at offset %" PRIu64 ", byte %zu: %s%s", r->path, r->offset,
			(size_t)(r->p - r->raw), fmt, what ? what : "");
}

static int get_uleb(struct reader *r, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return -1;
		uint8_t b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int read_header(struct reader *r, struct zerr *err)
{
	uint8_t head[16];
	if (fread(head, 1, 16, r->f) != 16 || memcmp(head, ZT_MAGIC, 8) != 0)
		return zerr_set(err, "%s: offset 0: not a zond trace (no ZONDTRC header)", r->path);
	uint32_t version = zt_get_u32(head + 8), len = zt_get_u32(head + 12);
	if (version != ZT_VERSION)
		return zerr_set(err, "%s: offset 8: trace format version %" PRIu32 ", this zond reads %d",
				r->path, version, ZT_VERSION);
	if (len > ZT_MAX_HEADER)
		return zerr_set(err, "%s: offset 12: header of %" PRIu32 " bytes is too large", r->path,
				len);
	char *text = zp_xmalloc(len + 1);
	if (fread(text, 1, len, r->f) != len) {
		free(text);
		return zerr_set(err, "%s: offset 16: truncated header", r->path);
	}
	text[len] = 0;
	uint64_t entry = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "arch ", 5) == 0)
			snprintf(r->info->arch, sizeof r->info->arch, "%s", line + 5);
		else if (strncmp(line, "exe ", 4) == 0)
			snprintf(r->info->program, sizeof r->info->program, "%s", line + 4);
		else if (strncmp(line, "entry ", 6) == 0)
			entry = strtoull(line + 6, NULL, 0);
	}
	free(text);
	r->offset = 16 + len;
	const struct isa *isa = isa_find(r->info->arch);
	if (!isa)
		return zerr_set(err, "%s: offset 16: unknown architecture '%s' (zond knows %s)",
				r->path, r->info->arch, isa_names());
	r->rb = rebuild_new(isa, r->syms);
	rebuild_set_tap(r->rb, r->tap, r->tap_ctx);
	if (*r->info->program)
		rebuild_set_program(r->rb, r->info->program, entry);
	return 0;
}

/* Reads and decompresses the next chunk; 0 at a clean end of file, 1 when one was read. */
static int next_chunk(struct reader *r, struct zerr *err)
{
	uint8_t head[8];
	size_t got = fread(head, 1, 8, r->f);
	if (got == 0 && feof(r->f))
		return 0;
	if (got != 8)
		return zerr_set(err, "%s: offset %" PRIu64 ": truncated chunk header", r->path,
				r->offset);
	uint32_t rawlen = zt_get_u32(head), zlen = zt_get_u32(head + 4);
	if (rawlen > ZT_MAX_CHUNK || zlen > ZSTD_compressBound(ZT_MAX_CHUNK))
		return zerr_set(err, "%s: offset %" PRIu64 ": corrupt chunk header (sizes %" PRIu32
				     ", %" PRIu32 ")", r->path, r->offset, rawlen, zlen);
	if (fread(r->z, 1, zlen, r->f) != zlen)
		return zerr_set(err, "%s: offset %" PRIu64 ": truncated chunk (%" PRIu32
				     " compressed bytes expected)", r->path, r->offset, zlen);
	size_t n = ZSTD_decompressDCtx(r->dctx, r->raw, ZT_MAX_CHUNK, r->z, zlen);
	if (ZSTD_isError(n) || n != rawlen)
		return zerr_set(err, "%s: offset %" PRIu64 ": corrupt chunk (%s)", r->path, r->offset,
				ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong length");
	r->rawlen = n;
	r->p = r->raw;
	r->end = r->raw + n;
	return 1;
}

static int flush_pending(struct reader *r, struct zerr *err)
{
	if (!r->have_pending)
		return 0;
	r->have_pending = 0;
	struct zerr e;
	if (rebuild_exec(r->rb, r->pending, r->pending_n, &e) < 0)
		return fail(r, err, "", e.msg);
	return 0;
}

static int read_define(struct reader *r, uint64_t id, struct zerr *err)
{
	uint64_t vaddr, ninsns, nbytes;
	if (get_uleb(r, &vaddr) < 0 || get_uleb(r, &ninsns) < 0 || get_uleb(r, &nbytes) < 0)
		return fail(r, err, "truncated block definition", NULL);
	if (ninsns == 0 || ninsns > ZT_MAX_BLOCK_INSNS || nbytes > ZT_MAX_BLOCK_BYTES ||
	    (size_t)(r->end - r->p) < ninsns + nbytes)
		return fail(r, err, "corrupt block definition", NULL);
	/* A damaged id would make the rebuild's tables as large as the id. */
	if (id != r->ndefined)
		return fail(r, err, "corrupt block definition (ids are not dense)", NULL);
	r->ndefined++;
	const uint8_t *sizes = r->p, *bytes = r->p + ninsns;
	uint64_t total = 0;
	for (uint64_t i = 0; i < ninsns; i++)
		total += sizes[i];
	if (total != nbytes)
		return fail(r, err, "corrupt block definition (sizes do not add up)", NULL);
	struct zerr e;
	if (rebuild_define(r->rb, (uint32_t)id, vaddr, (uint32_t)ninsns, sizes, bytes, &e) < 0)
		return fail(r, err, "", e.msg);
	r->p += ninsns + nbytes;
	return 0;
}

static int read_control(struct reader *r, uint64_t kind, struct zerr *err)
{
	uint64_t a, b, c, len;
	switch (kind) {
	case ZT_END:
		if (get_uleb(r, &a) < 0 || get_uleb(r, &b) < 0)
			return fail(r, err, "truncated end record", NULL);
		if (flush_pending(r, err) < 0)
			return -1;
		if (a != rebuild_insns(r->rb)) {
			char msg[128];
			snprintf(msg, sizeof msg, "%" PRIu64 " instructions read, the writer counted %" PRIu64,
				 rebuild_insns(r->rb), a);
			return fail(r, err, "corrupt trace: ", msg);
		}
		r->info->blocks = b;
		r->ended = 1;
		return 0;
	case ZT_MAP:
		if (get_uleb(r, &a) < 0 || get_uleb(r, &b) < 0 || get_uleb(r, &c) < 0 ||
		    get_uleb(r, &len) < 0 || len > 4096 || (size_t)(r->end - r->p) < len)
			return fail(r, err, "corrupt map record", NULL);
		char path[4097];
		memcpy(path, r->p, len);
		path[len] = 0;
		r->p += len;
		rebuild_host_map(r->rb, a, b, c, path);
		return 0;
	case ZT_EXIT:
		return get_uleb(r, &a) < 0 ? fail(r, err, "truncated exit record", NULL) : 0;
	case ZT_LOST:
		if (get_uleb(r, &a) < 0)
			return fail(r, err, "truncated record", NULL);
		r->info->lost += a;
		return 0;
	default:
		return fail(r, err, "unknown control record", NULL);
	}
}

static int read_records(struct reader *r, struct zerr *err)
{
	while (r->p < r->end) {
		uint64_t v;
		if (r->ended)
			return fail(r, err, "data after the end record", NULL);
		if (get_uleb(r, &v) < 0)
			return fail(r, err, "truncated record", NULL);
		uint64_t arg = v >> 2;
		switch (v & 3) {
		case ZT_EXEC:
			if (flush_pending(r, err) < 0)
				return -1;
			if (arg >= UINT32_MAX)
				return fail(r, err, "corrupt block id", NULL);
			r->pending = (uint32_t)arg;
			r->pending_n = rebuild_block_length(r->rb, (uint32_t)arg);
			if (!r->pending_n)
				return fail(r, err, "block executed before it was defined", NULL);
			r->have_pending = 1;
			break;
		case ZT_PARTIAL:
			if (!r->have_pending || arg == 0 || arg > r->pending_n)
				return fail(r, err, "misplaced partial-block record", NULL);
			r->pending_n = (uint32_t)arg;
			break;
		case ZT_DEFINE:
			if (read_define(r, arg, err) < 0)
				return -1;
			break;
		default:
			if (read_control(r, arg, err) < 0)
				return -1;
		}
	}
	return 0;
}

static int read_ztrace(const char *path, struct symbols *syms, struct zp_profile *p,
		       struct trace_info *info, rebuild_tap tap, void *ctx, struct zerr *err)
{
	struct reader r = {.path = path, .syms = syms, .info = info, .tap = tap, .tap_ctx = ctx};
	memset(info, 0, sizeof *info);
	r.f = fopen(path, "rb");
	if (!r.f)
		return zerr_set(err, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fileno(r.f), &st) == 0)
		info->bytes = (uint64_t)st.st_size;
	r.raw = zp_xmalloc(ZT_MAX_CHUNK);
	r.z = zp_xmalloc(ZSTD_compressBound(ZT_MAX_CHUNK));
	r.dctx = ZSTD_createDCtx();
	int rc = read_header(&r, err);
	while (rc == 0) {
		int got = next_chunk(&r, err);
		if (got <= 0) {
			rc = got;
			break;
		}
		rc = read_records(&r, err);
		r.offset = (uint64_t)ftell(r.f);
	}
	if (rc == 0 && !r.ended)
		rc = zerr_set(err, "%s: offset %" PRIu64 ": truncated trace (no end record)", path,
			      r.offset);
	if (rc == 0) {
		info->insns = rebuild_insns(r.rb);
		rc = rebuild_finish(r.rb, p, err);
		profile_set_str(&p->run.collector, "trace");
		profile_set_str(&p->run.arch, info->arch);
		profile_set_str(&p->run.clock, "icount");
	}
	rebuild_free(r.rb);
	ZSTD_freeDCtx(r.dctx);
	free(r.raw);
	free(r.z);
	fclose(r.f);
	return rc;
}

int trace_read_ztrace(const char *path, struct symbols *syms, struct zp_profile *p,
		      struct trace_info *info, struct zerr *err)
{
	return read_ztrace(path, syms, p, info, NULL, NULL, err);
}

static void print_pc(void *ctx, uint64_t pc, uint64_t word, unsigned len)
{
	uint64_t mask = len >= 8 ? UINT64_MAX : (1ull << (8 * len)) - 1;
	fprintf(ctx, "%" PRIx64 " %0*" PRIx64 "\n", pc, (int)(2 * len), word & mask);
}

int trace_ztrace_to_pcs(const char *path, struct symbols *syms, FILE *out,
			struct trace_info *info, struct zerr *err)
{
	struct zp_profile *p = profile_new();
	int rc = read_ztrace(path, syms, p, info, print_pc, out, err);
	profile_free(p);
	return rc;
}
