/*
 * instrument.h - libzond, the collector for code built with
 * -finstrument-functions: its thread-local probe state, start-up, and the
 * hooks.  It runs on the shared Linux port (linux.h).
 *
 * The hooks (hooks.c) read the clock and the thread state inline; every
 * other part runs on cold paths.
 */
#ifndef ZOND_INSTRUMENT_H
#define ZOND_INSTRUMENT_H

#include "linux.h"

/* The calling thread's probe state (initial-exec TLS: one instruction away). */
extern __thread struct zrt_thread zl_self __attribute__((tls_model("initial-exec")));

/* Tasks sharing a thread's TLS (tasks.h): libzond's state is zl_self. */
#define ZL_TASK_STATE struct zrt_thread
#define ZL_TASK_SELF zl_self
#define ZL_TASK_CORE(s) (s)
#define ZL_TASK_START() zl_start()
#define ZL_TASK_SHARING(on) ((void)(on))
#define ZL_TASK_END(s) zrt_thread_end(s)
#define ZL_TASK_VFORK 1

/*
 * An entry point's frame address, the "sp" of the frame it opens or closes
 * (core.h): where its frame pointer would point, two words below the
 * caller's stack pointer at the call.  With GCC on x86-64 it is taken from
 * the canonical frame address, so that the probes' fast paths need no frame
 * of their own (and so save no registers); otherwise it is the frame
 * address itself.  Every entry point must use this.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ZL_PROBE_SP() ((uintptr_t)__builtin_dwarf_cfa() - 16)
#else
#define ZL_PROBE_SP() ((uintptr_t)__builtin_frame_address(0))
#endif

/*
 * Makes the calling thread ready to record: starts the runtime on the first
 * call of the process, attaches the thread on its first call.  1 when t is
 * ON afterwards.
 */
int zl_thread_ready(struct zrt_thread *t);

/* Starts the runtime if nobody has yet (any entry point may be first). */
void zl_start(void);

/* The path of the main program (/proc/self/exe, resolved). */
extern char zl_exe_path[4096];

/* Resolves ZOND_TRIGGER and ZOND_FILTER against the loaded modules (cold). */
uint64_t zl_find_trigger(const char *spec);
int zl_load_filters(const char *path);

/* Closes the module records of objects no longer loaded (after a dlclose; cold). */
void zl_note_unloaded(void);

/*
 * Closes the link-map namespaces made for the program's dlmopen that hold
 * nothing of its own any more (namespace.c: the shared library only, so weak).
 */
__attribute__((weak)) void zl_ns_release_idle(void);

/*
 * The run-time address of _Unwind_Resume, 0 until the thread's first throw
 * (catch.c) finds it: an exit probe followed by a call of it runs in a
 * cleanup that goes on unwinding (hooks.c).
 */
extern uint64_t zl_unwind_resume;

/* The hooks gcc and clang call with -finstrument-functions. */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

#endif
