/*
 * output.h - how every command writes a file: never over what it must not,
 * never half.
 *
 * output_check refuses, before any work is done, an output path that is a
 * directory, a zond profile store (unless a store is what is written), an
 * ELF file or any other executable (the program, or another one), or the
 * very file of one of the command's inputs (compared by device and inode,
 * so links and other spellings of the name are caught).  An older output
 * (a trace, an export) may be replaced.  The error is one line naming the
 * file.
 *
 * output_open / output_close write a file through a temporary file beside
 * it that is renamed into place only when everything was written: a failure
 * or a crash never leaves a half file over an old one.  The file replaced
 * is the one the path names: its symbolic links followed (the links stay),
 * its mode (and owner, where this user may give it) kept.  Written
 * directly: a path that is not a regular file (/dev/null, a FIFO, a
 * terminal), a regular file with other hard links (all its names see the
 * new contents), a link to nothing yet (the file is made where it points).
 * A path that is zond's own standard output or error (-o /dev/stdout with
 * stdout redirected to a file) is written to that stream, which is never
 * truncated or replaced.
 */
#ifndef ZOND_OUTPUT_H
#define ZOND_OUTPUT_H

#include <limits.h>
#include <stdio.h>

#include "util/error.h"

enum output_kind {
	OUTPUT_FILE,  /* a report, export or trace */
	OUTPUT_STORE, /* a profile store: an existing zond store is added to */
};

/*
 * 0 when path may be written as kind, or -1 with err set.  inputs is a
 * NULL-terminated list of the paths the command reads (NULL: none); an
 * input that does not exist is skipped.  An OUTPUT_STORE that exists must
 * be a zond store this zond reads (opened to check it: not damaged, not of
 * a newer schema) and writable with its directory (the journal goes there);
 * one that does not must be creatable in its directory: a bad -o is found
 * before a program runs.  A store is looked for through its symbolic links
 * as store_open follows them (store_target): the check and the write see
 * the same file.  1 (err set) for a store another process holds locked
 * for more than a second (store_check): it may be written later; a
 * collector runs its program all the same and says so.
 */
int output_check(const char *path, enum output_kind kind, const char *const *inputs,
		 struct zerr *err);

struct output {
	FILE *f;               /* write here */
	char path[PATH_MAX];   /* the name given; "" for standard output */
	char target[PATH_MAX]; /* the file renamed over, path's links followed; "" when path */
	char tmp[PATH_MAX];    /* the temporary file; "" when writing directly */
	int stream;            /* f is zond's standard output or error, named by path */
};

/* Opens path for writing (NULL or "-": standard output).  0, or -1 with err set. */
int output_open(struct output *o, const char *path, struct zerr *err);

/*
 * Closes o: when ok and every write succeeded, renames the temporary file
 * into place; else removes it (the old file, if any, is left as it was).
 * 0 when the file is complete in place (or !ok and nothing failed here), or
 * -1 with err set: a failed write names the file, whatever the writer said.
 */
int output_close(struct output *o, int ok, struct zerr *err);

#endif
