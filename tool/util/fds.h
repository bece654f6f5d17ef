/*
 * fds.h - the descriptors a program zond runs inherits: those zond itself
 * inherited (the user's: a redirection, a pipe, a socket passed on), never
 * those zond opened (its store, ELF files, the separate debug files and
 * the debuginfod client's sockets libdw opens without O_CLOEXEC).
 *
 * fds_note_inherited, first thing in main, notes what is open; fds_keep_own
 * marks every descriptor opened since close-on-exec, just before a program
 * is started.  Without the note nothing is marked.
 */
#ifndef ZOND_UTIL_FDS_H
#define ZOND_UTIL_FDS_H

void fds_note_inherited(void);
void fds_keep_own(void);

#endif
