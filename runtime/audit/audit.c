/*
 * audit.c - the rtld-audit side of the library-call collector (LD_AUDIT):
 * start-up, the objects the loader reports, which bindings get a
 * redirector, the raw file, and the probe cost.
 *
 * glibc loads this library into a namespace of its own, with its own libc:
 * its atexit, atfork and thread-key hooks never see the program's.  The
 * program's fork and exit are therefore seen the way its other library
 * calls are (audit.h: ZA_FORK, ZA_EXIT), and the end of a normal exit is
 * taken from la_objclose of the main program.
 *
 * Environment (set by `zond libcalls`, doc/libcalls.md):
 *   ZOND_DIR, ZOND_NO_TIME, ZOND_THREADS/FUNCS/EDGES/DEPTH  as for libzond
 *   ZOND_LIBCALLS_LIBS   newline-separated globs: libraries whose functions
 *                        are profiled (base name or path), default all
 *   ZOND_LIBCALLS_FUNCS  newline-separated globs: function names, default all
 *   ZOND_LIBCALLS_DLSYM=1  dlsym() hands out redirectors too (function
 *                        pointers from dlsym then differ from the address)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"

#include "../core/port.h"
#include "../linux/linux.h"
#include "../linux/sample.h"

#define API __attribute__((visibility("default")))

/* ---- loaded objects ---------------------------------------------------- */

enum { MAX_OBJECTS = 1024 };

struct object {
	uint64_t start, end, bias;
	int bind_to;  /* its functions are seen (all but the loader's) */
	int selected; /* and profiled (ZOND_LIBCALLS_LIBS) */
	int live;
	int closed;   /* unloaded (la_objclose done): the entry may be reused */
	uint32_t serial; /* which load this is: the targets its PLT is bound to (redirect) */
	char path[PATH_MAX];
};

static struct object objects[MAX_OBJECTS];
static uint32_t n_objects;
static uint32_t objects_lock;
static uint32_t n_loads; /* objects ever added (their serials: 1, 2...) */

static struct link_map *program;  /* the main program's map: its scope is the start-up one */
static int unwinder;              /* the program's libgcc_s is loaded */
static char *lib_globs, *func_globs;
static int redirect_dlsym;

/* Run-time range of an object's PT_LOAD segments, from its file's program headers. */
static int load_range(const char *path, uint64_t bias, uint64_t *start, uint64_t *end)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	int ok = pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
		 !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		 eh.e_phentsize == sizeof ph[0] && eh.e_phnum <= 64 &&
		 pread(fd, ph, eh.e_phnum * sizeof ph[0], (off_t)eh.e_phoff) ==
			 (ssize_t)(eh.e_phnum * sizeof ph[0]);
	close(fd);
	if (!ok)
		return -1;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (lo >= hi)
		return -1;
	*start = bias + lo;
	*end = bias + hi;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Any of the newline-separated globs matches s (or its base name). */
static int globs_match(const char *globs, const char *s)
{
	if (!globs)
		return 1;
	char one[PATH_MAX];
	for (const char *g = globs; *g;) {
		size_t n = strcspn(g, "\n");
		if (n && n < sizeof one) {
			memcpy(one, g, n);
			one[n] = 0;
			if (!fnmatch(one, s, 0) || !fnmatch(one, base_name(s), 0))
				return 1;
		}
		g += n + (g[n] == '\n');
	}
	return 0;
}

/* The dynamic loader itself: its few exports look at their callers or run before us. */
static int is_loader(const char *path)
{
	const char *base = base_name(path);
	return !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld.so", 5) ||
	       !strncmp(base, "ld64.so", 7);
}

