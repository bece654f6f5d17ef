/*
 * symbols.h - names and source lines for addresses, through elfutils.
 *
 * A `struct symbols` caches every ELF file it opened, by path, for its
 * lifetime; a file's function symbols are sorted once, so lookups are a
 * binary search.  Addresses given to it are link-time addresses inside one
 * file (run-time address minus the load bias the runtime recorded).
 *
 * Symbols: STT_FUNC and STT_GNU_IFUNC from .symtab; when the file has none
 * (stripped), from a separate debug file (build-id under /usr/lib/debug, or
 * .gnu_debuglink), else from .dynsym; else there is no name (callers then
 * name the code by address).  Of several names at one address, lookups give
 * the global one before weak and local ones, then the one with the fewest
 * leading underscores, then the alphabetically first.  A symbol without a
 * size extends to the next function or the end of its section.  Lookups
 * name a PLT stub "target@plt", as objdump does (symbols.c, "PLT stubs");
 * symbols_each_function does not list stubs (no function symbol).  C++ names
 * come back demangled.  DWARF gives file:line when the file (or its debug
 * file) has it; file names are as DWARF gives them (absolute when the
 * compiler recorded its directory).
 *
 * Errors: a file that cannot be used makes every call on it fail, each time,
 * with one of "PATH: no such file", "PATH: not readable (REASON)", "PATH: is
 * a directory, not an ELF file", "PATH: not an ELF file", "PATH: damaged ELF
 * file (REASON)", "PATH: an ELF file but not a program or shared library".
 * A missing symbol or line is not an error.
 *
 * Strings returned (names, file names) live as long as the struct symbols.
 */
#ifndef ZOND_SYMBOLS_H
#define ZOND_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/error.h"

struct symbols;

struct symbol {
	const char *name; /* owned by the cache; NULL when no symbol covers addr */
	uint64_t start;   /* link-time address of the symbol's first byte */
	uint64_t size;
	uint64_t nested;  /* the first start of a symbol nested in it, else start + size */
};

struct symbols *symbols_new(void);
/*
 * Every descriptor libdwfl keeps open (the ELF files, their separate debug
 * files) goes through move, which returns the descriptor to use instead
 * (the QEMU plugin's: out of the guest's numbers, fds_move_high).  Process-wide.
 */
void symbols_set_fd_hook(int (*move)(int fd));
void symbols_free(struct symbols *s);

/*
 * The function the file's unwind tables (.eh_frame, else .debug_frame) say
 * holds addr, for code no symbol covers (a stripped library's local
 * functions): its [*start, *end), link-time.  1 when found, 0 when no
 * unwind entry covers addr, -1 with err set.  A compiler's split function
 * (foo and foo.cold) has an entry per part.
 */
int symbols_unwind_range(struct symbols *s, const char *path, uint64_t addr, uint64_t *start,
			 uint64_t *end, struct zerr *err);

/* The function symbol containing addr in the ELF file at path. */
int symbols_lookup(struct symbols *s, const char *path, uint64_t addr, struct symbol *out,
		   struct zerr *err);

/* Source file and line of addr (DWARF); *file = "" and *line = 0 when unknown. */
int symbols_line(struct symbols *s, const char *path, uint64_t addr, const char **file,
		 int *line, struct zerr *err);

/*
 * The call that inlined the function whose out-of-line code starts at callee
 * into the code at addr (all link-time addresses): when addr lies in an
 * inlined instance of that function (DWARF DW_TAG_inlined_subroutine, the
 * innermost such scope), the file and line of the call in its caller
 * (DW_AT_call_file, DW_AT_call_line: what addr2line -i prints for the next
 * frame out) into *file and *line, 1.  0 when addr is in no inlined
 * instance of it (or DWARF does not say); -1 with err when path is unusable.
 */
int symbols_inline_call(struct symbols *s, const char *path, uint64_t addr, uint64_t callee,
			const char **file, int *line, struct zerr *err);

/*
 * The lowest address where code of line `line` of source file `file`
 * begins a statement (DWARF line table; file matched as elfutils does: a
 * relative name matches the end of the table's paths at a '/'), into
 * *addr: 0.  1 when the file has no code at that line; -1 with err when
 * path is unusable.
 */
