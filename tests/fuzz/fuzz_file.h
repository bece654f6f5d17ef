/*
 * fuzz_file.h - the libFuzzer targets' one helper: zond's parsers read
 * files by path, so each input is written whole into one temporary file
 * (created once per process, under $TMPDIR) that the parser then opens.
 */
#ifndef ZOND_FUZZ_FILE_H
#define ZOND_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The path of a file holding exactly data[0..size). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[4096];
	static int fd = -1;
	if (fd < 0) {
		const char *tmp = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/zond-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		fd = mkstemp(path);
		if (fd < 0) {
			perror(path);
			abort();
		}
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror(path);
		abort();
	}
	return path;
}

/*
 * One error line, naming the file: what every parser promises for bad input
 * (tool/util/error.h).  A message without the path is a finding.
 */
static inline void fuzz_check_error(const char *msg, const char *path)
{
	size_t n = 0;
	while (path[n] && msg[n] == path[n])
		n++;
	if (path[n] != 0) {
		fprintf(stderr, "error does not name the file: %s\n", msg);
		abort();
	}
	for (const char *c = msg; *c; c++)
		if (*c == '\n') {
			fprintf(stderr, "error of more than one line: %s\n", msg);
			abort();
		}
}

#endif
