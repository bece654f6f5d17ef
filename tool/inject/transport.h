/*
 * transport.h - how zond inject reaches a target: its memory, a place for
 * trampolines near its code, memory shared with the controller, and letting
 * it run.  One interface, several transports: ptrace for Linux processes
 * (transport/ptrace.c); the GDB remote protocol for bare-metal targets
 * behind QEMU's gdbstub or a debug probe (transport/gdb.c, over
 * transport/rsp.c).  The engine and the scenarios use only this.
 *
 * Contract: every function returns 0, or -1 with one line in err naming
 * the target and what failed; after a failure the target is left running
 * or gone, never stopped for ever.  Addresses are the target's.
 *
 *   read, write   the target's memory, code pages included (write ignores
 *                 page protection, as a debugger does)
 *   alloc         len bytes of private read-write memory of the target
 *   alloc_near    len bytes of executable memory within +-2 GiB of addr
 *                 (rel32 jumps from the code there and back reach)
 *   share         len bytes of memory the target and the controller both
 *                 map: *local is the controller's view, *remote the
 *                 target's.  What the target writes there survives its
 *                 crash or SIGKILL (ptrace: a memfd).
 *   module_start  where the target mapped the start (file offset 0) of
 *                 the file `path`; with symbols_load_start that gives the
 *                 load bias
 *   run_to        (a started target) lets it run until it reaches addr, and
 *                 stops it there (the loader's r_brk at the end of its
 *                 start-up, or the program's entry point); stopped at addr
 *                 already, it runs to addr's next arrival
 *   modules       calls fn for every ELF file the target maps (its path and
 *                 where file offset 0 is mapped)
 *   threads       the number of the target's threads (all stopped); pc and
 *                 set_pc read and move the program counter of thread i
 *   release       lets the target run with no further stops
 *   stop          (after release) stops every thread again
 *   wait          (after release) waits for the target to end and gives
 *                 its wait status; only for a target the transport started
 *   close         frees the transport (the target keeps running)
 *   ended         (optional, may be NULL: never) whether the target has
 *                 ended, without waiting; 1 with its wait status (-1 when
 *                 not known: an attached process), else 0
 *   close_fd      (optional, may be NULL) closes descriptor fd of the stopped
 *                 target (the payload's counters, before an attached
 *                 process is released for good)
 *   unmap         (optional, may be NULL) unmaps memory alloc or alloc_near
 *                 gave that nothing uses yet (a preparation that failed)

 */
#ifndef ZOND_INJECT_TRANSPORT_H
#define ZOND_INJECT_TRANSPORT_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "util/error.h"

struct inject_transport {
	const struct inject_transport_ops *ops;
	int64_t pid; /* the target's process id, 0 when it has none */
};

struct inject_transport_ops {
	int (*read)(struct inject_transport *t, uint64_t addr, void *buf, size_t n,
		    struct zerr *err);
	int (*write)(struct inject_transport *t, uint64_t addr, const void *buf, size_t n,
		     struct zerr *err);
	int (*alloc)(struct inject_transport *t, size_t len, uint64_t *out, struct zerr *err);
	int (*alloc_near)(struct inject_transport *t, uint64_t addr, size_t len, uint64_t *out,
			  struct zerr *err);
	int (*share)(struct inject_transport *t, size_t len, void **local, uint64_t *remote,
		     struct zerr *err);
	int (*module_start)(struct inject_transport *t, const char *path, uint64_t *start,
			    struct zerr *err);
	int (*run_to)(struct inject_transport *t, uint64_t addr, struct zerr *err);
	int (*modules)(struct inject_transport *t,
		       void (*fn)(void *arg, const char *path, uint64_t start), void *arg,
		       struct zerr *err);
	size_t (*threads)(struct inject_transport *t);
	int (*pc)(struct inject_transport *t, size_t i, uint64_t *pc, struct zerr *err);
	int (*set_pc)(struct inject_transport *t, size_t i, uint64_t pc, struct zerr *err);
	int (*release)(struct inject_transport *t, struct zerr *err);
	int (*stop)(struct inject_transport *t, struct zerr *err);
	int (*wait)(struct inject_transport *t, int *status, struct zerr *err);
	void (*close)(struct inject_transport *t);
	int (*ended)(struct inject_transport *t, int *status);
	int (*close_fd)(struct inject_transport *t, int fd, struct zerr *err);
	/* (optional, may be NULL) unmaps what alloc or alloc_near gave, nothing in it used yet */
	int (*unmap)(struct inject_transport *t, uint64_t addr, size_t len, struct zerr *err);
	/* (optional) madvise(addr, len, advice) in the target (all stopped) */
	int (*advise)(struct inject_transport *t, uint64_t addr, size_t len, int advice,
		      struct zerr *err);
	/*
	 * (optional) 1 when the target's image was replaced (exec) since share():
	 * nothing zond wrote or mapped is in it any more, its addresses are
	 * another program's (stopped or not)
	 */
	int (*replaced)(struct inject_transport *t);
	/* (optional) runs one instruction of thread i of the stopped target */
	int (*step)(struct inject_transport *t, size_t i, struct zerr *err);
	/* (optional) calls fn for every mapping of the stopped target (its path, "" for none) */
	int (*each_map)(struct inject_transport *t,
			void (*fn)(void *arg, uint64_t lo, uint64_t hi, const char *path), void *arg,
			struct zerr *err);
	/* (optional) thread i's thread pointer (x86-64: fs_base) and its id */
	int (*thread_tp)(struct inject_transport *t, size_t i, uint64_t *tp, int64_t *tid,
			 struct zerr *err);
	/*
	 * (optional) a pipe's read end in the stopped target (*fd), whose only
	 * writer is zond: it hangs up when zond ends, however it ends
	 */
	int (*lifeline)(struct inject_transport *t, int *fd, struct zerr *err);
};

