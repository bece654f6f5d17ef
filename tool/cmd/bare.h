/*
 * bare.h - `zond record` of a bare-metal RISC-V program run under QEMU
 * (runtime/bare, doc/bare-metal.md).
 *
 * The program is linked with libzond-rv32imac.a or libzond-rv64imac.a
 * (`zond config --target ...`); at exit it writes its raw data through
 * semihosting to the host path in its zond_bare_file.  zond runs QEMU where
 * the user runs it, on a copy of the ELF whose zond_bare_file names a file
 * in zond's raw directory, and names the raw file's one module, which the
 * target cannot name, after the ELF file before the file is read.
 */
#ifndef ZOND_BARE_CMD_H
#define ZOND_BARE_CMD_H

#include "launch.h"

/* 1 when l->argv runs a bare-metal target: a qemu-system-* command, or elf given (--elf). */
int bare_wanted(const struct launch *l, const char *elf);

/*
 * 1 when argv runs QEMU (qemu-system-*) without -icount: its mcycle then
 * follows the host's clock, the cycles are not instructions and the
 * runtime's exact accounting of zond's own cost (doc/bare-metal.md) and
 * zond inject's payload cost become estimates; bare_host_clock_note says
 * so, in one line (QA s13 U F3: nothing did, and inject spoke of
 * instructions).
 */
int bare_qemu_without_icount(char *const *argv);
extern const char bare_host_clock_note[];

/*
 * Runs l->argv (after launch_parse and launch_find_program), every
 * argument naming the ELF replaced by the patched copy, and stores its run
 * like launch_collect; elf: the program's ELF file, NULL for QEMU's -kernel
 * argument.  zond's exit status.
 */
int bare_record(struct launch *l, const char *elf);

/*
 * `zond record --gdb HOST:PORT --elf elf`: a target behind a GDB stub (QEMU's
 * -gdb, OpenOCD; HOST:PORT or a Unix socket's /PATH), its raw data read from
 * its RAM.  zond stops it at the runtime's end (zb_write_out, the data
 * final, its semihosting write then skipped), after duration_s seconds
 * (0: none) or at Ctrl-C (a partial run: the pools as they are), reads
 * zond_raw_buffer (address and size from elf's symbols, the bytes used from
 * its header), detaches (the target runs on) and stores the run like
 * launch_collect.  zond's exit status: the target's at its end, 0 after a
 * partial run, 1 when nothing was read (one line says why).
 */
int bare_record_gdb(struct launch *l, const char *hostport, const char *elf, int duration_s);

#endif
