/*
 * nsshim.c - libzond-ns.so, libzond's stand-in in a link-map namespace the
 * program makes with dlmopen(LM_ID_NEWLM, ...) (namespace.c).  The preload
 * puts libzond in the program's namespace only: without this, the
 * -finstrument-functions hooks of objects loaded into another namespace
 * bind to that namespace's C library, whose __cyg_profile_func_* do
 * nothing.  libzond loads this library first into each such namespace, so
 * that it is that namespace's first object: its scope is searched before
 * every later object's own, as the preload's is in the program's, and the
 * hooks of everything loaded there (by the program's dlmopen, or by a
 * dlopen of that namespace's code) bind here.
 *
 * The hooks jump on to libzond's (a tail call: libzond's probes see the
 * instrumented function's return address and frame as if it had called
 * them).  dlclose of that namespace's code tells libzond, as libzond's own
 * dlclose does (init.c), which objects were unloaded.  Nothing else: no
 * state of the runtime lives here.  Never instrumented, nothing exported but
 * these.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#define API __attribute__((visibility("default")))

typedef void hook_fn(void *fn, void *site);

static void no_hook(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

static hook_fn *enter_hook = no_hook, *exit_hook = no_hook;
static void (*note_unloaded)(void);

/* Called by libzond right after loading this library, before the program's object is loaded. */
API void zl_ns_attach(hook_fn *enter, hook_fn *exit, void (*unloaded)(void))
{
	__atomic_store_n(&note_unloaded, unloaded, __ATOMIC_RELEASE);
	__atomic_store_n(&exit_hook, exit, __ATOMIC_RELEASE);
	__atomic_store_n(&enter_hook, enter, __ATOMIC_RELEASE);
}

API void __cyg_profile_func_enter(void *fn, void *site)
{
	__atomic_load_n(&enter_hook, __ATOMIC_RELAXED)(fn, site);
}

API void __cyg_profile_func_exit(void *fn, void *site)
{
	__atomic_load_n(&exit_hook, __ATOMIC_RELAXED)(fn, site);
}

/* This namespace's dlclose (its C library's, next in this library's scope), then libzond told. */
API int dlclose(void *handle)
{
	static int (*real_dlclose)(void *);
	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real_dlclose)
		return -1;
	int rc = real_dlclose(handle);
	int saved_errno = errno;
	void (*note)(void) = __atomic_load_n(&note_unloaded, __ATOMIC_ACQUIRE);
	if (note)
		note();
	errno = saved_errno;
	return rc;
}
