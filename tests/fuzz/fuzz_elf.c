/*
 * fuzz_elf - libFuzzer target: an ELF file of any bytes (tool/symbols/symbols.h),
 * asked what the commands ask of a file a user names: zond info (the header,
 * interpreter, library or program, static TLS, run path, linkage, build id),
 * zond trace's rebuild (loadable segments, executable sections, code labels),
 * zond inject --elf and zond record --gdb (code segments, load start, the
 * gap between segments, bytes at an address, a symbol by name), the reports
 * and zond trace (every function, names, lines, declarations and unwind
 * ranges of a few addresses, a line's address).
 *
 * Errors are checked as fuzz_file.h does: one line naming the file.  Those
 * that end in "(REASON)" carry elfutils' elf_errmsg or dwfl_errmsg, single
 * lines of its own.
 */
#include "fuzz_file.h"
#include "symbols/symbols.h"

#include <string.h>

#define ADDRS 16

struct seen {
	uint64_t addr[ADDRS];
	size_t n, total;
};

static void note_function(void *arg, const struct symbol *sym)
{
	struct seen *s = arg;
	if (!sym->name || !sym->size)
		abort(); /* symbols_each_function's contract: named, size > 0 */
	if (s->n < ADDRS)
		s->addr[s->n++] = sym->start + sym->size / 2;
	s->total++;
}

/* err when rc says so, else nothing to check. */
static void check(int failed, const struct zerr *err, const char *path)
{
	if (failed)
		fuzz_check_error(err->msg, path);
}

static void per_file(const char *path)
{
	struct zerr err;
	char buf[4096];
	uint64_t v;

	int is_elf = symbols_is_elf(path, &err);
	check(!is_elf, &err, path);
	struct symbols_elf hdr;
	check(symbols_elf_header(path, &hdr, &err) < 0, &err, path);
	check(symbols_machine(path, &err) < 0, &err, path);
	check(symbols_class(path, &err) < 0, &err, path);
	check(symbols_entry(path, &v, &err) < 0, &err, path);
	int rc = symbols_interpreter(path, buf, sizeof buf, &err);
	check(rc < 0, &err, path);
	if (rc == 0 && !memchr(buf, 0, sizeof buf))
		abort(); /* an interpreter comes NUL-terminated */
	(void)symbols_is_library(path);
	(void)symbols_static_tls(path);
	(void)symbols_run_path(path);
	struct symbols_linkage l;
	if (symbols_linkage(path, &l, &err) < 0)
		fuzz_check_error(err.msg, path);
	else
		symbols_linkage_free(&l);
	struct symbols_segment *segs;
	size_t nsegs;
	if (symbols_code_segments(path, &segs, &nsegs, &err) < 0)
		fuzz_check_error(err.msg, path);
	else
		symbols_free_segments(segs, nsegs);
	char id[2 * 64 + 1];
	(void)symbols_build_id(path, id, sizeof id);
	struct symbols_load *loads;
	size_t n;
	if (symbols_loads(path, &loads, &n, &err) < 0)
		fuzz_check_error(err.msg, path);
	else
		free(loads);
	struct symbols_range *ranges;
	if (symbols_code_sections(path, &ranges, &n, &err) < 0)
		fuzz_check_error(err.msg, path);
	else
		symbols_free_ranges(ranges, n);
	if (symbols_code_labels(path, &ranges, &n, &err) < 0) {
		fuzz_check_error(err.msg, path);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!ranges[i].name || (i && ranges[i].start < ranges[i - 1].start))
			abort(); /* labels come named and sorted */
	symbols_free_ranges(ranges, n);
}

static void per_symbols(const char *path)
{
	struct zerr err;
	struct symbols *s = symbols_new();
	struct seen seen = {.n = 0};
	if (symbols_each_function(s, path, note_function, &seen, &err) < 0) {
		fuzz_check_error(err.msg, path);
		/* a file that cannot be used fails every call, each time, alike */
		struct symbol sym;
		char first[sizeof err.msg];
		memcpy(first, err.msg, sizeof first);
		if (symbols_lookup(s, path, 0, &sym, &err) >= 0 || strcmp(first, err.msg) != 0)
			abort();
		symbols_free(s);
		return;
	}
	uint64_t v, len, entry = 0;
	struct zerr ignored;
	if (symbols_entry(path, &entry, &ignored) == 0 && seen.n < ADDRS)
		seen.addr[seen.n++] = entry;
	if (symbols_load_start(s, path, &v, &err) < 0)
		fuzz_check_error(err.msg, path);
	else if (seen.n < ADDRS)
		seen.addr[seen.n++] = v;
	check(symbols_segment_gap(s, path, &v, &len, &err) < 0, &err, path);
	for (size_t i = 0; i < seen.n; i++) {
		uint64_t a = seen.addr[i], start, end, off;
		struct symbol sym;
		const char *file;
		int line;
		uint8_t bytes[64];
		check(symbols_lookup(s, path, a, &sym, &err) < 0, &err, path);
		check(symbols_line(s, path, a, &file, &line, &err) < 0, &err, path);
		check(symbols_decl_line(s, path, a, &file, &line, &err) < 0, &err, path);
		check(symbols_unwind_range(s, path, a, &start, &end, &err) < 0, &err, path);
		long got = symbols_read(s, path, a, bytes, sizeof bytes, &err);
		check(got < 0, &err, path);
		if (got > 0 && symbols_same_bytes(s, path, a, bytes, (size_t)got, &err) != 1)
			abort(); /* the bytes just read are the file's */
		check(symbols_file_offset(s, path, a, 4, &off, &err) < 0, &err, path);
	}
	struct symbol sym;
	check(symbols_named(s, path, "main", &sym, &err) < 0, &err, path);
	check(symbols_line_addr(s, path, "prog.c", 3, &v, &err) < 0, &err, path);
	symbols_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	per_file(path);
	per_symbols(path);
	return 0;
}
