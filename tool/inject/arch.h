/*
 * arch.h - what zond inject needs to know of one instruction set: where a
 * function's entry can be overwritten by a jump, how the overwritten
 * instructions are relocated to run elsewhere, and how a jump is written.
 *
 * The engine (scenarios, transports) knows none of this; each architecture
 * (arch/<name>/) fills a struct inject_arch.  Addresses are those the code
 * runs at: link-time addresses for --coverage, run-time ones when patching
 * a process (the engine adds the load bias).
 *
 * Contract of plan(): code holds the function's bytes (size of them) and,
 * after them, `padding` bytes of alignment fill that no other symbol
 * claims (0 when unknown); the patch goes at `offset` into it: 0 for a
 * function's entry (a loop back to it is refused), else a point inside
 * (region probes: a jump to the point itself is fine, it is a pass).  It either fills site and
 * returns 0, or returns 1 with one line in why saying why the entry cannot be patched ("too short:
 * 3 bytes, the jump needs 5", "the body jumps to +2, inside the patched
 * bytes", ...).  A site that uses padding says so in site->padding (the
 * fallback for short functions).  A site with by_break set is one the jump
 * cannot take (RISC-V: a 2-byte function, a body branching to +2): len
 * covers the first instruction, relocated but not overwritten; a debugger
 * breakpoint at addr stops each call and the transport moves the pc to the
 * stub (GDB transports only; why then says why the jump could not go there).
 *
 * A site with hop set is one a branch lands inside of, past its first
 * instruction (glibc's __mempcpy_* jump to __memcpy_*+3): only the first
 * instruction (after endbr64) is relocated and len covers it; hop() writes
 * a hop_len-byte jump there to site->slot, jump_len bytes of alignment fill
 * nearby where jump() goes to the stub, so that the branch lands on the
 * function's own untouched code.  plan() sets hop (why then says which
 * branch keeps the jump from the entry) only at offset 0, when the first
 * instruction is at least hop_len bytes and every branch into the bytes
 * the jump would overwrite lands at or past its end; the engine finds the
 * slot (inject_plan_file) or refuses the function.
 *
 * Contract of relocate(): writes to out (cap bytes) the site's overwritten
 * instructions re-encoded to run at address `to`, followed by a jump back
 * to the first byte after the overwritten ones (unless the last one never
 * falls through); returns the length, or -1 with why set when an operand
 * cannot reach its target from `to`.  site->map_from/map_to then give, per
 * relocated instruction, its offset in the original and in the copy, so the
 * engine can move a thread stopped inside the overwritten bytes.
 */
#ifndef ZOND_INJECT_ARCH_H
#define ZOND_INJECT_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* What a patch measures (the stub an architecture writes for it). */
enum inject_probe {
	INJECT_FUNCTION,    /* entry and, through the return address, exit of a function */
	INJECT_REGION_FROM, /* a point where the region's counter starts */
	INJECT_REGION_TO,   /* a point where it stops and one pass is accumulated */
	INJECT_UNWIND,      /* an unwinder's entry: the thread's replaced return
			     * addresses are given back before it walks the stack */
	INJECT_SAFE,        /* the cyclic scenario's safe point (a function's entry):
			     * while the results' park flag is set, a thread
			     * arriving there waits (parked) until zond clears it */
	INJECT_LOADED,      /* the dynamic loader's r_brk (_dl_debug_state): while
			     * a library to patch is not loaded yet, a thread
			     * arriving there waits until zond has looked */
	INJECT_SWITCH,      /* swapcontext's, setcontext's entry: the thread leaves
			     * its stack; every frame's return address is given
			     * back and the frame dropped (counted, untimed) */
	INJECT_CATCH,       /* __cxa_begin_catch's entry: the frames a caught
			     * exception left are dropped, the live ones get
			     * their measured return again */
	INJECT_CLONE,       /* clone's entry: a CLONE_VM child sharing its parent's
			     * thread pointer (no CLONE_SETTLS) marks the slot
			     * shared, measured no more */
	INJECT_PRCTL,       /* prctl's and syscall's entries: a process going */
	INJECT_SYSCALL,     /* under seccomp makes the payload make no system call */
	INJECT_CLOSE,       /* with --event, close's and close_range's entries: */
	INJECT_CLOSE_RANGE, /* the counters' fds stay open (closed around) */
};

#define INJECT_SITE_INSNS 16
#define INJECT_WHY        224

