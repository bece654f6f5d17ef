/*
 * ztrace.c - the reader of zond's .ztrace files (format.h,
 * doc/trace-format.md): one chunk in memory at a time, records handed to
 * the rebuild as they come, so memory does not grow with the trace.
 *
 * Each guest thread has its own rebuild (its own call stack and counts) and
 * becomes a thread of the profile (tid 0 for the first).  Block definitions
 * and mappings come in the shared stream and go to every thread's rebuild;
 * they are also kept (code-sized, not trace-sized) for threads that start
 * later.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "format.h"
#include "../symbols/symbols.h"
#include "rebuild.h"
#include "trace.h"

/* The executions of one guest thread. */
struct stream {
	struct rebuild *rb;
	uint32_t n;                  /* its thread number (1: the process's first) */
	uint32_t pending, pending_n; /* the EXEC waiting for a possible PARTIAL */
	int have_pending, ended;
	uint64_t done;               /* executions handed to the rebuild */
	uint64_t next_fork;          /* the next fork point of this thread (UINT64_MAX: none) */
};

/*
 * A fork point of one process's trace: where thread `thread` had run
 * `execs` blocks, the last one making the fork system call (a child's
 * header says so).  Its parent's reader fills in the stack there; the
 * child's reader starts its first thread in it.
 */
struct fork_point {
	uint32_t thread;
	uint64_t execs;
	struct rebuild_frame *frames;
	size_t nframes;
	int found;
};

/* The fork points a trace's reader takes stacks at (its children's), and the one it starts in. */
struct forks {
	struct fork_point **wanted;
	size_t nwanted;
	const struct fork_point *seed; /* NULL: the first thread starts with an empty stack */
};

/* A shared record, kept for the threads that start after it. */
struct shared {
	int define;                    /* else a map */
	uint64_t a, b, c;              /* define: vaddr, id, ninsns; map: start, end, offset */
	size_t off, len;               /* in the blob: sizes and code, or the path */
};

struct reader {
	const char *path;
	FILE *f;
	uint64_t offset;     /* file offset of the current chunk */
	uint8_t *raw, *z;
	size_t rawlen;
	const uint8_t *p, *end;
	ZSTD_DCtx *dctx;
	const struct isa *isa;
	uint64_t entry;
	struct symbols *syms;
	struct trace_info *info;
	int ended;
	int cut; /* the file ends inside a chunk */
	int exit_last; /* the last record read was EXIT */
	struct stream **threads; /* by thread number, 1-based; NULL: not seen */
	size_t nthreads;         /* entries of threads */
	struct stream *cur;      /* the current chunk's thread, NULL for the shared stream */
	struct shared *log;
	size_t nlog;
	uint8_t *blob;
	size_t bloblen;
	rebuild_tap tap;
	void *tap_ctx;
	const struct trace_timeline *tl; /* NULL: no timeline */
	uint64_t ndefined; /* blocks defined so far: the next id (ids are dense) */
	int settled;       /* the program and its entry point checked (settle_program) */
	int reps_exact;    /* the plugin left out reps' extra runs itself (header "reps exact") */
	uint64_t execs;    /* EXEC records read (the END says how many when there is one) */
	const struct forks *forks; /* NULL: none */
	char exe[4096];    /* the header's program (settle_program may take another) */
};

static int fail(struct reader *r, struct zerr *err, const char *fmt, const char *what)
{
	return zerr_set(err, "%s: chunk at offset %" PRIu64 ", byte %zu: %s%s", r->path, r->offset,
			(size_t)(r->p - r->raw), fmt, what ? what : "");
}

