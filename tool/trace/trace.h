/*
 * trace.h - reading instruction traces into a profile.
 *
 * Three inputs, one result (the rebuild of rebuild.h, so the same run gives
 * the same profile whichever way it was traced):
 *   - zond's own .ztrace, written by plugins/qemu (doc/trace-format.md);
 *   - QEMU's log of `-d in_asm,exec,nochain` (no plugin needed);
 *   - a plain text list of executed PCs, one per line, optionally with the
 *     instruction word ("pcs" format, doc/trace-format.md), from simulators
 *     or hardware trace decoders.
 * The last two do not carry the program's mappings: the caller names the
 * ELF file (and its load bias, for position-independent code).
 *
 * A .ztrace cut short (the recording was killed or the program exec'd)
 * is read up to its last complete chunk: info->cut says where, and the
 * caller warns.  Errors: one line naming the file and, for bad contents,
 * the byte offset (".ztrace: chunk at offset N...", "log: line N: ..."); a
 * corrupt file, a cut trace without one complete chunk of executions, a
 * trace of another build of the program and an unknown architecture all
 * fail this way, never crash.
 */
#ifndef ZOND_TRACE_H
#define ZOND_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "model/profile.h"
#include "symbols/symbols.h"
#include "util/error.h"

struct trace_info {
	char arch[32];     /* from the trace, or as given */
	char program[4096]; /* the traced program, "" if unknown */
	uint64_t insns;    /* instructions executed */
	uint64_t blocks;   /* block executions */
	uint64_t lost;     /* block executions of other threads that were not traced */
	uint64_t bytes;    /* size of the trace file */
	uint64_t cut;      /* a trace cut short: where its complete chunks end; 0 if whole */
	int completed;     /* no final END, but whole: completed by `zond trace record` after the
			      program was killed by term_signal (an EXIT record last) */
	char warning[4096]; /* what was guessed or left out, a line each ('\n' between), "" if nothing */
	int64_t pid;       /* the traced process's, from the header (0 if not said) */
	char run[64];      /* the recording's token, shared by its processes' traces ("" if none) */
	char command[4096]; /* the command line as recorded, "" if not said (older traces) */
	int64_t start_ns;  /* when the recording began (Unix ns), 0 if not said */
	int64_t parent;    /* a forked child's trace: its parent's pid (0: not said, a version 2 trace) */
	uint32_t fork_thread; /* and the fork point: the parent's thread (stream number) that forked */
	uint64_t fork_execs;  /* and its block executions up to the one making the fork system call */
	int exit_status;   /* the program's exit status, -1 if not said */
	int term_signal;   /* the signal that killed it, 0 if none or not said */
};

/*
 * A timeline of every call (rebuild_set_timeline): at most events enter and
 * exit events per thread, the first ones or, with keep_newest, the last;
 * events 0: none.
 */
struct trace_timeline {
	uint64_t events;
	int keep_newest;
};

/*
 * Opens a trace for reading; *bytes is its size (0 if not a regular file).
 * NULL with err for a file that cannot be opened or is a directory.
 */
FILE *trace_open(const char *path, uint64_t *bytes, struct zerr *err);

/* Reads a .ztrace into p (event Ir, collector "trace", arch set). */
int trace_read_ztrace(const char *path, struct symbols *syms, struct zp_profile *p,
		      struct trace_info *info, struct zerr *err);

/*
 * The same, with the traces of the processes the program forked: each
 * file PATH.PID beside it whose header has the same run token (another
 * recording's are not read) is read into p too, its threads carrying its
 * pid (as the first trace's carry the program's).  info sums instructions,
 * blocks and bytes over them; a child's trace that cannot be read, or is
 * cut short, is a note in info->warning, not an error.  *children: the
 * child traces read.  tl: each thread's timeline (NULL: none).
 */
int trace_read_ztrace_family(const char *path, const struct trace_timeline *tl,
			     struct symbols *syms, struct zp_profile *p, struct trace_info *info,
			     size_t *children, struct zerr *err);

/*
 * Writes the instructions a .ztrace executed as a "pcs" file ("PC WORD" a
 * line, doc/trace-format.md), for other tools and for the tests that
 * compare importers.
 * A write to out that failed leaves its errno in errno (for output_close).
 */
int trace_ztrace_to_pcs(const char *path, struct symbols *syms, FILE *out,
			struct trace_info *info, struct zerr *err);

/* Options for traces that do not carry the program's mapping. */
struct trace_import {
	const char *arch;    /* required */
	const char *elf;     /* the program; NULL: functions are named by address */
	uint64_t bias;       /* its load bias (0 for non-PIE programs) */
	struct trace_timeline timeline;
};

int trace_read_qemu_log(const char *path, const struct trace_import *o, struct symbols *syms,
			struct zp_profile *p, struct trace_info *info, struct zerr *err);
int trace_read_pcs(const char *path, const struct trace_import *o, struct symbols *syms,
		   struct zp_profile *p, struct trace_info *info, struct zerr *err);

#endif
