/*
 * import.c - traces zond did not write: QEMU's `-d in_asm,exec,nochain` log
 * and the plain "pcs" list (doc/trace-format.md).  Both become the same
 * calls to the one-pass rebuild as a .ztrace: blocks defined once (address,
 * instruction sizes and bytes), then executions of blocks, so the same run
 * gives the same profile whichever way it was traced.
 *
 * QEMU's log lists each translated block once ("IN:" and one line per
 * instruction with its encoding), then a "Trace" line per execution naming
 * the block by guest PC.  A PC list has one executed instruction a line; we
 * cut it into blocks ourselves: a block ends after a control transfer or
 * where the next PC does not follow.  Instruction bytes come from the line
 * (its word) or from the program's ELF file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "../symbols/symbols.h"
#include "hmap.h"
#include "rebuild.h"
#include "trace.h"

#define NONE UINT32_MAX
#define MAX_LINE 4096 /* longer lines are refused: no format needs them */

/* The executable segments of the program, for PC lists without words. */
struct segment {
	uint64_t start, size;
	uint8_t *data;
};

/* A block being gathered: from the log's listing, or from consecutive PCs. */
struct gather {
	uint64_t start, next;
	uint32_t n;
	size_t nbytes;
	int last_transfers; /* the last instruction may leave the block */
	uint8_t sizes[ZT_MAX_BLOCK_INSNS];
	uint8_t bytes[ZT_MAX_BLOCK_BYTES];
};

/* A block handed to the rebuild: its identity is its address and bytes. */
struct known {
	uint64_t start;
	uint32_t n;
	uint32_t nbytes;
	uint8_t *bytes;
};

struct importer {
	const char *path;
	const struct isa *isa;
	struct rebuild *rb;
	struct trace_info *info;
	uint64_t line;
	struct segment *segs;
	size_t nsegs;
	struct gather g;
	struct known *known;
	size_t nknown;
	struct hmap ids;       /* (start, hash of bytes + k) -> index in known */
	struct hmap by_pc;     /* qemu-log: guest PC -> index in latest */
	uint32_t *latest;      /* the block QEMU translated last at a PC */
	size_t nlatest;
	int in_listing;        /* qemu-log: inside an IN: listing */
	uint64_t part_pc;      /* qemu-log: an instruction listed as bytes, not all read yet */
	uint8_t part[16];
	size_t npart;
};

static int bad(struct importer *im, struct zerr *err, const char *msg)
{
	return zerr_set(err, "%s: line %" PRIu64 ": %s", im->path, im->line, msg);
}

/* ---- the program's code ------------------------------------------------- */

static int load_segments(struct importer *im, const char *elf, uint64_t bias, struct zerr *err)
{
	struct symbols_segment *segs;
	size_t n;
	if (symbols_code_segments(elf, &segs, &n, err) < 0)
		return -1;
	im->segs = zp_xrealloc(im->segs, (im->nsegs + n) * sizeof *im->segs);
	for (size_t i = 0; i < n; i++)
		im->segs[im->nsegs++] = (struct segment){segs[i].vaddr + bias, segs[i].size,
							 segs[i].bytes};
	free(segs); /* their bytes are im's now */
	return 0;
}

/* The bytes at run-time address pc in the program (n available), or NULL. */
static const uint8_t *code_at(const struct importer *im, uint64_t pc, size_t *n)
{
	for (size_t i = 0; i < im->nsegs; i++) {
		const struct segment *s = &im->segs[i];
		if (pc >= s->start && pc - s->start < s->size) {
			*n = (size_t)(s->size - (pc - s->start));
			return s->data + (pc - s->start);
		}
	}
	return NULL;
}

/* ---- blocks ------------------------------------------------------------- */

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The rebuild's id of the gathered block, defining it the first time. */
static int block_id(struct importer *im, uint32_t *id, struct zerr *err)
{
	struct gather *g = &im->g;
	uint64_t h = fnv(g->bytes, g->nbytes) ^ g->n;
	for (uint64_t k = 0;; k++) {
		uint32_t i = hmap_get(&im->ids, g->start, h + k);
		if (i == NONE)
			break;
		struct known *b = &im->known[i];
		if (b->n == g->n && b->nbytes == g->nbytes && memcmp(b->bytes, g->bytes, g->nbytes) == 0) {
			*id = i;
			return 0;
		}
	}
	struct zerr e;
	uint32_t next = (uint32_t)im->nknown;
	if (rebuild_define(im->rb, next, g->start, g->n, g->sizes, g->bytes, &e) < 0)
		return bad(im, err, e.msg);
	uint64_t k = 0;
	while (hmap_get(&im->ids, g->start, h + k) != NONE)
		k++;
	hmap_put(&im->ids, g->start, h + k, next);
	im->known = zp_xrealloc(im->known, (im->nknown + 1) * sizeof *im->known);
	uint8_t *copy = zp_xmalloc(g->nbytes);
	memcpy(copy, g->bytes, g->nbytes);
	im->known[im->nknown++] = (struct known){g->start, g->n, (uint32_t)g->nbytes, copy};
	*id = next;
	return 0;
}