/* Appends a line to info->warning (each is said on a line of its own), if there is room. */
static void note(struct trace_info *info, const char *fmt, ...)
{
	size_t w = strlen(info->warning);
	if (w + 2 >= sizeof info->warning)
		return;
	if (w)
		info->warning[w++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(info->warning + w, sizeof info->warning - w, fmt, ap);
	va_end(ap);
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
	if (version < ZT_VERSION_OLDEST || version > ZT_VERSION)
		return zerr_set(err, "%s: offset 8: trace format version %" PRIu32 ", this zond "
				     "reads %d to %d", r->path, version, ZT_VERSION_OLDEST, ZT_VERSION);
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
		if (strncmp(line, "exe ", 4) == 0)
			snprintf(r->exe, sizeof r->exe, "%s", line + 4);
		else if (strncmp(line, "entry ", 6) == 0)
			entry = strtoull(line + 6, NULL, 0);
		else if (strncmp(line, "pid ", 4) == 0)
			r->info->pid = strtoll(line + 4, NULL, 10);
		else if (strncmp(line, "run ", 4) == 0)
			snprintf(r->info->run, sizeof r->info->run, "%s", line + 4);
		else if (strncmp(line, "start ", 6) == 0)
			r->info->start_ns = strtoll(line + 6, NULL, 10);
		else if (strncmp(line, "command ", 8) == 0)
			snprintf(r->info->command, sizeof r->info->command, "%s", line + 8);
		else if (strcmp(line, "reps exact") == 0)
			r->reps_exact = 1;
		else if (strncmp(line, "parent ", 7) == 0)
			r->info->parent = strtoll(line + 7, NULL, 10);
		else if (strncmp(line, "fork ", 5) == 0 &&
			 sscanf(line + 5, "%" SCNu32 " %" SCNu64, &r->info->fork_thread,
				&r->info->fork_execs) != 2)
			r->info->parent = -1; /* a damaged fork point: no stack to start from */
	}
	free(text);
	r->offset = 16 + len;
	r->entry = entry;
	r->isa = isa_find(r->info->arch);
	if (!r->isa)
		return zerr_set(err, "%s: offset 16: unknown architecture '%s' (zond knows %s)",
				r->path, r->info->arch, isa_names());
	return 0;
}

static int replay(struct rebuild *rb, const struct reader *r, const struct shared *s,
		  struct zerr *err)
{
	const uint8_t *data = r->blob + s->off;
	if (s->define)
		return rebuild_define(rb, (uint32_t)s->b, s->a, (uint32_t)s->c, data, data + s->c,
				      err);
	char path[4097];
	memcpy(path, data, s->len);
	path[s->len] = 0;
	rebuild_host_map(rb, s->a, s->b, s->c, path);
	return 0;
}

/* Keeps a shared record and hands it to every thread's rebuild. */
static int share(struct reader *r, const struct shared *s, const uint8_t *data, struct zerr *e)
{
	r->blob = zp_xrealloc(r->blob, r->bloblen + s->len + 1);
	memcpy(r->blob + r->bloblen, data, s->len);
	r->log = zp_xrealloc(r->log, (r->nlog + 1) * sizeof *r->log);
	r->log[r->nlog] = *s;
	r->log[r->nlog].off = r->bloblen;
	r->bloblen += s->len;
	const struct shared *kept = &r->log[r->nlog++];
	for (size_t t = 0; t < r->nthreads; t++)
		if (r->threads[t] && replay(r->threads[t]->rb, r, kept, e) < 0)
			return -1;
	return 0;
}

/*
 * Whether path is a program of the trace's machine (not a library); its
 * entry point.
 */
static int guest_program(const struct reader *r, const char *path, uint64_t *entry)
{
	struct symbols_elf h;
	/*
	 * a PIE program has an interpreter or the linker's PIE flag (a
	 * static-pie has no interpreter), a library neither
	 */
	int ok = symbols_elf_header(path, &h, NULL) == 1 && h.machine == (unsigned)r->isa->elf_machine &&
		 h.bits == (r->isa->elf_class == ELFCLASS64 ? 64 : 32) &&
		 (h.type == ET_EXEC || (h.type == ET_DYN && (h.interp || h.pie)));
	if (ok)
		*entry = h.entry;
	return ok;
}

/* Whether the trace mapped path: the program was there when it ran. */
static int mapped(const struct reader *r, const char *path)
{
	size_t len = strlen(path);
	for (size_t i = 0; i < r->nlog; i++)
		if (!r->log[i].define && r->log[i].len == len &&
		    memcmp(r->blob + r->log[i].off, path, len) == 0)
			return 1;
	return 0;
}

/* A program among the files the trace mapped, into prog ("" if none); its entry point. */
static void find_mapped_program(struct reader *r, char *prog, uint64_t *entry)
{
	for (size_t i = 0; i < r->nlog && !*prog; i++) {
		const struct shared *m = &r->log[i];
		if (m->define || m->len >= sizeof r->info->program)
			continue;
		memcpy(prog, r->blob + m->off, m->len);
		prog[m->len] = 0;
		if (!guest_program(r, prog, entry))
			*prog = 0;
	}
}