/*
 * Starts argv[0] (searched in PATH) under ptrace, stopped just after its
 * exec, before any of its code ran.  NULL with err set when it cannot run.
 */
struct inject_transport *inject_ptrace_start(char *const argv[], struct zerr *err);

/*
 * The same, for a zond that passes signals on (util/forward.h): the
 * program gets the dispositions fw kept and the signal mask mask (zond's
 * own before it blocked the forwarded signals until forward_to).  Signals
 * someone sends the program while zond holds it are given back to it when
 * zond lets it go (never swallowed by a stop of zond's).
 */
struct forward;
struct inject_transport *inject_ptrace_start_forwarding(char *const argv[],
							const struct forward *fw,
							const sigset_t *mask, struct zerr *err);

/*
 * Attaches to the running process pid: PTRACE_SEIZE and PTRACE_INTERRUPT
 * every thread, again until /proc/PID/task shows no new one.  NULL with err
 * set, saying what the user can do when ptrace is refused (Yama's
 * ptrace_scope, another tracer, another user's process).  wait() is not
 * available (the process is not zond's child).
 */
struct inject_transport *inject_ptrace_attach(int64_t pid, struct zerr *err);

/*
 * -1 with err (one line) when a thread of process pid runs under seccomp
 * (filter or strict mode): zond runs no system call inside it (QA s16 X2 F7).
 */
int inject_ptrace_sandboxed(int64_t pid, struct zerr *err);

/*
 * The GDB remote protocol transport (transport/gdb.c): one hart of a
 * bare-metal target running the ELF file elf, linked where it runs (load
 * bias 0).  There is no memory shared as such: share() gives a buffer of
 * zond and an area of the scratch RAM; release() writes the buffers to the
 * target, stop() and wait() read them back, and so does wait() every
 * poll_ms while the target runs (0: only at the end), stopping it for the
 * read (under QEMU's -icount the program cannot tell), and once more at a
 * breakpoint on end_at (the program's _exit).  When the
 * connection is lost, the buffers keep the last read and wait() says when
 * that was.  alloc and alloc_near take scratch RAM: [scratch, scratch +
 * scratch_len) when given, else the widest gap between the ELF's loaded
 * segments (symbols_segment_gap), which is RAM on QEMU's virt board.
 * Code written while the target is stopped is what it runs on resuming:
 * QEMU drops translated blocks a debugger write touches, a debug probe
 * (OpenOCD) runs fence.i before it resumes a hart.
 */
struct inject_rsp_options {
	const char *elf;
	uint64_t scratch, scratch_len; /* scratch_len 0: found from the ELF */
	int timeout_ms;                /* any one reply */
	int poll_ms;
	uint64_t end_at; /* where the program ends (_exit), 0: unknown: a breakpoint
			  * there lets wait() read the results before the target is gone */
	const char *counter; /* a register wait() reads at end_at, or where
			      * inject_rsp_wait_for stops the target; NULL: none */
	int exact_clock; /* the counter counts instructions (QEMU's -icount): a step over one
			  * instruction that moves it more is the clock warped at a stop */
	int (*stop_asked)(void); /* non-zero: wait() stops the target as inject_rsp_wait_for's
				  * time would (^C to zond), returning 1; NULL: never */
	void (*on_read)(void *arg); /* after each read of the results while the target runs (a
				     * poll, inject_rsp_wait_for's stop), the target stopped; NULL:
				     * none */
	void *read_arg;
};

