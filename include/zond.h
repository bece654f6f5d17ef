/*
 * zond.h - what a profiled program may tell zond's runtime (libzond).
 *
 * Nothing here needs libzond at link time: the functions are declared weak,
 * and the macros call them only when the runtime is there (linked with
 * -lzond, or preloaded by `zond record`).  Without it they cost one test of
 * a null pointer.  They work in code built with or without
 * -finstrument-functions.
 *
 *   ZOND_BEGIN("parse");           a hand-placed block, reported like a
 *   ...                            function, named "parse", with the
 *   ZOND_END("parse");             file:line of its ZOND_BEGIN
 *
 *   { ZOND_SCOPE("parse"); ... }   the same, ended when the scope is left
 *                                  (return, break, goto included)
 *
 *   ZOND_START(); ZOND_STOP();     switch recording on and off; with
 *                                  ZOND_MANUAL=1 it starts off
 *
 * Rules:
 *  - A block is told apart by where its ZOND_BEGIN is; blocks of the same
 *    name are one entry in reports.
 *  - ZOND_END(name) ends the innermost open block of that name on the
 *    calling thread, and anything still open inside it.  A block never
 *    ended is closed when the function that began it returns.
 *  - Begin and end a block in the same function, on the same thread.
 *  - Linking the static libzond.a into a program that is not built with
 *    -finstrument-functions: weak references alone do not pull the runtime
 *    out of an archive; add -Wl,--undefined=zond_block_begin (the shared
 *    libzond.so needs nothing).
 */
#ifndef ZOND_H
#define ZOND_H

#ifdef __cplusplus
extern "C" {
#endif

void zond_start(void) __attribute__((weak));
void zond_stop(void) __attribute__((weak));
void zond_block_begin(const char *name, const char *file, int line) __attribute__((weak));
void zond_block_end(const char *name) __attribute__((weak));
/*
 * Bare metal (runtime/bare, doc/bare-metal.md): ends the run with status and
 * writes the raw data out through semihosting, for a program that never
 * calls exit.  0, or -1 (not started, written already, or no semihosting).
 */
int zond_bare_flush(int status) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#define ZOND_START()                                                                               \
	do {                                                                                       \
		if (zond_start)                                                                    \
			zond_start();                                                              \
	} while (0)

#define ZOND_STOP()                                                                                \
	do {                                                                                       \
		if (zond_stop)                                                                     \
			zond_stop();                                                               \
	} while (0)

/* A macro, not a function: the runtime tells blocks apart by this call's address. */
#define ZOND_BEGIN(name)                                                                           \
	do {                                                                                       \
		if (zond_block_begin)                                                              \
			zond_block_begin((name), __FILE__, __LINE__);                              \
	} while (0)

#define ZOND_END(name)                                                                             \
	do {                                                                                       \
		if (zond_block_end)                                                                \
			zond_block_end(name);                                                      \
	} while (0)

struct zond_scope {
	const char *name;
};

/* Not instrumented: its own frame would sit on top of the block it ends. */
__attribute__((no_instrument_function)) static inline void zond_scope_end(struct zond_scope *s)
{
	if (zond_block_end)
		zond_block_end(s->name);
}

#define ZOND_SCOPE_JOIN_(a, b) a##b
#define ZOND_SCOPE_VAR_(line)  ZOND_SCOPE_JOIN_(zond_scope_, line)

#define ZOND_SCOPE(name)                                                                           \
	struct zond_scope ZOND_SCOPE_VAR_(__LINE__)                                                \
		__attribute__((cleanup(zond_scope_end), unused)) = {(                              \
			zond_block_begin ? zond_block_begin((name), __FILE__, __LINE__) : (void)0, \
			(name))}

#endif
