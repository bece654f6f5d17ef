/*
 * error.h - how the tool reports failure.
 *
 * A function that can fail takes a `struct zerr *` and, on failure, fills it
 * with one line (no trailing newline) that names the file and what is wrong,
 * then returns -1 (or NULL).  Commands print it as "zond CMD: <msg>" and exit
 * non-zero.  Nothing below tool/cmd prints errors itself.
 */
#ifndef ZOND_ERROR_H
#define ZOND_ERROR_H

struct zerr {
	char msg[1024];
};

/* Formats the message into e (if e is not NULL) and returns -1. */
int zerr_set(struct zerr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
