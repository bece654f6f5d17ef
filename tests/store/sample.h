/*
 * sample.h - profiles for the store tests and a field-by-field comparison.
 *
 * sample_profile() uses every field of profile.h with values that are easy
 * to lose on the way through SQLite: NULL strings, ZP_NONE callers and
 * parents, min = UINT64_MAX, costs above INT64_MAX, negative ints, and
 * calling contexts with recursion in two threads.
 */
#ifndef ZOND_TEST_SAMPLE_H
#define ZOND_TEST_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

/* A small profile of every kind of data; campaign may be NULL. */
struct zp_profile *sample_profile(const char *campaign);

/* A profile of nthreads * nfuncs stats rows, one event, a call chain of edges and contexts. */
struct zp_profile *sample_big_profile(size_t nthreads, size_t nfuncs);

/* The fields (all but run.id) in which b differs from a, each printed to stderr. */
int sample_mismatches(const struct zp_profile *a, const struct zp_profile *b);

/* SQL on the store file with plain SQLite, as a foreign program would: exits on error. */
void sample_run_sql(const char *path, const char *sql);
/* The integer the query's first row gives (read only), -12345 if none. */
int64_t sample_sql_int(const char *path, const char *sql);

/* A fresh directory for one test's files (malloc'ed path), and a file in it. */
char *sample_tmpdir(void);
char *sample_path(const char *dir, const char *name);
void sample_rmdir(char *dir);

#endif