int symbols_line_addr(struct symbols *s, const char *path, const char *file, int line,
		      uint64_t *addr, struct zerr *err);

/*
 * Where the function containing addr is declared (DWARF DW_AT_decl_file and
 * DW_AT_decl_line of its subprogram); falls back to symbols_line(addr) when
 * the file has no such entry.  *file = "" and *line = 0 when unknown.
 */
int symbols_decl_line(struct symbols *s, const char *path, uint64_t addr, const char **file,
		      int *line, struct zerr *err);

/*
 * DWARF entries read so far to answer symbols_decl_line, over every file:
 * each file's entries are read once, on its first declaration lookup, so
 * tests can check the work grows with the size of the DWARF, not with the
 * number of lookups times it.
 */
size_t symbols_dwarf_visits(const struct symbols *s);

/*
 * 1 when the glob (fnmatch(3)) names the function called name as zond
 * shows it: the whole name, or a C++ name without its parameter list,
 * qualifiers and a template's return type, and with or without the
 * template arguments and ABI tags of any of its components ("fact" and
 * "fact(int)" both name "fact(int)", "geo::A::v" names "geo::A::v(int)
 * const", "add<int>" and "add" name "int add<int>(int, int)", "Box::sum"
 * names "Box<long>::sum() const"); operator names are kept whole
 * ("operator<", "operator\"\" _km").  Every command that takes function
 * names matches them so.
 */
int symbols_name_matches(const char *glob, const char *name);

/*
 * 1 when name is the cold part a compiler split off a function ("f.cold",
 * "f(int) [clone .cold]"): code the function jumps to, never entered by a
 * call, so no place to start or stop anything.
 */
int symbols_is_fragment(const char *name);

/*
 * The GNU build id of the ELF file at path (its NT_GNU_BUILD_ID note), as
 * lowercase hex into buf (len >= 2 * 64 + 1).  0 when found; 1 when the file
 * has none or is not a readable ELF file (a build id is an extra, never a
 * reason to fail).
 */
int symbols_build_id(const char *path, char *buf, size_t len);

/*
 * Calls fn for every function symbol of the file (defined, size > 0), in
 * address order, aliases included: each of several names at one address is
 * reported, so users can name code by any of them.  A sizeless symbol gets
 * the size lookups give it.
 */
int symbols_each_function(struct symbols *s, const char *path,
			  void (*fn)(void *arg, const struct symbol *sym), void *arg,
			  struct zerr *err);

/*
 * The defined symbol called name (a function or a data object, from the
 * whole symbol table: e.g. a static buffer's address and size): 1 with
 * *out filled (out->name is name), 0 when the file has none, -1 with err
 * set when the file is unusable.
 */
int symbols_named(struct symbols *s, const char *path, const char *name, struct symbol *out,
		  struct zerr *err);

/*
 * Copies up to len bytes of the file's loaded image from link-time address
 * addr (a PT_LOAD segment's file bytes; zero-fill and gaps end the copy).
 * Returns the number of bytes copied (0 when addr is not in the file's
 * image), or -1 with err set when the file is unusable.  The code zond
 * inject relocates is read here, so ELF stays in this one place.
 */
long symbols_read(struct symbols *s, const char *path, uint64_t addr, uint8_t *buf, size_t len,
		  struct zerr *err);

/*
 * Whether bytes (len of them, read from a running target at addr) are the
 * file's loaded image there (symbols_read): 1 the same, 0 not (or not all
 * in the file), -1 with err set.  How zond inject and zond record --gdb
 * make sure a target runs the ELF file they were given before they touch it.
 */
int symbols_same_bytes(struct symbols *s, const char *path, uint64_t addr, const uint8_t *bytes,
		       size_t len, struct zerr *err);

/*
 * The file offset of the len bytes at link-time address addr (all in one
 * PT_LOAD segment's file bytes, as symbols_read reads them): 1 with *off
 * set, 0 when they are not all in the file, -1 with err set.  For a
 * patched copy of the file (zond record gives a bare-metal target its raw
 * file's path so).
 */
