/*
 * forward.h - the signals someone sends zond to stop or poke the program it
 * runs (timeout(1), kill, a closing terminal), passed on to the program
 * while it runs, so that zond waits for its end and keeps what it
 * measured.  A terminal's ^C and ^\ reach the whole foreground process
 * group, the program too: those (si_code SI_KERNEL) are not sent twice; a
 * signal the program sent zond is not sent back.  A signal zond's parent
 * made it ignore (nohup, a script's background job) is passed on too: the
 * program inherits the ignoring, and a handler of its own takes the signal
 * as it would plainly.
 *
 * forward_start installs the handlers (nothing is passed on until
 * forward_to names the program), forward_stop restores what was there.
 * One program at a time.
 *
 * Once the program has ended, zond may have most of its work still ahead:
 * reading what the program left and storing it takes longer than a program
 * of many short calls ran.  A signal then (timeout(1) whose limit falls
 * there, a ^C typed while the profile is "almost done") must not cost the
 * run without a word.  With forward_hold called before, forward_stop holds
 * the signals instead of restoring them: the first one writes a line
 * (naming it) and zond goes on; a second one writes another and zond dies
 * of it, as the sender asked twice.
 */
#ifndef ZOND_UTIL_FORWARD_H
#define ZOND_UTIL_FORWARD_H

#include <signal.h>
#include <sys/types.h>

#define FORWARD_N 7

struct forward {
	struct sigaction old[FORWARD_N];
};

/* The signals passed on, FORWARD_N of them. */
extern const int forward_signals[FORWARD_N];

void forward_start(struct forward *f);
void forward_to(pid_t program);
void forward_stop(const struct forward *f);
/* In the program's process before its exec: the dispositions zond found. */
void forward_restore(const struct forward *f);

/*
 * Makes the next forward_stop hold the signals: the first writes head, its
 * name ("SIGTERM") and tail on stderr, and zond goes on; a second writes
 * again and zond dies of it (no core of its own).  The strings are not
 * copied: they must last until zond ends.
 */
void forward_hold(const char *head, const char *tail, const char *again);
/* The signal taken while held (the first), or 0. */
int forward_held(void);
/*
 * Once there is nothing left to lose (the run is stored): the signals wait,
 * blocked, and zond ends as it was going to.
 */
void forward_defer(void);

/*
 * zond's own lines on a pipe whose reader left (`zond trace record -- PROG
 * 2>&1 | head -1`, a `less` quit early) cost those lines only: the write
 * fails with EPIPE and zond goes on, stores the run and ends as the program
 * did, where SIGPIPE killed it (status 141).  Called first thing by every
 * command that runs a program, before zond's first line.  A handler that
 * does nothing, not SIG_IGN: exec gives every program zond starts SIGPIPE's
 * default back (a caught signal is reset by exec; an ignored one would stay
 * ignored in the program); a SIGPIPE zond's parent made it ignore stays
 * ignored, the program's as it would be plainly.
 */
void forward_own_pipe(void);

#endif
