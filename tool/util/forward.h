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

#endif