int symbols_file_offset(struct symbols *s, const char *path, uint64_t addr, uint64_t len,
			uint64_t *off, struct zerr *err);

/*
 * The lowest link-time address of the file's loaded segments (PT_LOAD
 * p_vaddr): where the mapping at file offset 0 starts, less the load bias.
 */
int symbols_load_start(struct symbols *s, const char *path, uint64_t *start, struct zerr *err);

/*
 * The widest gap between the memory ranges the file's loaded segments
 * occupy, at their run addresses (p_vaddr, p_memsz) and their load
 * addresses (p_paddr, p_filesz) both: its 16-byte aligned start in *addr
 * and its length in *len (0: no gap), or -1 with err set.  For a
 * bare-metal image whose flash and RAM are one memory (QEMU's virt board),
 * memory no part of the program uses (zond inject's scratch RAM).
 */
int symbols_segment_gap(struct symbols *s, const char *path, uint64_t *addr, uint64_t *len,
			struct zerr *err);

/* ---- what the ELF file says about itself (elf.c) -------------------------
 * No struct symbols: each call reads the file afresh (they are asked once
 * per command).  Errors as above, but symbols_elf_header's. */

/* The ELF header's e_machine (EM_X86_64, EM_RISCV, ...) of path, or -1 with err set. */
int symbols_machine(const char *path, struct zerr *err);

/* 32 or 64: the ELF file's class (its word size), or -1 with err set. */
int symbols_class(const char *path, struct zerr *err);

/* The ELF header's entry point (link-time), 0 when none; -1 with err set. */
int symbols_entry(const char *path, uint64_t *entry, struct zerr *err);

/* 1 if path is an ELF file zond can read, 0 if not (with the reason in err). */
int symbols_is_elf(const char *path, struct zerr *err);

/*
 * The program interpreter (PT_INTERP, the dynamic loader) the ELF file at
 * path asks for, copied into buf.  0 when found; 1 when the file has none
 * (static, or a shared library); -1 with err set when the file is unusable.
 */
int symbols_interpreter(const char *path, char *buf, size_t len, struct zerr *err);

/*
 * 1 when the ELF file at path is a shared library rather than a program:
 * position-independent, with no interpreter, naming a soname or libraries
 * it needs (a static-pie program names none); else 0.
 */
int symbols_is_library(const char *path);

/*
 * 1 when the ELF file at path says in its .comment section (the compilers
 * and linkers that made it, one string each) that word made part of it
 * ("clang", "GCC:"); else 0 (or not ELF, no such section).
 */
int symbols_made_by(const char *path, const char *word);

/*
 * The bytes of static TLS the ELF file at path needs the loader to find
 * room for when it loads it after the process's TLS was laid out: its TLS
 * segment's size, rounded up to its alignment, when it is marked
 * DF_STATIC_TLS (its code reaches its TLS at fixed offsets); else 0 (or
 * not ELF).
 */
uint64_t symbols_static_tls(const char *path);

/* 1 when the ELF file at path has a run path (DT_RUNPATH or DT_RPATH), else 0. */
int symbols_run_path(const char *path);

/* How a module's calls are bound, from its dynamic relocations and symbols (zond info). */
struct symbols_linkage {
	size_t plt;           /* JUMP_SLOT relocations: calls the loader binds */
	size_t got;           /* functions of relocations outside the PLT (GLOB_DAT, absolute) */
	char **got_names;     /* their names, C++ ones demangled, sorted, each once */
	size_t protected_fns; /* defined functions of protected visibility */
	int symbolic;         /* DT_SYMBOLIC or DF_SYMBOLIC */
};

/*
 * 1 when path's dynamic symbols have an undefined one called name (the
 * file calls it in another module: `mcount` in a -pg program), else 0
 * (an unreadable file too).
 */
int symbols_imports(const char *path, const char *name);

/* path's linkage in *out (free with symbols_linkage_free): 0, or -1 with err set. */
int symbols_linkage(const char *path, struct symbols_linkage *out, struct zerr *err);
void symbols_linkage_free(struct symbols_linkage *l);

