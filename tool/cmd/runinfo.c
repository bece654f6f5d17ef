/* runinfo.c - a run's raw data directory: run.info and its lock (runinfo.h). */
#define _GNU_SOURCE
#include "runinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/profile.h"

#define FORMAT 2 /* 1: no format line, values as they are */

/* dir/name, allocated */
static char *dir_file(const char *dir, const char *name)
{
	char *path = zp_xmalloc(strlen(dir) + strlen(name) + 2);
	sprintf(path, "%s/%s", dir, name);
	return path;
}

/* "key value", the value's backslashes and newlines escaped: one line, read back whole */
static void put_value(FILE *f, const char *key, const char *value)
{
	if (!value)
		return;
	fprintf(f, "%s ", key);
	for (const char *c = value; *c; c++) {
		if (*c == '\\')
			fputs("\\\\", f);
		else if (*c == '\n')
			fputs("\\n", f);
		else
			fputc(*c, f);
	}
	fputc('\n', f);
}

/* Closes f, written to path: 0, or -1 with err if any of it failed. */
static int close_written(FILE *f, const char *path, struct zerr *err)
{
	int failed = ferror(f);
	int e = errno;
	if (fclose(f) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	return failed ? zerr_set(err, "%s: cannot write: %s", path, strerror(e)) : 0;
}

/* Opens dir's run.info with mode, or fails with err. */
static FILE *open_info(const char *dir, const char *mode, struct zerr *err)
{
	char *path = dir_file(dir, RUNINFO_FILE);
	FILE *f = fopen(path, mode);
	if (!f)
		zerr_set(err, "%s: cannot %s: %s", path, *mode == 'r' ? "read" : "write",
			 strerror(errno));
	free(path);
	return f;
}

int runinfo_write(const char *dir, const struct runinfo *ri, struct zerr *err)
{
	FILE *f = open_info(dir, "w", err);
	if (!f)
		return -1;
	fprintf(f, "format %d\n", FORMAT);
	put_value(f, "collector", ri->collector);
	put_value(f, "program", ri->program);
	put_value(f, "command", ri->command);
	put_value(f, "store", ri->store);
	put_value(f, "campaign", ri->campaign);
	put_value(f, "knobs", ri->knobs);
	put_value(f, "token", ri->token);
	char *path = dir_file(dir, RUNINFO_FILE);
	int rc = close_written(f, path, err);
	free(path);
	return rc;
}

int runinfo_append_end(const char *dir, const struct runinfo *ri, struct zerr *err)
{
	FILE *f = open_info(dir, "a", err);
	if (!f)
		return -1;
	fprintf(f, "start_ns %" PRId64 "\nduration_ns %" PRId64 "\nexit_status %d\nterm_signal %d\n",
		ri->start_ns, ri->duration_ns, ri->exit_status, ri->term_signal);
	char *path = dir_file(dir, RUNINFO_FILE);
	int rc = close_written(f, path, err);
	free(path);
	return rc;
}

/* ---- reading ------------------------------------------------------------- */

/* The file being read, for its errors. */
struct reader {
	char *path;
	size_t line;   /* 1-based */
	int format;    /* FORMAT, or 1 */
	unsigned seen; /* bit per key: each once */
	struct runinfo *ri;
	struct zerr *err;
};

static int malformed(const struct reader *r, const char *what, const char *key)
{
	return zerr_set(r->err,
			"%s: line %zu: %s%s%s: not as zond writes it (remove the file to store "
			"the raw data as a run of unknown command)",
			r->path, r->line, what, key ? " " : "", key ? key : "");
}

/* Undoes put_value's escapes in place; -1 on one it never writes. */
static int unescape(char *v)
{
	char *out = v;
	for (const char *in = v; *in; in++) {
		if (*in != '\\') {
			*out++ = *in;
			continue;
		}
		in++;
		if (*in == '\\')
			*out++ = '\\';
		else if (*in == 'n')
			*out++ = '\n';
		else
			return -1;
	}
	*out = 0;
	return 0;
}

/* value as a whole number from lo to hi into *out; -1 if it is not one. */
static int parse_number(const char *value, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 10);
	if (errno || end == value || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* "format N", the first line of a file of format 2 or later. */
static int take_format(struct reader *r, const char *value)
{
	int64_t n;
	if (r->line != 1 || parse_number(value, 2, INT32_MAX, &n) < 0)
		return malformed(r, "a bad", "format");
	if (n > FORMAT)
		return zerr_set(r->err, "%s: written by a newer zond (format %" PRId64 ", this one "
					"reads %d)",
				r->path, n, FORMAT);
	r->format = (int)n;
	return 0;
}

static const char *const string_keys[] = {"collector", "program", "command", "store",
					  "campaign",  "knobs",   "token"};
static const char *const number_keys[] = {"start_ns", "duration_ns", "exit_status",
					  "term_signal"};

/* One of number_keys into ri. */
static int take_number(struct reader *r, size_t i, const char *value)
{
	static const int64_t lo[] = {0, 0, -1, 0}, hi[] = {INT64_MAX, INT64_MAX, 255, 127};
	int64_t v;
	if (parse_number(value, lo[i], hi[i], &v) < 0)
		return malformed(r, "a bad", number_keys[i]);
	if (i == 0)
		r->ri->start_ns = v;
	else if (i == 1)
		r->ri->duration_ns = v;
	else if (i == 2)
		r->ri->exit_status = (int)v;
	else
		r->ri->term_signal = (int)v;
	return 0;
}

/* Whether key was seen before (notes it). */
static int seen_before(struct reader *r, unsigned bit)
{
	int was = (r->seen >> bit) & 1;
	r->seen |= 1u << bit;
	return was;
}

/* One "key value" line, without its newline. */
static int take_line(struct reader *r, char *line)
{
	char *value = strchr(line, ' ');
	if (!value)
		return malformed(r, "a key without a value", NULL);
	*value++ = 0;
	if (!strcmp(line, "format"))
		return take_format(r, value);
	if (r->format >= 2 && unescape(value) < 0)
		return malformed(r, "a bad escape in", line);
	char **strings[] = {&r->ri->collector, &r->ri->program,  &r->ri->command, &r->ri->store,
			    &r->ri->campaign,  &r->ri->knobs,    &r->ri->token};
	for (unsigned i = 0; i < 7; i++) {
		if (strcmp(line, string_keys[i]))
			continue;
		if (seen_before(r, i))
			return malformed(r, "a second", line);
		*strings[i] = zp_xstrdup(value);
		return 0;
	}
	for (unsigned i = 0; i < 4; i++)
		if (!strcmp(line, number_keys[i]))
			return seen_before(r, 7 + i) ? malformed(r, "a second", line)
						     : take_number(r, i, value);
	return 0; /* a later zond's key: nothing this one needs */
}

static int read_lines(struct reader *r, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	errno = 0;
	while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
		r->line++;
		if (n == 0 || line[n - 1] != '\n')
			rc = malformed(r, "cut short (no newline at its end)", NULL);
		else if (strlen(line) != (size_t)n)
			rc = malformed(r, "a NUL byte", NULL);
		else {
			line[n - 1] = 0;
			rc = take_line(r, line);
		}
	}
	if (rc == 0 && ferror(f))
		rc = zerr_set(r->err, "%s: cannot read: %s", r->path, strerror(errno));
	free(line);
	return rc;
}

int runinfo_read(const char *dir, struct runinfo *ri, struct zerr *err)
{
	*ri = (struct runinfo){.exit_status = -1};
	struct reader r = {dir_file(dir, RUNINFO_FILE), 0, 1, 0, ri, err};
	FILE *f = fopen(r.path, "r");
	int rc = 1;
	if (!f)
		rc = errno == ENOENT ? 0
				     : zerr_set(err, "%s: cannot read: %s", r.path, strerror(errno));
	else if (read_lines(&r, f) < 0)
		rc = -1;
	if (f)
		fclose(f);
	free(r.path);
	if (rc < 0)
		runinfo_free(ri);
	return rc;
}

void runinfo_free(struct runinfo *ri)
{
	free(ri->collector);
	free(ri->program);
	free(ri->command);
	free(ri->store);
	free(ri->campaign);
	free(ri->knobs);
	free(ri->token);
	*ri = (struct runinfo){.exit_status = -1};
}

/* ---- the lock -------------------------------------------------------------- */

int runinfo_lock(const char *dir, int create, pid_t *holder, struct zerr *err)
{
	char *path = dir_file(dir, RUNINFO_LOCK);
	int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	*holder = 0;
	if (fd < 0) {
		int none = errno == ENOENT && !create;
		zerr_set(err, "%s: cannot open: %s", path, strerror(errno));
		free(path);
		return none ? -2 : -1;
	}
	/* a holder may end between the two calls: then the lock is ours next time */
	for (int tries = 0; tries < 3; tries++) {
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		if (fcntl(fd, F_SETLK, &fl) == 0) {
			free(path);
			return fd;
		}
		if ((errno != EACCES && errno != EAGAIN) || fcntl(fd, F_GETLK, &fl) < 0)
			break;
		if (fl.l_type != F_UNLCK) {
			*holder = fl.l_pid;
			break;
		}
	}
	zerr_set(err, "%s: cannot lock: %s", path, strerror(errno));
	close(fd);
	free(path);
	return -1;
}