static int exec_block(struct importer *im, uint32_t id, struct zerr *err)
{
	struct zerr e;
	if (rebuild_exec(im->rb, id, im->known[id].n, &e) < 0)
		return bad(im, err, e.msg);
	im->info->blocks++;
	return 0;
}

/* Adds one instruction to the gathered block; -1 if the bytes are not one instruction. */
static int gather_insn(struct importer *im, uint64_t pc, const uint8_t *b, size_t len,
		       struct zerr *err)
{
	struct gather *g = &im->g;
	if (im->isa->length(b, len) != len)
		return bad(im, err, "the instruction word does not have its encoding's length");
	if (!g->n)
		g->start = g->next = pc;
	if (pc != g->next)
		return bad(im, err, "instruction does not follow the one before in its block");
	memcpy(g->bytes + g->nbytes, b, len);
	g->sizes[g->n++] = (uint8_t)len;
	g->nbytes += len;
	g->next = pc + len;
	struct zi_insn zi;
	im->isa->classify(b, len, pc, &zi);
	g->last_transfers = zi.cls != ZI_OTHER;
	return 0;
}

static int gather_full(const struct importer *im)
{
	return im->g.n == ZT_MAX_BLOCK_INSNS || im->g.nbytes + 16 > ZT_MAX_BLOCK_BYTES;
}

/* ---- hex ---------------------------------------------------------------- */

/* Parses hex digits (after an optional 0x) at *s; the number of digits, 0 if none. */
static int parse_hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	int digits = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	*v = 0;
	for (;; p++, digits++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (digits == 16)
			return 0;
		*v = *v << 4 | (uint64_t)d;
	}
	*s = p;
	return digits;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The little-endian bytes of an instruction word; its length from its encoding. */
static size_t word_bytes(const struct importer *im, uint64_t word, uint8_t *b)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(word >> (8 * i));
	return im->isa->length(b, 8);
}

/* ---- lines -------------------------------------------------------------- */

/*
 * Reads the next line into buf (MAX_LINE + 2 bytes) without its newline: 1,
 * or 0 at the end of the file, -1 for a line too long or a NUL byte (not a
 * text trace).  Never reads more than one line's limit: memory and time
 * stay bounded on any input (/dev/zero, a file without newlines).
 */
static int next_line(struct importer *im, FILE *f, char *buf, struct zerr *err)
{
	size_t n = 0;
	int c = EOF;
	while (n <= MAX_LINE && (c = getc_unlocked(f)) != EOF && c != '\n') {
		if (c == 0)
			return im->line++, bad(im, err, "NUL byte (not a text trace)");
		buf[n++] = (char)c;
	}
	if (n == 0 && c == EOF)
		return 0;
	im->line++;
	if (n > MAX_LINE)
		return bad(im, err, "line too long (not a trace of this format?)");
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = 0;
	return 1;
}

/* ---- pcs ---------------------------------------------------------------- */

static int flush_gathered(struct importer *im, struct zerr *err)
{
	if (!im->g.n)
		return 0;
	uint32_t id;
	int rc = block_id(im, &id, err) < 0 || exec_block(im, id, err) < 0 ? -1 : 0;
	im->g.n = 0;
	im->g.nbytes = 0;
	return rc;
}

static int pcs_line(struct importer *im, const char *s, struct zerr *err)
{
	uint64_t pc, word;
	s = skip_blanks(s);
	if (!*s || *s == '#')
		return 0;
	if (!parse_hex(&s, &pc) || (*s && *s != ' ' && *s != '\t'))
		return bad(im, err, "expected a hexadecimal PC");
	s = skip_blanks(s);
	uint8_t wb[8];
	const uint8_t *b;
	size_t len, avail;
	if (*s && *s != '#') {
		if (!parse_hex(&s, &word) || (*s && *s != ' ' && *s != '\t' && *s != '#'))
			return bad(im, err, "expected a hexadecimal instruction word after the PC");
		b = wb;
		len = word_bytes(im, word, wb);
		if (!len)
			return bad(im, err, "the instruction word is no instruction");
	} else {
		b = code_at(im, pc, &avail);
		if (!b) {
			char msg[128];
			snprintf(msg, sizeof msg, "no instruction word for 0x%" PRIx64
				 " and no program code there (--elf)", pc);
			return bad(im, err, msg);
		}
		len = im->isa->length(b, avail);
		if (!len)
			return bad(im, err, "instruction runs past the end of the program's code");
	}
	/* Control arrived other than by falling through: a new block. */
	if (im->g.n && (pc != im->g.next || im->g.last_transfers || gather_full(im)))
		if (flush_gathered(im, err) < 0)
			return -1;
	return gather_insn(im, pc, b, len, err);
}

