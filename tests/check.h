/*
 * check.h - the assertions of zond's C unit tests.
 *
 * CHECK(cond) and CHECK_EQ_*(a, b) report the file, line and values of a
 * failed check and count it; a test's main() ends with `return check_done();`
 * which prints "N passed, N failed" and returns non-zero on any failure.
 */
#ifndef ZOND_CHECK_H
#define ZOND_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

static inline int check_report(int ok, const char *file, int line, const char *what)
{
	if (ok) {
		check_passed++;
	} else {
		check_failed++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
	return ok;
}

#define CHECK(c) check_report(!!(c), __FILE__, __LINE__, #c)

#define CHECK_EQ_U64(a, b)                                                                 \
	do {                                                                               \
		uint64_t a_ = (a), b_ = (b);                                               \
		if (!check_report(a_ == b_, __FILE__, __LINE__, #a " == " #b))             \
			fprintf(stderr, "    %" PRIu64 " != %" PRIu64 "\n", a_, b_);           \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                 \
	do {                                                                               \
		const char *a_ = (a), *b_ = (b);                                           \
		int ok_ = a_ && b_ && strcmp(a_, b_) == 0;                                 \
		if (!check_report(ok_, __FILE__, __LINE__, #a " == " #b))                  \
			fprintf(stderr, "    \"%s\" != \"%s\"\n", a_ ? a_ : "(null)",          \
				b_ ? b_ : "(null)");                                       \
	} while (0)

static inline int check_done(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed != 0;
}

#endif