struct inject_site {
	uint64_t addr;    /* the function's first byte */
	uint32_t keep;    /* bytes left in place before the patch (x86-64: endbr64) */
	uint32_t len;     /* bytes overwritten from addr + keep */
	uint32_t padding; /* of those, bytes of alignment fill after the function */
	uint32_t by_break; /* 1: entered through a breakpoint, the code is not written */
	uint32_t far;      /* 1: planned for the far jump (far_len bytes, or a breakpoint
			    * with far jumps back) */
	uint32_t hop;      /* 1: entered by a hop: hop_len bytes at addr + keep jump to slot */
	uint64_t slot;     /* with hop: jump_len bytes of alignment fill, never run, where
			    * the jump to the stub goes */
	uint32_t ninsn;   /* instructions relocated */
	uint32_t map_from[INJECT_SITE_INSNS]; /* offset from addr + keep, in the original */
	uint32_t map_to[INJECT_SITE_INSNS];   /* offset in the relocated copy */
};

/*
 * A perf_event counter the payload reads instead of the architecture's own
 * (--event page-faults): the attr's type and config, counted in user and
 * kernel mode unless exclude_kernel (the kernel's perf_event_paranoid may
 * allow only user mode).  Each thread gets its own fd at its first
 * measured call.
 */
struct inject_event {
	const char *name, *unit; /* as stored: "page-faults" and "count" */
	uint32_t type;
	uint64_t config;
	int exclude_kernel;
};

/* The target's addresses the payload needs (results.h has the layout). */
struct inject_payload_args {
	uint64_t shm;                /* the shared results */
	uint64_t threads, slot_size; /* the private thread slots */
	uint64_t stats;              /* offset of the statistics in a shared block */
	uint64_t c0, cpair;          /* compensation, in counter ticks */
	uint64_t exit;               /* the exit payload measured functions return through */
	uint64_t blocks, block_size; /* the shared blocks, one per slot */
	uint64_t edges;              /* offset of the call edges in a block, 0: none */
	uint64_t nfuncs;
	const struct inject_event *event; /* NULL: the architecture's own counter */
	uint64_t fd_base;                 /* event: the lowest fd number its fds may take */
	uint64_t contexts; /* the calling contexts' areas (results.h), 0: none kept */
	uint64_t proc;     /* x86-64: a private page of the target's, zeroed in a forked child */
	uint64_t tidoff;   /* x86-64: where a thread's TCB holds its id, from the thread
			    * pointer (glibc's struct pthread tid), 0: not known */
	int fast_clock;    /* the architecture's counter read unfenced (arch->calibrate_fast
			    * set; event NULL): cheaper, but a function's last instructions
			    * may still run after its exit's read */
	uint32_t depth;    /* RISC-V: measured calls nested at once the shadow stack holds
			    * (zond inject --depth; 0: INJ_DEPTH); x86-64: INJ_DEPTH, fixed */
};

struct inject_arch {
	const char *name;   /* "x86_64" */
	uint32_t jump_len;  /* bytes of the jump written at an entry */
	uint32_t reloc_max; /* largest relocated copy relocate() may write */
	int (*plan)(const uint8_t *code, size_t size, size_t padding, uint64_t addr, size_t offset,
		    struct inject_site *site, char *why);
	int (*relocate)(struct inject_site *site, const uint8_t *code, uint64_t to, uint8_t *out,
			size_t cap, char *why);
	/*
	 * The far jump, for trampolines out of the jump's reach (0 and NULL:
	 * none): plan_far as plan() at offset 0 for far_len bytes, jump_far
	 * writes it (far_len bytes, any distance the architecture's code can
	 * span).  RISC-V: auipc t1 + jalr, refused for functions that never
	 * write t1 (GCC's -fipa-ra may let their callers keep a value there).
	 */
	uint64_t reach; /* the jump's reach either way, in bytes (0: not limited) */
	uint32_t far_len;
	int (*plan_far)(const uint8_t *code, size_t size, size_t padding, uint64_t addr,
			struct inject_site *site, char *why);
	size_t (*jump_far)(uint64_t from, uint64_t to, uint8_t *out);
	/*
	 * Calls fn for the target of every direct branch found in the size
	 * bytes of code at addr (a linear sweep, as plan's own), so that a
	 * jump from one function into another's patched bytes is seen.  NULL:
	 * not known for the architecture.
	 */
	void (*branches)(const uint8_t *code, size_t size, uint64_t addr,
			 void (*fn)(void *arg, uint64_t target), void *arg);
	/* How many of the n bytes at b are alignment fill (nops, int3, zeros). */
	size_t (*fill)(const uint8_t *b, size_t n);
	/* Writes the jump from `from` to `to` (within reach) and returns its length. */
	size_t (*jump)(uint64_t from, uint64_t to, uint8_t *out);
	/*
	 * The hop (0 and NULL: none): a jump of hop_len bytes from an entry to
	 * its slot, which hop_reach bytes either way bound.  hop() writes it
	 * and returns hop_len, or 0 when `to` is out of its reach.
	 */
	uint32_t hop_len, hop_reach;
	size_t (*hop)(uint64_t from, uint64_t to, uint8_t *out);
	/*
	 * 1 when the last instruction of the size bytes of a function's code
	 * (a linear sweep, as plan's own, that ends exactly at size) never
	 * falls through to the byte after it (a return, a jump, a trap); 0 when
	 * it may or is not known.  The fill after such a function never runs:
	 * a hop's slot may go there.
	 */
	int (*ends_flow)(const uint8_t *code, size_t size);
	/*
	 * 1 (why set) when the function of size bytes of code reads its own
	 * return address, which a function's probe makes the trampoline's
	 * (__builtin_return_address(0): libgcc's uw_init_context_1 aborts,
	 * glibc's mcount drops the arc); 0 when not seen.  NULL: not known
	 * for the architecture.
	 */
	int (*reads_return)(const uint8_t *code, size_t size, char *why);