/* An ELF file's header, of any type (a core file, an object file too). */
struct symbols_elf {
	unsigned machine; /* e_machine: EM_X86_64, EM_AARCH64, EM_RISCV, ... */
	int bits;         /* 32 or 64: its class */
	unsigned type;    /* e_type: ET_EXEC, ET_DYN, ... */
	uint64_t entry;   /* e_entry, link-time; 0 when none */
	int interp;       /* 1 when it names a program interpreter (PT_INTERP) */
	int pie;          /* 1 when its DT_FLAGS_1 says DF_1_PIE: a program, static-pie too */
};

/*
 * path's ELF header in *out: 1; 0 when path is readable but no ELF file
 * (the caller says what it wanted instead: a script may do); -1 with err
 * "PATH: cannot read: REASON".
 */
int symbols_elf_header(const char *path, struct symbols_elf *out, struct zerr *err);

/* The usual name of an ELF machine ("x86_64", "aarch64", "riscv"), NULL if not one zond knows. */
const char *symbols_machine_name(unsigned machine);

/* A loadable segment's bytes from the file, at its link-time address. */
struct symbols_segment {
	uint64_t vaddr;
	uint64_t size;  /* p_filesz */
	uint8_t *bytes; /* malloc'ed */
};

/*
 * The file's executable loadable segments (PT_LOAD with PF_X), their file
 * bytes read, in program header order: 0 with *segs (free with
 * symbols_free_segments) and *n, or -1 with err "PATH: cannot read as an
 * ELF file" or "PATH: truncated ELF file".
 */
int symbols_code_segments(const char *path, struct symbols_segment **segs, size_t *n,
			  struct zerr *err);
void symbols_free_segments(struct symbols_segment *segs, size_t n);

/* ---- the code a trace ran (elf.c) -----------------------------------------
 * What zond trace's rebuild needs to map a guest's addresses to files and
 * name its code beyond the symbol lookups above.  No struct symbols: each
 * call reads the file afresh (once per module).  Each fails only when path
 * cannot be opened or read at all (a directory): -1 with err "PATH: cannot
 * read as an ELF file"; a readable file that is no ELF file (or one whose
 * headers are damaged) has none of what is asked. */

/* A loadable segment (PT_LOAD) as its program header gives it. */
struct symbols_load {
	uint64_t vaddr, memsz;   /* link-time address and size in memory (p_vaddr, p_memsz) */
	uint64_t offset, filesz; /* its bytes in the file (p_offset, p_filesz) */
	uint64_t align;          /* p_align */
	int exec;                /* PF_X: code */
};

/*
 * The file's loadable segments, in program header order: 0 with *loads
 * (free with free()) and *n, or -1 with err set.  What maps a file offset
 * to a link-time address, and the span of the code.
 */
int symbols_loads(const char *path, struct symbols_load **loads, size_t *n, struct zerr *err);

/* A named range of link-time addresses [start, end). */
struct symbols_range {
	uint64_t start, end;
	char *name; /* malloc'ed */
};

/*
 * The file's executable sections (SHF_EXECINSTR, not empty), in section
 * header order, named by their headers ("?" when a name is unreadable):
 * 0 with *secs (free with symbols_free_ranges) and *n, or -1 with err set.
 */
int symbols_code_sections(const char *path, struct symbols_range **secs, size_t *n,
			  struct zerr *err);

/*
 * The typeless symbols (STT_NOTYPE) of the file's .symtab in executable
 * sections: code entered without a function symbol (an assembly entry
 * point such as glibc's __wrap_main); mapping symbols ($x, $d) and
 * assembler locals (".L...") left out.  Each ends at the first function
 * symbol's start or end, label or executable section's end above its
 * start (start + 1 when there is none).  Sorted by start: 0 with *labels
 * (free with symbols_free_ranges) and *n, or -1 with err set.
 */
int symbols_code_labels(const char *path, struct symbols_range **labels, size_t *n,
			struct zerr *err);
void symbols_free_ranges(struct symbols_range *ranges, size_t n);

/*
 * The demangled form of a symbol name, malloc'ed: C++ (Itanium ABI), and
 * gfortran's module procedures ("__m_MOD_f": "m::f"); NULL when name is
 * neither.  The one demangler of the tool.
 */
char *symbols_demangle(const char *name);

#endif