/* ---- qemu-log ----------------------------------------------------------- */

static int end_listing(struct importer *im, struct zerr *err)
{
	im->in_listing = 0;
	if (im->npart)
		return bad(im, err, "the instruction listed before is cut short");
	if (!im->g.n)
		return 0;
	uint32_t id;
	if (block_id(im, &id, err) < 0)
		return -1;
	uint32_t slot = hmap_get(&im->by_pc, im->g.start, 0);
	if (slot == NONE) {
		slot = (uint32_t)im->nlatest++;
		im->latest = zp_xrealloc(im->latest, im->nlatest * sizeof *im->latest);
		hmap_put(&im->by_pc, im->g.start, 0, slot);
	}
	im->latest[slot] = id;
	im->g.n = 0;
	im->g.nbytes = 0;
	return 0;
}

static int is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * "0x004014f2:  49 89 d1     movq ..." (x86): the instruction's bytes in
 * memory order, at most 8 a line; a longer one goes on at the next line's
 * address with its other bytes and no mnemonic.  An instruction is
 * complete when its bytes are its encoding's length.
 */
static int listing_bytes(struct importer *im, uint64_t pc, const char *s, struct zerr *err)
{
	if (im->npart && pc != im->part_pc + im->npart)
		return bad(im, err, "the instruction listed before is cut short");
	if (!im->npart)
		im->part_pc = pc;
	for (; is_hex_digit(s[0]) && is_hex_digit(s[1]) && (s[2] == ' ' || !s[2]); s += 3) {
		if (im->npart == sizeof im->part)
			return bad(im, err, "instruction bytes longer than any instruction");
		char pair[3] = {s[0], s[1], 0};
		im->part[im->npart++] = (uint8_t)strtoul(pair, NULL, 16);
		if (!s[2])
			break;
	}
	size_t len = im->isa->length(im->part, im->npart);
	if (!len)
		return 0; /* more bytes on the next line */
	if (len != im->npart)
		return bad(im, err, "instruction bytes of the wrong length for their encoding");
	if (gather_full(im))
		return bad(im, err, "block listing too long");
	im->npart = 0;
	return gather_insn(im, im->part_pc, im->part, len, err);
}

/* "0x0000000000010554:  022000ef          jal ..." inside an IN: listing. */
static int listing_line(struct importer *im, const char *s, struct zerr *err)
{
	uint64_t pc, word;
	if (!parse_hex(&s, &pc) || *s != ':')
		return bad(im, err, "expected 'ADDRESS:' in a block listing");
	s = skip_blanks(s + 1);
	if (is_hex_digit(s[0]) && is_hex_digit(s[1]) && (s[2] == ' ' || !s[2]))
		return listing_bytes(im, pc, s, err);
	if (im->npart)
		return bad(im, err, "the instruction listed before is cut short");
	const char *w = s;
	int digits = parse_hex(&s, &word);
	if (!digits || (w[0] == '0' && w[1] == 'x') || (*s && *s != ' ' && *s != '\t'))
		return bad(im, err, "expected the instruction word after the address (a log of "
				    "-d in_asm from a QEMU with a disassembler)");
	uint8_t b[8];
	size_t len = word_bytes(im, word, b);
	if (len * 2 != (size_t)digits)
		return bad(im, err, "instruction word of the wrong length for its encoding");
	if (gather_full(im))
		return bad(im, err, "block listing too long");
	return gather_insn(im, pc, b, len, err);
}

/* "Trace 0: 0x7f5d48000100 [0000000000000000/0000000000010554/00207600/00000200] _start" */
static int trace_line(struct importer *im, const char *s, struct zerr *err)
{
	uint64_t cpu, host, cs_base, pc;
	s += 6;
	if (!parse_hex(&s, &cpu) || *s != ':')
		return bad(im, err, "malformed Trace line");
	s = skip_blanks(s + 1);
	if (!parse_hex(&s, &host) || *(s = skip_blanks(s)) != '[')
		return bad(im, err, "malformed Trace line");
	s++;
	if (!parse_hex(&s, &cs_base) || *s != '/' || (s++, !parse_hex(&s, &pc)) || *s != '/')
		return bad(im, err, "malformed Trace line");
	if (cpu != 0) {
		im->info->lost++;
		return 0;
	}
	uint32_t slot = hmap_get(&im->by_pc, pc, 0);
	if (slot == NONE) {
		char msg[160];
		snprintf(msg, sizeof msg, "block at 0x%" PRIx64 " executed but never listed (log "
			 "written without -d in_asm?)", pc);
		return bad(im, err, msg);
	}
	return exec_block(im, im->latest[slot], err);
}