/* What is lost when the header's program cannot be read (header: its path). */
static void warn_program(struct reader *r, const char *header)
{
	struct zerr e;
	if (*r->info->program)
		note(r->info, "the header's program '%.900s' cannot be read: %.900s (mapped in the "
			      "trace) is taken", header, r->info->program);
	else if (!*header)
		note(r->info, "the header names no program: its code is named by address, with no "
			      "source lines");
	else if (!symbols_is_elf(header, &e))
		note(r->info, "%.900s: its code is named by address, with no source lines", e.msg);
	else
		note(r->info, "%.900s: not a program for %s: its code is named by address, with no "
			      "source lines", header, r->isa->name);
}

/*
 * A header with a damaged entry need not cost every name: a program the
 * header does not name right is looked for among the files the trace
 * mapped, a missing entry point taken from the program (right for a
 * program loaded where it was linked).  Said in info->warning.  A program
 * the trace mapped under the header's name that is gone now (deleted,
 * unreadable) is said so: another file of the mappings would be a wrong
 * guess (on x86-64, QEMU's own executable is a program of the guest's
 * machine too).
 */
static void settle_program(struct reader *r)
{
	uint64_t entry;
	if (r->settled)
		return;
	r->settled = 1;
	char *prog = r->info->program;
	if (!*prog || !guest_program(r, prog, &entry)) {
		char header[sizeof r->info->program];
		snprintf(header, sizeof header, "%s", prog);
		*prog = 0;
		if (!*header || !mapped(r, header))
			find_mapped_program(r, prog, &entry);
		warn_program(r, header);
	}
	if (*prog && !r->entry) {
		r->entry = entry;
		note(r->info, "no entry point in the header: the program's own (0x%" PRIx64 ") is taken",
		     entry);
	}
}

/*
 * The stack at each fork point the stream has just reached (a child starts
 * in it), and the stream's next one: a look per fork, not per execution.
 */
static void take_forks(const struct reader *r, struct stream *s)
{
	s->next_fork = UINT64_MAX;
	for (size_t i = 0; r->forks && i < r->forks->nwanted; i++) {
		struct fork_point *fp = r->forks->wanted[i];
		if (fp->found || fp->thread != s->n || fp->execs < s->done)
			continue;
		if (fp->execs == s->done) {
			fp->nframes = rebuild_stack(s->rb, &fp->frames);
			fp->found = 1;
		} else if (fp->execs < s->next_fork) {
			s->next_fork = fp->execs;
		}
	}
}

/* The stream of thread n (>= 1), started with everything shared so far. */
static struct stream *thread_stream(struct reader *r, uint32_t n, struct zerr *err)
{
	if (n < r->nthreads && r->threads[n])
		return r->threads[n];
	if (r->tap && r->nthreads) {
		zerr_set(err, "%s: offset %" PRIu64 ": a trace of several threads (a PC list has one)",
			 r->path, r->offset);
		return NULL;
	}
	if (n >= r->nthreads) {
		r->threads = zp_xrealloc(r->threads, (n + 1) * sizeof *r->threads);
		memset(r->threads + r->nthreads, 0, (n + 1 - r->nthreads) * sizeof *r->threads);
		r->nthreads = n + 1;
	}
	settle_program(r);
	struct stream *s = zp_xcalloc(1, sizeof *s);
	s->n = n;
	s->rb = rebuild_new(r->isa, r->syms);
	if (n == 1 && r->forks && r->forks->seed) /* the forking thread is the child's first */
		rebuild_inherit(s->rb, r->forks->seed->frames, r->forks->seed->nframes);
	take_forks(r, s); /* its first fork point */
	if (!r->reps_exact) /* an older plugin's trace: QEMU chained its blocks, a rep's extra run kept */
		rebuild_chained(s->rb);
	rebuild_allow_patches(s->rb, 0); /* the trace holds the code as it ran */
	rebuild_set_tap(s->rb, r->tap, r->tap_ctx);
	if (r->tl)
		rebuild_set_timeline(s->rb, r->tl->events, r->tl->keep_newest);
	if (*r->info->program)
		rebuild_set_program(s->rb, r->info->program, r->entry);
	r->threads[n] = s;
	struct zerr e;
	for (size_t i = 0; i < r->nlog; i++) {
		if (replay(s->rb, r, &r->log[i], &e) < 0) {
			zerr_set(err, "%s: offset %" PRIu64 ": %s", r->path, r->offset, e.msg);
			return NULL;
		}
	}
	return s;
}

