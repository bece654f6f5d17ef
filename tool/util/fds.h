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

/*
 * For a process whose descriptor table a program shares (zond's QEMU plugin
 * and the guest): fd moved, close-on-exec, to a number the program never gets
 * from open() -- above its soft RLIMIT_NOFILE when the hard limit leaves room
 * (raised for the one dup, then put back), else the highest free one below
 * it, the last number the program's open() would give.  fd itself is closed.  The new descriptor; fd unchanged if it
 * cannot be moved.
 */
int fds_move_high(int fd);

#endif
