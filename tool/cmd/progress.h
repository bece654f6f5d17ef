/*
 * progress.h - one line on stderr saying how a long run goes, while the
 * commands that run a program wait for it (`zond record`, `zond libcalls`,
 * `zond trace record`):
 *
 *   zond record: 12.5 s, 1234567 calls, 3.4 MB raw, 12 lost
 *
 * It is drawn only when stderr is a terminal whose foreground job is zond's,
 * and the command did not turn it off (--no-progress, -q): with stderr a
 * file or a pipe not one byte of it is written, so what zond writes there
 * is the same as without it.  It is redrawn in place every
 * PROGRESS_INTERVAL_MS ("\r", the text, spaces over what was longer before;
 * no escape sequences, so any terminal shows it right), cut to the
 * terminal's width so that it never wraps (a wrapped line cannot be redrawn
 * with "\r"), and erased ("\r", spaces, "\r") before the command writes
 * anything else: its summary starts on a clean line.  The cursor rests at
 * the end of the text, as in curl or pv.
 *
 * The trade-off: the program shares the terminal, and zond cannot see what
 * it writes there.  What the program writes while the line is shown lands
 * after the line's text, on the same row; a redraw, or the erasing at the
 * end, overwrites an unfinished line of the program's (a prompt) on the
 * cursor's row.  Only the picture mixes: the program's streams get every
 * byte it writes, and a file or pipe it writes to is untouched.  Hence
 * --no-progress, for programs that talk to the terminal while they run.
 */
#ifndef ZOND_PROGRESS_H
#define ZOND_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROGRESS_INTERVAL_MS 500

/* What the line shows after the elapsed time. */
struct progress_figures {
	const char *count_unit; /* "calls", "instructions"; NULL: no count */
	uint64_t count;
	const char *bytes_what; /* "raw", "written"; NULL: no size */
	uint64_t bytes;
	uint64_t lost; /* records lost so far; shown when not 0 */
};

struct progress {
	const char *cmd; /* "record": the line starts "zond record: " */
	int on;          /* wanted, and stderr is a terminal */
	size_t shown;    /* length of the line on the terminal; 0: none */
	int64_t start_ns;
};

/* Starts the clock of pr; its line will be drawn if wanted and stderr is a terminal. */
void progress_start(struct progress *pr, const char *cmd, int wanted);

/* Draws the line with f, if pr is on and zond is the terminal's foreground job. */
void progress_show(struct progress *pr, const struct progress_figures *f);

/* Erases the line, if one is shown. */
void progress_clear(struct progress *pr);

/*
 * Waits for the child pid as waitpid(pid, status, 0) retried on EINTR does,
 * and while it runs, if pr is on, redraws the line with what figures(arg,
 * &f) gives every PROGRESS_INTERVAL_MS (polling a pidfd: the child's end is
 * seen at once, and a signal zond handles interrupts nothing but the poll).
 * The line is erased before it returns.  With pr off (or no pidfd to be
 * had) it is that waitpid alone.  waitpid's result.
 */
pid_t progress_wait(struct progress *pr, pid_t pid, int *status,
		    void (*figures)(void *arg, struct progress_figures *f), void *arg);

/* A figures function: the size so far of the file at path (arg; NULL: none), as "written". */
void progress_file_size(void *path, struct progress_figures *f);

#endif