static int qemu_log_line(struct importer *im, const char *s, struct zerr *err)
{
	if (im->in_listing) {
		if (strncmp(s, "0x", 2) == 0)
			return listing_line(im, s, err);
		if (end_listing(im, err) < 0)
			return -1;
	}
	if (strncmp(s, "IN:", 3) == 0) {
		im->in_listing = 1;
		return 0;
	}
	if (strncmp(s, "Trace ", 6) == 0)
		return trace_line(im, s, err);
	/* Other logging (separators, blank lines, other -d items): not ours. */
	return 0;
}

/* ---- common ------------------------------------------------------------- */

static void importer_free(struct importer *im)
{
	rebuild_free(im->rb);
	for (size_t i = 0; i < im->nsegs; i++)
		free(im->segs[i].data);
	for (size_t i = 0; i < im->nknown; i++)
		free(im->known[i].bytes);
	free(im->segs);
	free(im->known);
	free(im->latest);
	hmap_free(&im->ids);
	hmap_free(&im->by_pc);
}

/* Sets up the rebuild for the program, if one is named. */
static int start(struct importer *im, const struct trace_import *o, struct symbols *syms,
		 struct zerr *err)
{
	im->isa = isa_find(o->arch);
	if (!im->isa)
		return zerr_set(err, "unknown architecture '%s' (zond knows %s)", o->arch ? o->arch : "",
				isa_names());
	snprintf(im->info->arch, sizeof im->info->arch, "%s", im->isa->name);
	im->rb = rebuild_new(im->isa, syms);
	rebuild_set_timeline(im->rb, o->timeline.events, o->timeline.keep_newest);
	if (!o->elf)
		return 0;
	char real[PATH_MAX];
	if (!realpath(o->elf, real))
		return zerr_set(err, "%s: %s", o->elf, strerror(errno));
	snprintf(im->info->program, sizeof im->info->program, "%s", real);
	if (rebuild_add_module(im->rb, real, o->bias, err) < 0)
		return -1;
	return load_segments(im, real, o->bias, err);
}

static int import(const char *path, const struct trace_import *o, struct symbols *syms,
		  struct zp_profile *p, struct trace_info *info, struct zerr *err, int qemu_log)
{
	struct importer im = {.path = path, .info = info};
	memset(info, 0, sizeof *info);
	info->exit_status = -1;
	int rc = start(&im, o, syms, err);
	FILE *f = rc == 0 ? trace_open(path, &info->bytes, err) : NULL;
	if (rc == 0 && !f)
		rc = -1;
	char *buf = zp_xmalloc(MAX_LINE + 2);
	int got;
	while (rc == 0 && (got = next_line(&im, f, buf, err)) != 0)
		rc = got < 0 ? -1 : qemu_log ? qemu_log_line(&im, buf, err) : pcs_line(&im, buf, err);
	if (rc == 0)
		rc = qemu_log ? end_listing(&im, err) : flush_gathered(&im, err);
	if (rc == 0 && f && ferror(f))
		rc = zerr_set(err, "%s: read error", path);
	if (rc == 0 && rebuild_insns(im.rb) == 0)
		rc = zerr_set(err, "%s: no executed instructions in this %s", path,
			      qemu_log ? "log (was it written with -d in_asm,exec,nochain?)" : "file");
	if (rc == 0) {
		info->insns = rebuild_insns(im.rb);
		rc = rebuild_finish(im.rb, p, err);
		profile_set_str(&p->run.collector, "trace");
		profile_set_str(&p->run.arch, info->arch);
		profile_set_str(&p->run.clock, "icount");
	}
	free(buf);
	if (f)
		fclose(f);
	importer_free(&im);
	return rc;
}

int trace_read_qemu_log(const char *path, const struct trace_import *o, struct symbols *syms,
			struct zp_profile *p, struct trace_info *info, struct zerr *err)
{
	return import(path, o, syms, p, info, err, 1);
}

int trace_read_pcs(const char *path, const struct trace_import *o, struct symbols *syms,
		   struct zp_profile *p, struct trace_info *info, struct zerr *err)
{
	return import(path, o, syms, p, info, err, 0);
}
