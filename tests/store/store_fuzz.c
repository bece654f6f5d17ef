/*
 * store_fuzz.c - a damaged store file gives an error naming it, never a crash.
 *
 * Starts from a real store (three runs), then truncates it at many lengths
 * and overwrites bytes at many places, each time opening, listing, finding
 * and loading every run.  The mutations come from a fixed-seed generator, so
 * a failure repeats; the sanitizer build (-DZOND_SANITIZE=ON) runs this same
 * loop under ASan and UBSan.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "sample.h"
#include "store/store.h"

#define MUTATIONS 1000

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic across platforms and libcs */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned char *read_all(const char *path, size_t *n)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		exit(2);
	}
	*n = (size_t)st.st_size;
	unsigned char *buf = malloc(*n);
	if (!buf || read(fd, buf, *n) != (ssize_t)*n) {
		perror(path);
		exit(2);
	}
	close(fd);
	return buf;
}

static void write_all(const char *path, const unsigned char *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n || close(fd) != 0) {
		perror(path);
		exit(2);
	}
}

/* A failed call must leave a message that names the file. */
static void check_message(const struct zerr *err, const char *path)
{
	CHECK(strncmp(err->msg, path, strlen(path)) == 0 && strlen(err->msg) > strlen(path) + 2);
}

/* Everything a report would do with the file; 1 when all of it worked. */
static int use_store(const char *path)
{
	struct zerr err = {{0}};
	struct store *s = store_open(path, STORE_READ, &err);
	if (!s) {
		check_message(&err, path);
		return 0;
	}
	int ok = 1;
	struct zp_profile **runs;
	size_t n;
	if (store_list_runs(s, &runs, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++)
			profile_free(runs[i]);
		free(runs);
	} else {
		check_message(&err, path);
		ok = 0;
	}
	const char *refs[] = {"last", "-2", "1", "3"};
	for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
		int64_t id;
		memset(&err, 0, sizeof err);
		struct zp_profile *p = NULL;
		if (store_find_run(s, refs[i], &id, &err) == 0)
			p = store_load_run(s, id, &err);
		if (!p) {
			check_message(&err, path);
			ok = 0;
		}
		profile_free(p);
	}
	store_close(s);
	return ok;
}

int main(void)
{
	char *dir = sample_tmpdir();
	char *good = sample_path(dir, "good.db"), *bad = sample_path(dir, "bad.db");
	struct zerr err;
	struct store *s = store_open(good, STORE_CREATE, &err);
	for (int i = 0; i < 3; i++) {
		struct zp_profile *p = i == 1 ? sample_big_profile(2, 300) : sample_profile("c");
		CHECK(store_add_run(s, p, &err) == 0);
		profile_free(p);
	}
	store_close(s);

	size_t n;
	unsigned char *orig = read_all(good, &n);
	unsigned char *buf = malloc(n);
	CHECK(use_store(good) == 1);

	int failures = 0;
	for (int i = 0; i < MUTATIONS; i++) {
		memcpy(buf, orig, n);
		size_t len = n;
		if (i % 4 == 0) {
			len = (size_t)(rng() % n);
		} else {
			/* A few bytes, or a run of garbage as a torn write would leave. */
			size_t at = (size_t)(rng() % n), count = i % 4 == 3 ? 1 + rng() % 64 : 1;
			for (size_t k = 0; k < count && at + k < n; k++)
				buf[at + k] = (unsigned char)rng();
		}
		write_all(bad, buf, len);
		failures += !use_store(bad);
	}
	printf("%d of %d damaged stores refused (the rest hit unused bytes)\n", failures,
	       MUTATIONS);
	/* Every truncation loses pages a run needs, so many must have been refused. */
	CHECK(failures >= MUTATIONS / 4);
	free(orig);
	free(buf);
	free(good);
	free(bad);
	sample_rmdir(dir);
	return check_done();
}
