/* progress.c - the progress line of the commands that run a program (progress.h). */
#include "progress.h"
#include "util/clock.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Longest line drawn (wider terminals get no more). */
#define LINE_MAX_LEN 160

void progress_start(struct progress *pr, const char *cmd, int wanted)
{
	*pr = (struct progress){
		.cmd = cmd, .on = wanted && isatty(STDERR_FILENO), .start_ns = clock_now_ns(CLOCK_MONOTONIC)};
}

/* All of buf to stderr; a terminal that takes no more turns the line off. */
static void put(struct progress *pr, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(STDERR_FILENO, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			pr->on = 0;
			pr->shown = 0;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Columns the line may take: one less than the terminal's, so that it never wraps. */
static size_t line_room(void)
{
	struct winsize ws;
	size_t cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	return cols - 1 < LINE_MAX_LEN ? cols - 1 : LINE_MAX_LEN;
}

/* "3.4 MB": bytes for reading. */
static void format_size(char *buf, size_t len, uint64_t bytes)
{
	if (bytes < (1 << 20))
		snprintf(buf, len, "%" PRIu64 " KB", (bytes + 512) >> 10);
	else if (bytes < (1 << 30))
		snprintf(buf, len, "%.1f MB", (double)bytes / (1 << 20));
	else
		snprintf(buf, len, "%.2f GB", (double)bytes / (1 << 30));
}

/* The line's text, cut to room; its length. */
static size_t line_text(const struct progress *pr, const struct progress_figures *f, char *text,
			size_t room)
{
	char size[32], buf[LINE_MAX_LEN + 64];
	size_t n = (size_t)snprintf(buf, sizeof buf, "zond %s: %.1f s", pr->cmd,
				    (double)(clock_now_ns(CLOCK_MONOTONIC) - pr->start_ns) / 1e9);
	if (f->count_unit && n < sizeof buf)
		n += (size_t)snprintf(buf + n, sizeof buf - n, ", %" PRIu64 " %s", f->count,
				      f->count_unit);
	if (f->bytes_what && n < sizeof buf) {
		format_size(size, sizeof size, f->bytes);
		n += (size_t)snprintf(buf + n, sizeof buf - n, ", %s %s", size, f->bytes_what);
	}
	if (f->lost && n < sizeof buf)
		n += (size_t)snprintf(buf + n, sizeof buf - n, ", %" PRIu64 " lost", f->lost);
	if (n > room)
		n = room;
	memcpy(text, buf, n);
	return n;
}

void progress_show(struct progress *pr, const struct progress_figures *f)
{
	/* a background job's line would land in the middle of the user's shell */
	if (!pr->on || tcgetpgrp(STDERR_FILENO) != getpgrp())
		return;
	char text[LINE_MAX_LEN], line[3 * LINE_MAX_LEN + 2];
	size_t n = line_text(pr, f, text, line_room()), len = 0;
	line[len++] = '\r';
	memcpy(line + len, text, n);
	len += n;
	if (n < pr->shown) { /* spaces over the rest of the longer line, then back */
		memset(line + len, ' ', pr->shown - n);
		len += pr->shown - n;
		line[len++] = '\r';
		memcpy(line + len, text, n);
		len += n;
	}
	pr->shown = n;
	put(pr, line, len);
}

void progress_clear(struct progress *pr)
{
	char line[LINE_MAX_LEN + 2];
	if (!pr->shown)
		return;
	line[0] = '\r';
	memset(line + 1, ' ', pr->shown);
	line[pr->shown + 1] = '\r';
	put(pr, line, pr->shown + 2);
	pr->shown = 0;
}

/* A descriptor that polls readable once pid has ended; -1 if the kernel has none. */
static int pid_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec */
#else
	(void)pid;
	return -1;
#endif
}

pid_t progress_wait(struct progress *pr, pid_t pid, int *status,
		    void (*figures)(void *arg, struct progress_figures *f), void *arg)
{
	int fd = pr->on ? pid_fd(pid) : -1;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (fd >= 0) {
		int n = poll(&p, 1, PROGRESS_INTERVAL_MS);
		if (n > 0 || (n < 0 && errno != EINTR))
			break;
		if (n == 0) {
			struct progress_figures f = {0};
			figures(arg, &f);
			progress_show(pr, &f);
		}
	}
	if (fd >= 0)
		close(fd);
	progress_clear(pr);
	pid_t rc;
	while ((rc = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return rc;
}

void progress_file_size(void *path, struct progress_figures *f)
{
	struct stat st;
	if (path && stat(path, &st) == 0) {
		f->bytes_what = "written";
		f->bytes = (uint64_t)st.st_size;
	}
}