static struct object *add_object(struct link_map *map)
{
	while (__atomic_exchange_n(&objects_lock, 1, __ATOMIC_ACQUIRE))
		;
	struct object *o = NULL;
	uint32_t n = n_objects;
	if (n < MAX_OBJECTS)
		o = &objects[n++];
	/* full: an unloaded object's entry (a program loading and unloading more
	   objects than there are entries would lose the calls of the later ones);
	   never the program's */
	for (uint32_t i = 1; !o && i < n; i++)
		if (objects[i].closed)
			o = &objects[i];
	if (o) {
		o->live = o->closed = o->bind_to = o->selected = 0;
		o->start = o->end = o->bias = 0;
		o->serial = ++n_loads;
		const char *name = map->l_name && *map->l_name ? map->l_name : "/proc/self/exe";
		if (!realpath(name, o->path))
			snprintf(o->path, sizeof o->path, "%s", name);
		if (load_range(o->path, map->l_addr, &o->start, &o->end) == 0) {
			o->bias = map->l_addr;
			o->bind_to = !is_loader(o->path);
			o->selected = o->bind_to && globs_match(lib_globs, o->path);
			/* port_module_of reads without the lock: the fields first */
			__atomic_store_n(&o->live, 1, __ATOMIC_RELEASE);
			if (!strncmp(base_name(o->path), "libgcc_s.so", 11))
				unwinder = 1;
		}
		__atomic_store_n(&n_objects, n, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&objects_lock, 0, __ATOMIC_RELEASE);
	return o;
}

/* ---- functions --------------------------------------------------------- */

/*
 * Targets by real address, bound name and binding object: one per (function,
 * name, object whose PLT slot is bound), so that aliases (memcpy and memmove
 * bound to one IFUNC variant, a function exported under two names) are
 * counted apart, and a call is filed under the object whose code made it
 * (audit.h za_site; an object loaded again, or another one at its addresses,
 * gets targets of its own).  Every object's target of one (function, name)
 * has the same key.
 * The first name bound at an address is recorded at the address itself, the
 * next ones at the address plus 1, 2... (the core tells functions apart by
 * the address it is given; the reader finds the module from it), at most
 * MAX_ALIASES per address, further names sharing the last.  Open addressing
 * by real address, at most half full, grown by copying into a table twice
 * the size (under targets_lock).  function_name() reads without the lock: a
 * published table is only ever added to, and never freed.  Small at first:
 * every page of it touched at start-up is a page fault.
 */
struct target_table {
	uint32_t mask, used;
	struct za_target *slot[];
};

enum { FIRST_TARGETS = 1024, MAX_ALIASES = 8 };

static struct target_table *table;
static uint32_t targets_lock;

static struct target_table *new_table(uint32_t size)
{
	if (zl_sealed) /* mmap: no system call of zond's under seccomp (linux.h) */
		return NULL;
	size_t bytes = sizeof(struct target_table) + size * sizeof(struct za_target *);
	struct target_table *t =
		mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	t->mask = size - 1;
	return t;
}

static const char *name_of(const struct za_target *x)
{
	return (const char *)zrt.base + zrt.hdr->strings_off + x->name;
}

/* The address x was bound to (its real is a guard's for some: guards.c). */
static uint64_t bound_to(const struct za_target *x)
{
	return x->key - x->alias;
}

/*
 * The slot of (real, name, binder) in t: its target's, or the empty one
 * where it goes; *alias gets the name's alias number at real (the other
 * objects' targets of the name have it, a new name takes the next one).
 */
static uint32_t target_slot(const struct target_table *t, uint64_t real, const char *name,
			    uint32_t binder, uint32_t *alias)
{
	uint32_t h = zrt_hash(real) & t->mask, next = 0, named = UINT32_MAX;
	for (; t->slot[h]; h = (h + 1) & t->mask) {
		const struct za_target *x = t->slot[h];
		if (bound_to(x) != real)
			continue;
		/* names beyond the last alias share it */
		if (!strcmp(name_of(x), name) || x->alias == MAX_ALIASES - 1) {
			named = x->alias;
			if (x->binder == binder)
				break;
		}
		if (x->alias >= next)
			next = x->alias + 1;
	}
	*alias = named != UINT32_MAX ? named : next < MAX_ALIASES ? next : MAX_ALIASES - 1;
	return h;
}

/* Room for one more target (under targets_lock): 0, or -1 when memory ran out. */
static int make_room(void)
{
	if (table && 2 * (table->used + 1) <= table->mask + 1)
		return 0;
	struct target_table *grown = new_table(table ? 2 * (table->mask + 1) : FIRST_TARGETS);
	if (!grown)
		return -1;
	for (uint32_t i = 0; table && i <= table->mask; i++)
		if (table->slot[i]) {
			uint32_t h = zrt_hash(bound_to(table->slot[i])) & grown->mask;
			while (grown->slot[h])
				h = (h + 1) & grown->mask;
			grown->slot[h] = table->slot[i];
		}
	grown->used = table ? table->used : 0;
	__atomic_store_n(&table, grown, __ATOMIC_RELEASE);
	return 0;
}

/* The core asks on a function's first call on a thread: the name it was bound by. */
static uint32_t function_name(uint64_t addr)
{
	const struct target_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (!t)
		return 0;
	/* an alias is recorded a few bytes above its function's address */
	for (uint64_t n = 0; n < MAX_ALIASES && n <= addr; n++)
		for (uint32_t h = zrt_hash(addr - n) & t->mask;; h = (h + 1) & t->mask) {
			const struct za_target *x = __atomic_load_n(&t->slot[h], __ATOMIC_ACQUIRE);
			if (!x)
				break;
			if (x->key == addr)
				return x->name;
		}
	return 0;
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Functions that look at their return address or stack frame (the dl*
 * family, setjmp, the unwinder, __libc_start_main...), or never return to
 * their caller (longjmp, exit, pthread_exit...): counted, then jumped to,
 * never called from the wrapper.
 */
static int keep_frame(const char *name)
{
	static const char *const exact[] = {
		"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx", "vfork", "__vfork",
		"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "getcontext",
		"setcontext", "swapcontext", "makecontext", "__libc_start_main", "exit",
		"_exit", "_Exit", "quick_exit", "abort", "pthread_exit", "thrd_exit",
		"__tls_get_addr", "backtrace", "__cxa_throw", "__cxa_rethrow",
		"__cxa_call_unexpected", "__stack_chk_fail", "__fortify_fail",
		"_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE",
	};
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (!strcmp(name, exact[i]))
			return 1;
	return starts_with(name, "dl") || starts_with(name, "_dl_") ||
	       starts_with(name, "_Unwind_") || starts_with(name, "__pthread_unwind");
}

static enum za_kind kind_of(const char *name)
{
	if (!strcmp(name, "fork") || !strcmp(name, "_Fork"))
		return ZA_FORK;
	if (!strcmp(name, "exit") || !strcmp(name, "_exit") || !strcmp(name, "_Exit") ||
	    !strcmp(name, "quick_exit"))
		return ZA_EXIT;
	return ZA_PLAIN;
}

/*
 * fork is always called from the wrapper (the child's file starts when it
 * returns 0); when only counting, every other plain function is counted by
 * the wrapper alone.
 */
static uint64_t timed_wrapper = (uintptr_t)za_wrap_timed;

static uint64_t wrapper_of(const struct za_target *t, const char *name)
{
	if (zrt.stacked || (t->kind & ZA_FORK))
		return keep_frame(name) ? (uintptr_t)za_wrap_count : timed_wrapper;
	/* the wrapper files every call under the binding object (audit.h za_fast) */
	if (t->kind == ZA_PLAIN && t->fast != ZA_NO_FAST && t->len)
		return (uintptr_t)za_wrap_fast;
	return (uintptr_t)za_wrap_count;
}

/*
 * The redirector for the function at real bound by name in the PLT of
 * object by (NULL: none known, a dlsym lookup); 0 to bind it as it is.
 * hidden: the function is not profiled, only watched (fork, exit).
 * through: what the wrapper calls, the function's guard (guards.c), or 0:
 * real itself.
 */
static uint64_t redirect(uint64_t real, const char *name, const struct object *by, int hidden,
			 uint64_t through)
{
	while (__atomic_exchange_n(&targets_lock, 1, __ATOMIC_ACQUIRE))
		;
	uint64_t code = 0;
	uint32_t binder = by && by->end > by->start ? by->serial : 0;
	if (make_room() == 0) {
		uint32_t alias, h = target_slot(table, real, name, binder, &alias);
		struct za_target *t = table->slot[h];
		if (t) {
			code = t->code;
		} else if ((t = za_new_target(&code)) != NULL) {
			t->real = through ? through : real;
			t->alias = alias;
			t->key = real + alias;
			t->binder = binder;
			if (binder) {
				t->lo = by->start;
				t->len = by->end - by->start;
			}
			t->code = code;
			t->kind = kind_of(name) | (hidden ? ZA_HIDDEN : 0);
			t->wrapper = wrapper_of(t, name);
			t->name = zrt_keep_string(name);
			table->used++;
			__atomic_store_n(&table->slot[h], t, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&targets_lock, 0, __ATOMIC_RELEASE);
	return code;
}

/* ---- the port: modules (the rest is the Linux port's, linux.h) -------- */

/* From the wrapper's probes: plain loads, no libc. */
int port_module_of(uint64_t addr, struct port_module *out)
{
	uint32_t n = __atomic_load_n(&n_objects, __ATOMIC_ACQUIRE);
	for (uint32_t i = n; i-- > 0;) {
		const struct object *o = &objects[i];
		if (o->live && addr >= o->start && addr < o->end) {
			*out = (struct port_module){o->start, o->end, o->bias, o->path};
			return 0;
		}
	}
	return -1;
}

/* ---- probe cost ------------------------------------------------------- */

static void (*calibration_leaf)(void);
static struct za_target *calibration_targets[2]; /* the loop, its leaf */
static uint64_t calibration_loop;

__attribute__((noinline)) static void empty_leaf(void)
{
	__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) static void leaf_loop(void)
{
	for (int i = 0; i < ZL_CALIBRATION_CALLS; i++)
		calibration_leaf();
}

static void bare_loop(void)
{
	for (int i = 0; i < ZL_CALIBRATION_CALLS; i++)
		empty_leaf();
}

/* The loop called through a redirector, calling the empty leaf through another. */
static void probed_loop(uint64_t outer, uint64_t leaf)
{
	calibration_targets[0]->key = outer;
	calibration_targets[1]->key = leaf;
	((void (*)(void))calibration_loop)();
}

static void calibrate(void)
{
	uint64_t leaf_code;
	struct za_target *leaf = za_new_target(&leaf_code);
	struct za_target *loop = za_new_target(&calibration_loop);
	if (!leaf || !loop || !za_thread_frames(&za_self))
		return;
	*leaf = (struct za_target){.wrapper = timed_wrapper, .real = (uintptr_t)empty_leaf};
	*loop = (struct za_target){.wrapper = timed_wrapper, .real = (uintptr_t)leaf_loop};
	calibration_leaf = (void (*)(void))leaf_code;
	calibration_targets[0] = loop;
	calibration_targets[1] = leaf;
	zl_calibrate(&za_self.core, probed_loop, bare_loop);
}

/* ---- start-up ---------------------------------------------------------- */

static struct zrt_thread *self(void)
{
	/* a TLS shared with tasks (tasks.h): the owner's, the thread the signal is for */
	return zl_owner();
}

static char *env_globs(const char *name)
{
	const char *s = zl_getenv(name);
	return s && *s ? strdup(s) : NULL;
}

static void start(void)
{
	struct zrt_config cfg = {
		.max_threads = 64, .max_funcs = 16384, .max_edges = 65536, .max_depth = 4096,
		.max_modules = 512,
		/* every bound name is kept once per process */
		.string_bytes = 1u << 20,
	};
	if (zl_configure(&cfg) < 0)
		return;
	zl_sample_configure(&cfg);
	/* a library call's context is its wrapper's: no prologue outside the probes to place */
	cfg.max_sample_pcs = 0;
	lib_globs = env_globs("ZOND_LIBCALLS_LIBS");
	func_globs = env_globs("ZOND_LIBCALLS_FUNCS");
	redirect_dlsym = zl_env_flag("ZOND_LIBCALLS_DLSYM");
#if defined(__x86_64__)
	/* the other wrapper design, for measurement (doc/libcalls.md) */
	const char *w = zl_getenv("ZOND_WRAPPER");
	if (w && !strcmp(w, "overwrite"))
		timed_wrapper = (uintptr_t)za_wrap_timed_ow;
#endif
	if (zrt_process_start(&cfg) != 0)
		return;
	zrt.function_name = function_name;
	zrt.root_modules = 1; /* root calls kept per calling module */
	if (zrt.timed)
		calibrate();
	zl_sample_start(self);
}

/* ---- the rtld-audit interface ------------------------------------------- */

API unsigned int la_version(unsigned int version)
{
	int saved_errno = errno;
	start();
	errno = saved_errno;
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

API unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	/* the loader's cookie is the map: la_objclose must not take it for ours */
	*cookie = 0;
	/*
	 * Objects of every namespace: those of one the program made with dlmopen
	 * (its own C library among them) bind and are bound as the program's
	 * are; declined, their calls went unseen, silently (tests/cli dlmopen).
	 * A second definition of a guarded name is left unguarded (guards.c).
	 */
	(void)lmid;
	if (!zrt.hdr)
		return 0;
	if (zl_sealed) {
		/* reading its file takes system calls: its calls to others are guarded, its own unseen */
		*cookie = 0;
		return LA_FLG_BINDFROM;
	}
	int saved_errno = errno;
	struct object *o = add_object(map);
	if (!program)
		program = map;
	errno = saved_errno;
	*cookie = (uintptr_t)o;
	return LA_FLG_BINDFROM | (o && o->bind_to ? LA_FLG_BINDTO : 0);
}

/* The object whose cookie is c (la_objopen), NULL for one not ours. */
static struct object *cookie_object(uintptr_t c)
{
	uintptr_t first = (uintptr_t)objects, end = (uintptr_t)(objects + MAX_OBJECTS);
	if (c < first || c >= end || (c - first) % sizeof objects[0])
		return NULL;
	return (struct object *)c;
}

API unsigned int la_objclose(uintptr_t *cookie)
{
	/*
	 * Called for objects la_objopen never saw too, their cookie the loader's
	 * (their map): an audit module of the user's that declines, unloaded
	 * while the loader starts (zond wrote its state into that map: SIGSEGV).
	 */
	struct object *o = cookie_object(*cookie);
	if (!o)
		return 0;
	/* the main program closes last, after the program's atexit handlers */
	if (o == &objects[0]) {
		zl_process_end(0, 0);
	} else {
		o->live = 0;
		/* an object loaded there later has functions of its own */
		zrt_module_closed(o->start, o->end);
		o->closed = 1;
	}
	return 0;
}

/*
 * The program's unwinder (libgcc_s) finds call frame information through
 * the loader, which does not show it objects of other namespaces such as
 * this one: without being told, C++ exceptions would stop at a profiled
 * call.  Register our .eh_frame with it once it is loaded and relocated.
 */
static int find_eh_frame(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_GNU_EH_FRAME ||
		    (uintptr_t)find_eh_frame < info->dlpi_addr + info->dlpi_phdr[0].p_vaddr)
			continue;
		const uint8_t *hdr = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		Dl_info self;
		if (!dladdr((void *)find_eh_frame, &self) || self.dli_fbase != (void *)info->dlpi_addr)
			continue;
		/* version 1, eh_frame_ptr encoded pc-relative signed 4 bytes (0x1b) */
		if (hdr[0] != 1 || hdr[1] != 0x1b)
			return 0;
		int32_t rel;
		memcpy(&rel, hdr + 4, 4);
		*(const void **)arg = hdr + 4 + rel;
		return 1;
	}
	return 0;
}

static void register_frames(void)
{
	static int done;
	static void *object[16]; /* libgcc's struct object, opaque */
	if (done || !unwinder || !program)
		return;
	done = 1;
	void (*reg)(const void *, void *) =
		(void (*)(const void *, void *))dlsym(program, "__register_frame_info");
	const void *eh_frame = NULL;
	dl_iterate_phdr(find_eh_frame, &eh_frame);
	if (reg && eh_frame)
		reg(eh_frame, object);
}

/*
 * Threads' ends: a key of the program's libc (ours, in the audit namespace,
 * never sees the program's threads end), set on a thread's first call
 * (probes.c, port_thread_attached).  Only a key of the first block, whose
 * pthread_setspecific allocates nothing.
 */
static void watch_thread_ends(void)
{
	if (!program)
		return;
	int (*create)(unsigned int *, void (*)(void *)) =
		(int (*)(unsigned int *, void (*)(void *)))dlsym(program, "pthread_key_create");
	int (*set)(unsigned int, const void *) =
		(int (*)(unsigned int, const void *))dlsym(program, "pthread_setspecific");
	unsigned int key;
	if (!create || !set || create(&key, za_thread_gone) != 0)
		return;
	if (key >= 32)
		return;
	za_thread_key = key;
	__atomic_store_n(&za_setspecific, set, __ATOMIC_RELEASE);
}

/*
 * Forks: a fork handler of the program's libc, so that a fork made inside a
 * library without a PLT call (daemon(), system()'s child before its exec)
 * still gives the child a file of its own instead of writing into its
 * parent's.
 */
static void watch_forks(void)
{
	if (!program)
		return;
	int (*reg)(void (*)(void), void (*)(void), void (*)(void), void *) =
		(int (*)(void (*)(void), void (*)(void), void (*)(void), void *))dlsym(
			program, "__register_atfork");
	if (reg)
		reg(za_fork_prepare, zrt_fork_done, za_forked_child, NULL);
}

/* A name in the program's scope (its C library's function). */
static void *in_program(const char *name)
{
	return dlsym(program, name);
}

API void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
	int saved_errno = errno;
	/* dlsym calls through the program's libc (_dl_catch_error): not the program's calls */
	uint32_t state = za_self.core.state;
	za_self.core.state = ZRT_THREAD_OFF;
	register_frames();
	watch_thread_ends();
	watch_forks();
	if (program)
		za_guard_find(in_program);
	za_self.core.state = state;
	errno = saved_errno;
}

API uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
			   uintptr_t *defcook, unsigned int *flags, const char *symname)
{
	(void)ndx;
	uintptr_t real = sym->st_value;
	const struct object *def = (const struct object *)*defcook;
	/* the object whose PLT slot this is; a dlsym pointer may be called from anywhere */
	const struct object *by = *flags & LA_SYMB_DLSYM ? NULL : cookie_object(*refcook);
	unsigned type = ELF64_ST_TYPE(sym->st_info);
	*flags |= LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT;
	if (!def || !def->bind_to || (type != STT_FUNC && type != STT_GNU_IFUNC))
		return real;
	if (!zrt.hdr) {
		/* a process that records nothing: the images it starts are counted as lost */
		uint64_t exec = zl_recording_lost() ? za_guard_of_exec(symname, real) : 0;
		if (exec)
			*flags |= LA_SYMB_ALTVALUE;
		return exec ? exec : real;
	}
	/* a dlsym lookup of a guarded name gives its real function too (za_guard_find) */
	uint64_t guard = za_guard_of(symname, real);
	if ((*flags & LA_SYMB_DLSYM) && !redirect_dlsym)
		return real;
	int saved_errno = errno;
	/* under seccomp, while the pool and the table have room (no memory taken then) */
	uint64_t code = guard;
	if (def->selected && globs_match(func_globs, symname))
		code = redirect(real, symname, by, 0, guard);
	else if (kind_of(symname) != ZA_PLAIN)
		code = redirect(real, symname, by, 1, guard);
	if (!code)
		code = guard;
	errno = saved_errno;
	if (!code)
		return real;
	*flags |= LA_SYMB_ALTVALUE;
	return code;
}
