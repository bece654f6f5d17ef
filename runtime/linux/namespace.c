/*
 * namespace.c - code loaded with dlmopen into a link-map namespace of its
 * own.  The preload puts libzond in the program's namespace only, so the
 * -finstrument-functions hooks of objects loaded into a new one bound to
 * that namespace's C library, whose __cyg_profile_func_* do nothing: their
 * calls went unrecorded, silently.
 *
 * dlmopen(LM_ID_NEWLM, file, mode) makes the namespace first with
 * libzond-ns.so (nsshim.c, beside libzond.so) as its first object, whose
 * hooks jump to libzond's, and then loads the program's file into it: the
 * real dlmopen is this one's tail call, so that it sees the program's call
 * site as its caller (the caller's RUNPATH and $ORIGIN find a file given
 * without a directory) and the program gets its handle and dlerror() as
 * without zond.  Objects that code of the namespace dlopens later bind to
 * the same hooks.  Their module records come from modules.c (dladdr: every
 * namespace).
 *
 * A namespace holding nothing but libzond-ns.so and what it brought (the
 * program closed what it loaded there, or its dlmopen failed) is closed
 * at the program's next dlclose or dlmopen, so that a program that makes
 * and closes namespaces in a loop does not run out of them (glibc has 16).
 *
 * Left as they were (doc/raw-format.md): dlmopen into a namespace made
 * otherwise, and a dlmopen called from code of a namespace (that
 * namespace's C library's).  Only in the shared library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>

#include "instrument.h"

#define API __attribute__((visibility("default")))

typedef void *dlmopen_fn(Lmid_t, const char *, int);
typedef int dlclose_fn(void *);
typedef void attach_fn(void (*)(void *, void *), void (*)(void *, void *), void (*)(void));

static dlmopen_fn *real_dlmopen;
static dlclose_fn *real_dlclose;

/*
 * The namespaces made here: libzond-ns.so's handle and link map, how many
 * objects it brought, and while the program's dlmopen that made it may still
 * be loading (pending), the thread it runs on.
 */
#define ZL_NAMESPACES 16
static struct space {
	void *shim;
	struct link_map *map;
	unsigned objects;
	long pending;
} spaces[ZL_NAMESPACES];
static int spaces_lock;

static void lock_spaces(void)
{
	/* held across a dlmopen of libzond-ns.so: yield while waiting */
	while (__atomic_exchange_n(&spaces_lock, 1, __ATOMIC_ACQUIRE))
		zl_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

static void unlock_spaces(void)
{
	__atomic_store_n(&spaces_lock, 0, __ATOMIC_RELEASE);
}

/* A fork's child: the lock's holder was another thread, gone there; the table is whole. */
static void forked_child(void)
{
	unlock_spaces();
}

__attribute__((constructor)) static void find_real(void)
{
	if (!real_dlmopen) {
		real_dlmopen = (dlmopen_fn *)dlsym(RTLD_NEXT, "dlmopen");
		real_dlclose = (dlclose_fn *)dlsym(RTLD_NEXT, "dlclose");
		pthread_atfork(NULL, NULL, forked_child);
	}
}

/* libzond-ns.so's path: beside libzond.so. */
static const char *shim_path(void)
{
	static char path[4096];
	if (path[0])
		return path;
	Dl_info info;
	if (!dladdr((void *)shim_path, &info) || !info.dli_fname)
		return NULL;
	const char *slash = strrchr(info.dli_fname, '/');
	size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
	static const char name[] = "libzond-ns.so";
	if (dir + sizeof name > sizeof path)
		return NULL;
	memcpy(path, info.dli_fname, dir);
	memcpy(path + dir, name, sizeof name);
	return path;
}

/* The objects of the namespace whose first object is l, counted. */
static unsigned count_objects(const struct link_map *l)
{
	unsigned n = 0;
	for (; l; l = l->l_next)
		n++;
	return n;
}

struct idle_check {
	int idle[ZL_NAMESPACES];
};

/*
 * Which namespaces hold only what libzond-ns.so brought.  Called as
 * dl_iterate_phdr's callback: the loader's lock that guards the lists of
 * objects is held while it walks them.
 */
static int check_idle(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	struct idle_check *c = arg;
	for (int i = 0; i < ZL_NAMESPACES; i++) {
		unsigned n = spaces[i].shim ? count_objects(spaces[i].map) : 0;
		/* the program's object is in: that dlmopen is over */
		if (n > spaces[i].objects)
			spaces[i].pending = 0;
		c->idle[i] = spaces[i].shim && n <= spaces[i].objects;
	}
	return 1;
}

/*
 * Closes the namespaces made here that hold nothing of the program's any
 * more; under the lock.  One whose dlmopen another thread may still be in
 * (pending) is left for later; the calling thread's own is over.
 */
static void release_idle(void)
{
	int any = 0;
	for (int i = 0; i < ZL_NAMESPACES; i++)
		any |= spaces[i].shim != NULL;
	if (!any || !real_dlclose)
		return;
	struct idle_check c = {{0}};
	dl_iterate_phdr(check_idle, &c);
	long self = zl_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
	for (int i = 0; i < ZL_NAMESPACES; i++)
		if (c.idle[i] && (!spaces[i].pending || spaces[i].pending == self)) {
			real_dlclose(spaces[i].shim);
			spaces[i].shim = NULL;
		}
}

/* After the program's dlclose (init.c). */
void zl_ns_release_idle(void)
{
	lock_spaces();
	release_idle();
	unlock_spaces();
}

/* A new namespace with libzond-ns.so its first object; LM_ID_NEWLM when none could be made. */
static Lmid_t new_space(void)
{
	lock_spaces();
	release_idle();
	Lmid_t lmid = LM_ID_NEWLM;
	int i = 0;
	while (i < ZL_NAMESPACES && spaces[i].shim)
		i++;
	const char *path = shim_path();
	void *shim = i < ZL_NAMESPACES && path ? real_dlmopen(LM_ID_NEWLM, path, RTLD_NOW) : NULL;
	attach_fn *attach = shim ? (attach_fn *)dlsym(shim, "zl_ns_attach") : NULL;
	struct link_map *l = NULL;
	if (attach && dlinfo(shim, RTLD_DI_LMID, &lmid) == 0 &&
	    dlinfo(shim, RTLD_DI_LINKMAP, &l) == 0 && l) {
		while (l->l_prev)
			l = l->l_prev;
		attach(__cyg_profile_func_enter, __cyg_profile_func_exit, zl_note_unloaded);
		spaces[i] = (struct space){.shim = shim, .map = l, .objects = count_objects(l),
					   .pending = zl_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0)};
	} else {
		lmid = LM_ID_NEWLM;
		if (shim)
			real_dlclose(shim);
	}
	unlock_spaces();
	return lmid;
}

/*
 * The real dlmopen is the tail call: its caller must be the program's call
 * site.  A namespace of ours only where the real one would make one and load
 * a file into it (RTLD_GLOBAL and a NULL file are errors there, RTLD_NOLOAD
 * loads nothing).
 */
API void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	if (!real_dlmopen)
		find_real();
	if (lmid == LM_ID_NEWLM && file && !(mode & (RTLD_GLOBAL | RTLD_NOLOAD)) && real_dlmopen &&
	    real_dlclose)
		lmid = new_space();
	return real_dlmopen(lmid, file, mode);
}