	/*
	 * The payload: one blob per trampoline area, written to out (its
	 * length returned; 0 if cap is too small), then one stub per patch
	 * (its length returned, at most stub_len; it starts with the 4-byte
	 * id, the patch's jump goes after it) calling the blob at payload_at
	 * for a probe of that kind, directly followed by the relocated copy.
	 */
	size_t (*payload)(uint8_t *out, size_t cap, const struct inject_payload_args *a);
	/* The exit payload's address (the return address the entry puts on the
	 * stack) in a blob written at payload_at. */
	uint64_t (*exit_addr)(uint64_t payload_at);
	uint32_t stub_len;
	size_t (*stub)(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id,
		       enum inject_probe kind);
	/*
	 * The payload's cost, measured here on this machine: c0 the part of it
	 * inside a measured interval, cpair what one measured call adds to its
	 * caller's, in ticks of the counter, and its ticks per second.
	 * 0, or -1 with err.
	 */
	int (*calibrate)(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err);
	/* The region probes' part of a measured pass (FROM then TO at once), in ticks. */
	int (*calibrate_region)(uint64_t *c0, uint64_t *hz, struct zerr *err);
	/*
	 * calibrate() and calibrate_region() (cpair NULL) for a perf_event
	 * counter, counted by the payload here as in the target; hz is then
	 * the payload's units per 10^9 events (ns for task-clock).  NULL: the
	 * architecture reads no perf_event counter.
	 */
	int (*calibrate_event)(const struct inject_event *ev, uint64_t *c0, uint64_t *cpair,
			       uint64_t *hz, struct zerr *err);
	/*
	 * calibrate() and calibrate_region() (cpair NULL) for the payload
	 * written with fast_clock, the variant measured.  NULL: the
	 * architecture's counter has no unfenced read (--fast-clock refused).
	 */
	int (*calibrate_fast)(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err);
	const char *counter; /* "tsc" */
	int contexts;        /* the payload keeps calling contexts (results.h) */
};

/*
 * The reason of a refusal for a direct branch at +off of a function at addr
 * to t, inside the patched bytes [lo, hi): "jumps back to the entry" for lo
 * itself, else "jumps to +K, inside the B bytes the jump overwrites".
 */
void inject_why_jumps_in(char *why, size_t off, uint64_t addr, uint64_t t, uint64_t lo,
			 uint64_t hi);

/*
 * Turns site, planned for the whole jump at a function's entry, into a hop
 * site: only its first instruction relocated (len, ninsn 1, no padding).
 * 0, or -1 (site unchanged) when the first instruction is shorter than
 * hop_len (0: the arch has no hop), is all the jump overwrites, or runs
 * into the fill after the function.
 */
int inject_site_to_hop(struct inject_site *site, uint32_t hop_len);

/* The bytes written at a site's entry: the hop's or the jump's. */
uint32_t inject_entry_len(const struct inject_arch *a, const struct inject_site *site);

/* The architecture called name ("x86_64"), or NULL when zond was built without it. */
const struct inject_arch *inject_arch_find(const char *name);

#endif