/* Reads and decompresses the next chunk; 0 at a clean end of file, 1 when one was read. */
static int next_chunk(struct reader *r, struct zerr *err)
{
	uint8_t head[12];
	size_t got = fread(head, 1, 12, r->f);
	if (got == 0 && feof(r->f))
		return 0;
	if (got != 12) {
		r->cut = 1;
		return 0;
	}
	uint32_t rawlen = zt_get_u32(head), zlen = zt_get_u32(head + 4);
	if (rawlen > ZT_MAX_CHUNK || zlen > ZSTD_compressBound(ZT_MAX_CHUNK))
		return zerr_set(err, "%s: offset %" PRIu64 ": corrupt chunk header (sizes %" PRIu32
				     ", %" PRIu32 ")", r->path, r->offset, rawlen, zlen);
	if (fread(r->z, 1, zlen, r->f) != zlen) {
		r->cut = 1; /* the writer was stopped in this chunk */
		return 0;
	}
	size_t n = ZSTD_decompressDCtx(r->dctx, r->raw, ZT_MAX_CHUNK, r->z, zlen);
	if (ZSTD_isError(n) || n != rawlen)
		return zerr_set(err, "%s: offset %" PRIu64 ": corrupt chunk (%s)", r->path, r->offset,
				ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong length");
	uint32_t thread = zt_get_u32(head + 8);
	if (thread > ZT_MAX_THREADS)
		return zerr_set(err, "%s: offset %" PRIu64 ": corrupt chunk header (thread %" PRIu32
				     ")", r->path, r->offset, thread);
	r->cur = NULL;
	if (thread && !(r->cur = thread_stream(r, thread, err)))
		return -1;
	r->rawlen = n;
	r->p = r->raw;
	r->end = r->raw + n;
	return 1;
}

static int flush_pending(struct reader *r, struct stream *s, struct zerr *err)
{
	if (!s->have_pending)
		return 0;
	s->have_pending = 0;
	struct zerr e;
	if (rebuild_exec(s->rb, s->pending, s->pending_n, &e) < 0)
		return fail(r, err, "", e.msg);
	if (++s->done == s->next_fork)
		take_forks(r, s);
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
	(void)bytes;
	struct zerr e;
	struct shared sh = {1, vaddr, id, ninsns, 0, ninsns + nbytes};
	if (share(r, &sh, sizes, &e) < 0)
		return fail(r, err, "", e.msg);
	r->p += ninsns + nbytes;
	return 0;
}

/* Instructions of every thread so far, as count says one thread's. */
static uint64_t all_insns(const struct reader *r, uint64_t (*count)(const struct rebuild *))
{
	uint64_t n = 0;
	for (size_t t = 0; t < r->nthreads; t++)
		n += r->threads[t] ? count(r->threads[t]->rb) : 0;
	return n;
}

static int read_end(struct reader *r, struct zerr *err)
{
	uint64_t a, b;
	struct stream *s = r->cur;
	if (get_uleb(r, &a) < 0 || get_uleb(r, &b) < 0)
		return fail(r, err, "truncated end record", NULL);
	if (s && flush_pending(r, s, err) < 0)
		return -1;
	for (size_t t = 0; !s && t < r->nthreads; t++)
		if (r->threads[t] && !r->threads[t]->ended)
			return fail(r, err, "truncated trace: a thread has no end record", NULL);
	uint64_t n = s ? rebuild_insns_run(s->rb) : all_insns(r, rebuild_insns_run);
	if (a != n) {
		char msg[128];
		snprintf(msg, sizeof msg, "%" PRIu64 " instructions read, the writer counted %" PRIu64,
			 n, a);
		return fail(r, err, "corrupt trace: ", msg);
	}
	if (s) {
		s->ended = 1;
	} else {
		r->info->blocks = b;
		r->ended = 1;
	}
	return 0;
}

static int read_control(struct reader *r, uint64_t kind, struct zerr *err)
{
	uint64_t a, len;
	struct zerr e;
	if (kind == ZT_END)
		return read_end(r, err);
	if (r->cur)
		return fail(r, err, "corrupt trace: a shared record in a thread's stream", NULL);
	switch (kind) {
	case ZT_MAP: {
		struct shared sh = {0};
		if (get_uleb(r, &sh.a) < 0 || get_uleb(r, &sh.b) < 0 || get_uleb(r, &sh.c) < 0 ||
		    get_uleb(r, &len) < 0 || len > 4096 || (size_t)(r->end - r->p) < len)
			return fail(r, err, "corrupt map record", NULL);
		sh.len = len;
		if (share(r, &sh, r->p, &e) < 0)
			return fail(r, err, "", e.msg);
		r->p += len;
		return 0;
	}
	case ZT_EXIT:
		if (get_uleb(r, &a) < 0)
			return fail(r, err, "truncated exit record", NULL);
		if (a < 256) {
			r->info->exit_status = (int)a;
			r->info->term_signal = 0;
		} else if (a - 256 < 128) {
			r->info->exit_status = -1;
			r->info->term_signal = (int)(a - 256);
		} /* else informational only: an unknown status is not an error */
		r->exit_last = 1;
		return 0;
	case ZT_LOST:
		if (get_uleb(r, &a) < 0)
			return fail(r, err, "truncated record", NULL);
		r->info->lost += a;
		return 0;
	default:
		return fail(r, err, "unknown control record", NULL);
	}
}

static int read_exec(struct reader *r, struct stream *s, uint64_t arg, struct zerr *err)
{
	if (flush_pending(r, s, err) < 0)
		return -1;
	if (arg >= UINT32_MAX)
		return fail(r, err, "corrupt block id", NULL);
	r->execs++;
	s->pending = (uint32_t)arg;
	s->pending_n = rebuild_block_length(s->rb, (uint32_t)arg);
	if (!s->pending_n)
		return fail(r, err, "block executed before it was defined", NULL);
	s->have_pending = 1;
	return 0;
}

static int read_records(struct reader *r, struct zerr *err)
{
	while (r->p < r->end) {
		uint64_t v;
		struct stream *s = r->cur;
		if (r->ended || (s && s->ended))
			return fail(r, err, "data after the end record", NULL);
		if (get_uleb(r, &v) < 0)
			return fail(r, err, "truncated record", NULL);
		r->exit_last = 0;
		uint64_t arg = v >> 2;
		if ((v & 3) < ZT_DEFINE && !s)
			return fail(r, err, "corrupt trace: an execution in the shared stream", NULL);
		switch (v & 3) {
		case ZT_EXEC:
			if (read_exec(r, s, arg, err) < 0)
				return -1;
			break;
		case ZT_PARTIAL:
			if (!s->have_pending || arg == 0 || arg > s->pending_n)
				return fail(r, err, "misplaced partial-block record", NULL);
			s->pending_n = (uint32_t)arg;
			break;
		case ZT_DEFINE:
			if (s)
				return fail(r, err, "corrupt trace: a definition in a thread's stream",
					    NULL);
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

/*
 * A trace without its final END: the complete chunks are used, each
 * thread's last execution included.  Refused when they hold no execution at
 * all.  Cut short (the recording was killed, the program exec'd or crashed
 * in a way QEMU could not report, the file was cut) unless it ends, whole,
 * with the EXIT record `zond trace record` appends to the records it
 * completes the trace with after the program was killed by a signal
 * (tool/trace/tail.h): then nothing is missing.
 */
static int read_cut(struct reader *r, struct zerr *err)
{
	for (size_t t = 0; t < r->nthreads; t++)
		if (r->threads[t] && !r->threads[t]->ended && flush_pending(r, r->threads[t], err) < 0)
			return -1;
	if (!r->cut && r->exit_last && r->info->term_signal > 0)
		r->info->completed = 1;
	else
		r->info->cut = r->offset;
	r->info->blocks = r->execs;
	if (all_insns(r, rebuild_insns) == 0)
		return zerr_set(err, "%s: offset %" PRIu64 ": truncated trace (%s)", r->path, r->offset,
				r->offset > 16 ? "no complete chunk of executions" : "no chunk");
	return 0;
}

/*
 * The mapped files no thread's rebuild could open, one warning each (the
 * program's own is settle_program's): a guest library among them is named
 * by address.  QEMU's own files are mapped too, but read as well.
 */
static void warn_unreadable(struct reader *r)
{
	char line[4400];
	for (size_t t = 0; t < r->nthreads; t++) {
		const char *const *files;
		size_t n = r->threads[t] ? rebuild_unreadable(r->threads[t]->rb, &files) : 0;
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(r->exe);
			if (len && strncmp(files[i], r->exe, len) == 0 && files[i][len] == ':')
				continue;
			snprintf(line, sizeof line, "%s: its code is named by address, with no source "
						   "lines", files[i]);
			if (!strstr(r->info->warning, line))
				note(r->info, "%s", line);
		}
	}
}

/* Code that ran unlike its file: one warning (each thread's rebuild saw its own). */
static void warn_patched(struct reader *r)
{
	char line[4400];
	for (size_t t = 0; t < r->nthreads; t++) {
		if (r->threads[t] && rebuild_patched(r->threads[t]->rb, line, sizeof line)) {
			note(r->info, "%s", line);
			return;
		}
	}
}

/* Every thread's profile into p, the first thread as tid 0, with the process's pid. */
static int finish(struct reader *r, struct zp_profile *p, struct zerr *err)
{
	r->info->insns = all_insns(r, rebuild_insns);
	warn_unreadable(r);
	warn_patched(r);
	size_t first = p->nthreads;
	struct zerr e;
	for (size_t t = 0; t < r->nthreads; t++)
		if (r->threads[t] && rebuild_finish_thread(r->threads[t]->rb, p, (int64_t)t - 1,
							   &e) < 0)
			return zerr_set(err, "%s: %s", r->path, e.msg);
	for (size_t t = first; t < p->nthreads; t++)
		p->threads[t].pid = r->info->pid;
	if (!p->run.pid) /* the run's process: the first trace read, a forked child's come after */
		p->run.pid = r->info->pid;
	profile_event(p, "Ir", "instructions");
	profile_set_str(&p->run.collector, "trace");
	profile_set_str(&p->run.arch, r->info->arch);
	profile_set_str(&p->run.clock, "icount");
	return 0;
}

/* How to read one trace: a timeline, a tap, fork points (each NULL: none). */
struct read_opts {
	const struct trace_timeline *tl;
	rebuild_tap tap;
	void *tap_ctx;
	const struct forks *forks;
};

/* Only the header of a trace into info (for the fork points of a recording's traces). */
static int read_head(const char *path, struct trace_info *info, struct zerr *err)
{
	struct reader r = {.path = path, .info = info};
	memset(info, 0, sizeof *info);
	info->exit_status = -1;
	r.f = trace_open(path, &info->bytes, err);
	if (!r.f)
		return -1;
	int rc = read_header(&r, err);
	fclose(r.f);
	return rc;
}

static int read_ztrace(const char *path, const struct read_opts *o, struct symbols *syms,
		       struct zp_profile *p, struct trace_info *info, struct zerr *err)
{
	struct reader r = {.path = path, .syms = syms, .info = info, .tap = o->tap,
			   .tap_ctx = o->tap_ctx, .tl = o->tl, .forks = o->forks};
	memset(info, 0, sizeof *info);
	info->exit_status = -1;
	r.f = trace_open(path, &info->bytes, err);
	if (!r.f)
		return -1;
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
		rc = read_cut(&r, err);
	if (rc == 0)
		rc = finish(&r, p, err);
	for (size_t t = 0; t < r.nthreads; t++) {
		if (r.threads[t])
			rebuild_free(r.threads[t]->rb);
		free(r.threads[t]);
	}
	free(r.threads);
	free(r.log);
	free(r.blob);
	ZSTD_freeDCtx(r.dctx);
	free(r.raw);
	free(r.z);
	fclose(r.f);
	return rc;
}

FILE *trace_open(const char *path, uint64_t *bytes, struct zerr *err)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	if (!f) {
		zerr_set(err, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		zerr_set(err, "%s: is a directory, not a trace file", path);
		return NULL;
	}
	*bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	return f;
}

int trace_read_ztrace(const char *path, struct symbols *syms, struct zp_profile *p,
		      struct trace_info *info, struct zerr *err)
{
	struct read_opts o = {0};
	return read_ztrace(path, &o, syms, p, info, err);
}

/* The pids of the files BASE.PID beside path (base its last component), ascending. */
static size_t child_pids(const char *path, int64_t **pids)
{
	char dir[4096];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	size_t n = 0, len = strlen(base);
	*pids = NULL;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		const char *tail = e->d_name + len;
		if (strncmp(e->d_name, base, len) != 0 || tail[0] != '.' || !tail[1] ||
		    strspn(tail + 1, "0123456789") != strlen(tail + 1) || strlen(tail + 1) > 10)
			continue;
		*pids = zp_xrealloc(*pids, (n + 1) * sizeof **pids);
		(*pids)[n++] = strtoll(tail + 1, NULL, 10);
	}
	if (d)
		closedir(d);
	for (size_t i = 1; i < n; i++) /* few: insertion sort */
		for (size_t j = i; j > 0 && (*pids)[j - 1] > (*pids)[j]; j--) {
			int64_t t = (*pids)[j];
			(*pids)[j] = (*pids)[j - 1];
			(*pids)[j - 1] = t;
		}
	return n;
}

/* A process's trace of the recording, its header read first for its fork point. */
struct member {
	char file[4096 + 32];
	struct trace_info head;
	struct fork_point fp; /* where its parent forked it (head.parent) */
	int read;
};

/* The notes of a process's reader (one line each) into the run's info, each once. */
static void add_notes(struct trace_info *info, const char *notes)
{
	char line[sizeof info->warning];
	for (const char *p = notes; *p;) {
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof line, "%.*s", (int)n, p);
		if (!strstr(info->warning, line))
			note(info, "%s", line);
		p += n + (p[n] == '\n');
	}
}

/* One child's trace into p, or a note in info->warning of why it is left out. */
static void read_child(const struct member *m, const struct read_opts *o, struct symbols *syms,
		       struct zp_profile *p, struct trace_info *info, size_t *nread)
{
	struct trace_info ci;
	struct zerr e;
	struct zp_profile *q = profile_new();
	if (read_ztrace(m->file, o, syms, q, &ci, &e) < 0) {
		note(info, "%s (left out)", e.msg);
	} else {
		profile_merge(p, q);
		/* the run's timeline facts count every process's (profile_merge keeps no meta) */
		static const char *const counts[] = {"timeline_events", "timeline_dropped"};
		for (size_t i = 0; i < 2; i++) {
			const char *v = profile_meta(q, counts[i]);
			profile_add_count(p, counts[i], v ? strtoull(v, NULL, 10) : 0);
		}
		info->insns += ci.insns;
		info->blocks += ci.blocks;
		info->lost += ci.lost;
		info->bytes += ci.bytes;
		(*nread)++;
		add_notes(info, ci.warning);
		if (ci.cut)
			note(info, "%s: cut short at offset %" PRIu64
			     " (the process died or exec'd): read up to there", m->file, ci.cut);
	}
	profile_free(q);
}

/*
 * The traces BASE.PID beside path of the same recording (run token) as
 * root, other than root's process, by ascending pid.  A file whose header
 * cannot be read is a note, unless it is no trace at all.
 */
static size_t members_of(const char *path, const struct trace_info *root, struct member **out,
			 struct trace_info *info)
{
	int64_t *pids;
	size_t n = child_pids(path, &pids), k = 0;
	*out = zp_xcalloc(n ? n : 1, sizeof **out);
	for (size_t i = 0; i < n; i++) {
		struct member *m = &(*out)[k];
		struct zerr e;
		snprintf(m->file, sizeof m->file, "%s.%" PRId64, path, pids[i]);
		if (read_head(m->file, &m->head, &e) < 0) {
			/* A file of another recording is not this one's child: not a word. */
			if (strstr(e.msg, "offset 0:") == NULL)
				note(info, "%s (left out)", e.msg);
			continue;
		}
		if (*m->head.run && strcmp(m->head.run, root->run) == 0 && m->head.pid != root->pid) {
			m->fp = (struct fork_point){m->head.fork_thread, m->head.fork_execs, NULL, 0, 0};
			k++;
		}
	}
	free(pids);
	return k;
}

/* The fork points of pid's children among ms, for pid's reader. */
static struct forks forks_of(int64_t pid, struct member *ms, size_t n)
{
	struct forks f = {zp_xcalloc(n ? n : 1, sizeof *f.wanted), 0, NULL};
	for (size_t i = 0; i < n; i++)
		if (ms[i].head.parent == pid)
			f.wanted[f.nwanted++] = &ms[i].fp;
	return f;
}

/* Whether m's parent has been read (the root, or a member read already). */
static int parent_read(const struct member *m, const struct trace_info *root,
		       const struct member *ms, size_t n)
{
	if (m->head.parent <= 0)
		return 0;
	if (m->head.parent == root->pid)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (ms[i].read && ms[i].head.pid == m->head.parent)
			return 1;
	return 0;
}

/*
 * Reads member m, in the stack its parent had at the fork when the
 * parent's trace reached it (else a note: its stack starts at the fork's
 * return, as for a trace of version 2, which names no parent).
 */
static void read_member(struct member *m, struct member *ms, size_t n, const struct read_opts *o,
			struct symbols *syms, struct zp_profile *p, struct trace_info *info,
			size_t *nread)
{
	struct forks f = forks_of(m->head.pid, ms, n);
	f.seed = m->fp.found ? &m->fp : NULL;
	if (m->head.parent && !m->fp.found)
		note(info, "%s: its parent's trace does not reach the fork: its calls are filed "
			   "from the fork's return on, with no caller", m->file);
	struct read_opts mo = *o;
	mo.forks = &f;
	read_child(m, &mo, syms, p, info, nread);
	m->read = 1;
	free(f.wanted);
}

int trace_read_ztrace_family(const char *path, const struct trace_timeline *tl,
			     struct symbols *syms, struct zp_profile *p, struct trace_info *info,
			     size_t *children, struct zerr *err)
{
	struct trace_info root;
	struct read_opts o = {.tl = tl};
	*children = 0;
	if (read_head(path, &root, err) < 0)
		return -1;
	struct member *ms = NULL;
	size_t n = *root.run ? members_of(path, &root, &ms, &root) : 0; /* none: an older trace */
	struct forks f = forks_of(root.pid, ms, n);
	o.forks = &f;
	char notes[sizeof root.warning];
	snprintf(notes, sizeof notes, "%s", root.warning);
	int rc = read_ztrace(path, &o, syms, p, info, err);
	free(f.wanted);
	o.forks = NULL;
	add_notes(info, notes);
	/* parents before their children, each child in the stack of its fork */
	for (int more = rc == 0; more;) {
		more = 0;
		for (size_t i = 0; i < n; i++)
			if (!ms[i].read && parent_read(&ms[i], &root, ms, n)) {
				read_member(&ms[i], ms, n, &o, syms, p, info, children);
				more = 1;
			}
	}
	for (size_t i = 0; rc == 0 && i < n; i++) /* no parent named (version 2), or not read */
		if (!ms[i].read)
			read_member(&ms[i], ms, n, &o, syms, p, info, children);
	for (size_t i = 0; i < n; i++)
		free(ms[i].fp.frames);
	free(ms);
	return rc;
}

/* The pcs writer: its file and the errno of its first failed write (0: none). */
struct pcs_out {
	FILE *f;
	int err;
};

static void print_pc(void *ctx, uint64_t pc, uint64_t word, unsigned len)
{
	struct pcs_out *o = ctx;
	uint64_t mask = len >= 8 ? UINT64_MAX : (1ull << (8 * len)) - 1;
	/*
	 * A word holds 8 bytes: a longer instruction (x86-64) goes without
	 * one, its bytes read from the program (import --elf), not padded
	 * with zeros for bytes it does not have.
	 */
	int rc = len > 8 ? fprintf(o->f, "%" PRIx64 "\n", pc)
			 : fprintf(o->f, "%" PRIx64 " %0*" PRIx64 "\n", pc, (int)(2 * len), word & mask);
	if (rc < 0 && !o->err)
		o->err = errno ? errno : EIO;
}

int trace_ztrace_to_pcs(const char *path, struct symbols *syms, FILE *out,
			struct trace_info *info, struct zerr *err)
{
	struct zp_profile *p = profile_new();
	struct pcs_out po = {.f = out};
	struct read_opts o = {.tap = print_pc, .tap_ctx = &po};
	int rc = read_ztrace(path, &o, syms, p, info, err);
	profile_free(p);
	if (po.err) /* what the caller's output_close reports, not a later call's errno */
		errno = po.err;
	return rc;
}