/* Connects to a stub at HOST:PORT (or /PATH, a Unix socket) and stops its target. */
struct inject_transport *inject_rsp_connect(const char *hostport,
					    const struct inject_rsp_options *o, struct zerr *err);

/*
 * Starts argv (qemu-system-*) with -gdb on a Unix socket of its own and -S
 * (stopped before the first instruction) added, and connects.  wait() gives
 * QEMU's own wait status (the program's exit status with semihosting).
 */
struct inject_transport *inject_rsp_start(char *const argv[], const struct inject_rsp_options *o,
					  struct zerr *err);

/*
 * A register of an RSP transport's stopped target, by the name its
 * description gives ("a0", "mcycle"); -1 with err when there is none.
 */
int inject_rsp_get_reg(struct inject_transport *t, const char *name, uint64_t *value,
		       struct zerr *err);
int inject_rsp_set_reg(struct inject_transport *t, const char *name, uint64_t value,
		       struct zerr *err);
/*
 * Whether the hart's own stores land at addr (8 bytes of a stopped RSP
 * target's scratch RAM, put back after): QEMU's gdbstub writes ROM and
 * flash, so what the debugger wrote reads back even where the program's
 * stores are dropped.  zond writes `sw t1, 0(t0)` at addr, steps it once
 * with t0 = addr + 4 (pc, t0, t1 put back after: one instruction retired)
 * and reads the word back.  -1 with err ("... give RAM ... with --scratch")
 * when it does not land or the store traps.
 */
int inject_rsp_cpu_stores(struct inject_transport *t, uint64_t addr, struct zerr *err);
/*
 * Breakpoints zond handles itself at at[0..n) (an RSP transport's stopped
 * target; n = 0 takes them out): inserted at the next release(); each time
 * the target reaches one, wait() calls fn(arg, i) with the target stopped
 * there before the instruction (fn may read registers and write memory),
 * steps over that instruction and lets it run on; fn returning 1 takes
 * every breakpoint out (as n = 0 would).  A failing fn (-1) ends wait() as
 * a lost connection (what was measured is kept).  The instruction's length is the
 * breakpoint's kind.  A redirect at the same address is answered after fn
 * (the pc moved, no step): see inject_rsp_redirect.
 */
int inject_rsp_watch(struct inject_transport *t, const uint64_t *at, size_t n,
		     int (*fn)(void *arg, size_t i, struct zerr *err), void *arg, struct zerr *err);
/*
 * wait() of an RSP transport for at most seconds: 0 when the target ended
 * (*status as wait() gives it), 1 when it still ran and zond stopped it
 * (the shared buffers read, a watched breakpoint it stopped at counted, a
 * redirect's pc moved), -1 with err as wait().
 */
int inject_rsp_wait_for(struct inject_transport *t, double seconds, int *status, struct zerr *err);
/*
 * 1 when a step zond made over one instruction (at a watched breakpoint)
 * moved the counter by more than one under options' exact_clock: QEMU's
 * -icount with sleep on warps its clock to the next timer deadline while
 * the hart is stopped (said once on stderr when seen).
 */
int inject_rsp_clock_moved(struct inject_transport *t);
/* 1 with the counter's value read at the end (options' counter), else 0. */
int inject_rsp_counter_end(struct inject_transport *t, uint64_t *value);
/*
 * A breakpoint at from (inserted now: the target is stopped) whose stops
 * the transport answers itself: the pc moved to to, the target let run on;
 * no stop reaches the caller (zond inject's entries too short for a jump).
 * A stop at from that is also the end's (options' end_at) is the end's
 * first; one at a watched breakpoint runs its function first.
 * redirect_off removes the one at from (none there: nothing to do).
 */
int inject_rsp_redirect(struct inject_transport *t, uint64_t from, uint64_t to, struct zerr *err);
int inject_rsp_redirect_off(struct inject_transport *t, uint64_t from, struct zerr *err);

/*
 * Lets a target zond connected to (--gdb) run on without zond: every
 * breakpoint of zond's out (the end's, the watched ones, the redirects:
 * a stop at one would halt it with nobody to answer) and the target
 * released.  Written code is the caller's to put back.
 */
int inject_rsp_leave(struct inject_transport *t, struct zerr *err);

/* The target's register width in bytes (4: rv32, 8: rv64). */
unsigned inject_rsp_xlen(struct inject_transport *t);

#endif
