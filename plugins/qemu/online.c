/*
 * online.c - the plugin's online mode (online.h): the rebuild and the store
 * of the zond command, linked into the plugin.
 */
#include "online.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <time.h>

#include "qemu_api.h"
#include "store/store.h"
#include "symbols/symbols.h"
#include "trace/rebuild.h"
#include "util/clock.h"
#include "util/fds.h"

/* A mapping (path set) or a block definition (sizes then bytes in data), as logged. */
struct rec {
	uint64_t a, b, c; /* map: start, end, offset; define: vaddr */
	uint32_t id, ninsns;
	char *path;
	uint8_t *data;
};

#define REC_CHUNK 4096
#define REC_CHUNKS 65536 /* 2^28 records: more blocks than any program translates */

struct online_thread {
	struct rebuild *rb;
	size_t seen;      /* records of the log its rebuild has */
	struct zerr err;  /* not on the stack of the per-block callback: it is large */
};

static struct {
	const char *store;
	char arch[32];
	char exe[4096];
	const struct isa *isa;
	uint64_t entry;
	struct symbols *syms; /* shared by the threads' rebuilds: used under lock only */
	int failed;
	pthread_mutex_t lock; /* the log's writers, the threads' list, every use of syms */
	struct rec *chunks[REC_CHUNKS];
	size_t nrec; /* published with release: records below it are complete and immutable */
	struct online_thread **threads;
	size_t nthreads;
	uint64_t tl_events; /* online_timeline */
	int tl_newest;
} o = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct rebuild *online_one; /* online.h */

static int failed(const struct zerr *err)
{
	if (!__atomic_exchange_n(&o.failed, 1, __ATOMIC_RELAXED)) {
		char msg[1200];
		snprintf(msg, sizeof msg, "zond trace: online profile lost: %s\n", err->msg);
		fputs(msg, stderr);
	}
	return -1;
}

static int lost(void)
{
	return __atomic_load_n(&o.failed, __ATOMIC_RELAXED);
}

void online_timeline(uint64_t events, int keep_newest)
{
	o.tl_events = events;
	o.tl_newest = keep_newest;
}

int online_start(const char *store, const char *arch, const char *exe, uint64_t entry)
{
	struct zerr err;
	o.isa = isa_find(arch);
	o.store = store;
	if (!o.isa) {
		zerr_set(&err, "unknown architecture '%s' (zond knows %s)", arch, isa_names());
		return failed(&err);
	}
	snprintf(o.arch, sizeof o.arch, "%s", o.isa->name);
	snprintf(o.exe, sizeof o.exe, "%s", exe ? exe : "");
	o.entry = exe ? entry : 0;
	o.syms = symbols_new();
	/* guest and QEMU share one descriptor table: the files the symbols keep open
	 * (the program's ELF file) must take no number the program's open() would */
	symbols_set_fd_hook(fds_move_high);
	return 0;
}

/* The next record of the log, to fill and publish (o.lock held); NULL when full. */
static struct rec *new_rec(void)
{
	size_t n = o.nrec, c = n / REC_CHUNK;
	if (c >= REC_CHUNKS)
		return NULL;
	if (!o.chunks[c] && !(o.chunks[c] = calloc(REC_CHUNK, sizeof(struct rec))))
		abort();
	return &o.chunks[c][n % REC_CHUNK];
}

static struct rec *rec_at(size_t i)
{
	return &o.chunks[i / REC_CHUNK][i % REC_CHUNK];
}

static void publish(void)
{
	__atomic_store_n(&o.nrec, o.nrec + 1, __ATOMIC_RELEASE);
}

static void *copy(const void *p, size_t n)
{
	void *c = malloc(n ? n : 1);
	if (!c)
		abort();
	memcpy(c, p, n);
	return c;
}

static int catch_up(struct online_thread *t);

/*
 * While the program has one thread, every record is taken by its rebuild at
 * once, here: the only thread is the one translating (and mapping), so this
 * is its own thread, and online_exec_one needs no check for new records.
 * From the second thread on, each thread catches up in online_exec.
 */
static int take_now(void)
{
	struct zerr err;
	pthread_mutex_lock(&o.lock);
	size_t n = o.nthreads;
	struct online_thread *t = n == 1 ? o.threads[0] : NULL;
	pthread_mutex_unlock(&o.lock);
	if (n == 0) {
		zerr_set(&err, "code was translated before the first thread started");
		return failed(&err);
	}
	if (!t)
		return 0;
	if (catch_up(t) < 0)
		return -1;
	online_one = t->rb;
	return 0;
}

void online_map(uint64_t start, uint64_t end, uint64_t offset, const char *path)
{
	struct zerr err;
	if (!o.syms || lost())
		return;
	pthread_mutex_lock(&o.lock);
	struct rec *r = new_rec();
	if (r) {
		*r = (struct rec){.a = start, .b = end, .c = offset,
				  .path = copy(path, strlen(path) + 1)};
		publish();
	}
	pthread_mutex_unlock(&o.lock);
	if (!r) {
		zerr_set(&err, "more mappings and blocks than the online mode keeps");
		failed(&err);
		return;
	}
	take_now();
}

int online_define(uint32_t id, uint64_t vaddr, uint32_t ninsns, const uint8_t *sizes,
		  const uint8_t *bytes)
{
	struct zerr err;
	if (!o.syms || lost())
		return -1;
	size_t nbytes = 0;
	for (uint32_t i = 0; i < ninsns; i++)
		nbytes += sizes[i];
	uint8_t *data = malloc(ninsns + nbytes + 1);
	if (!data)
		abort();
	memcpy(data, sizes, ninsns);
	memcpy(data + ninsns, bytes, nbytes);
	pthread_mutex_lock(&o.lock);
	struct rec *r = new_rec();
	if (r) {
		*r = (struct rec){.a = vaddr, .id = id, .ninsns = ninsns, .data = data};
		publish();
	}
	pthread_mutex_unlock(&o.lock);
	if (!r) {
		free(data);
		zerr_set(&err, "more mappings and blocks than the online mode keeps");
		return failed(&err);
	}
	return take_now();
}

/* Its rebuild is made at its first catch_up: the first vCPU starts before online_start. */
struct online_thread *online_thread(void)
{
	if (lost())
		return NULL;
	struct online_thread *t = calloc(1, sizeof *t);
	if (!t)
		abort();
	pthread_mutex_lock(&o.lock);
	o.threads = realloc(o.threads, (o.nthreads + 1) * sizeof *o.threads);
	if (!o.threads)
		abort();
	o.threads[o.nthreads++] = t;
	if (o.nthreads == 2)
		online_one = NULL; /* the first thread catches up in online_exec from now on */
	pthread_mutex_unlock(&o.lock);
	return t;
}

/* The records t's rebuild has not seen, on t's own thread (its definitions use syms). */
static __attribute__((noinline)) int catch_up(struct online_thread *t)
{
	int rc = 0;
	pthread_mutex_lock(&o.lock);
	if (!t->rb) {
		t->rb = rebuild_new(o.isa, o.syms);
		rebuild_allow_patches(t->rb, 1); /* the code read is the code running */
		if (o.exe[0])
			rebuild_set_program(t->rb, o.exe, o.entry);
		rebuild_set_timeline(t->rb, o.tl_events, o.tl_newest);
	}
	size_t n = o.nrec;
	for (; t->seen < n && rc == 0; t->seen++) {
		const struct rec *r = rec_at(t->seen);
		if (r->path)
			rebuild_host_map(t->rb, r->a, r->b, r->c, r->path);
		else
			rc = rebuild_define(t->rb, r->id, r->a, r->ninsns, r->data,
					    r->data + r->ninsns, &t->err);
	}
	pthread_mutex_unlock(&o.lock);
	return rc < 0 ? failed(&t->err) : 0;
}

int online_exec(struct online_thread *t, uint32_t id, uint32_t n)
{
	if (!t || lost())
		return -1;
	if ((!t->rb || t->seen != __atomic_load_n(&o.nrec, __ATOMIC_ACQUIRE)) && catch_up(t) < 0)
		return -1;
	return rebuild_exec(t->rb, id, n, &t->err) < 0 ? failed(&t->err) : 0;
}

/* online_exec_one's rest: no check, the caller stops calling once this or online_define failed. */
int online_exec_one_slow(uint32_t id, uint32_t n)
{
	static struct zerr err; /* only the first thread calls, and only while it is alone */
	return rebuild_exec_slow(online_one, id, n, &err) < 0 ? failed(&err) : 0;
}

/* What `zond trace report` records of a run, for the online one: it ends now. */
static void describe(struct zp_profile *p, uint64_t insns, const char *command, int status,
		     int64_t start_ns)
{
	char v[32];
	struct utsname u;
	profile_set_str(&p->run.collector, "trace");
	profile_set_str(&p->run.arch, o.arch);
	profile_set_str(&p->run.clock, "icount");
	profile_set_str(&p->run.command, command && *command ? command : o.exe);
	if (uname(&u) == 0)
		profile_set_str(&p->run.host, u.nodename);
	p->run.start_ns = start_ns;
	p->run.duration_ns = clock_now_ns(CLOCK_REALTIME) - start_ns;
	p->run.exit_status = status;
	snprintf(v, sizeof v, "%" PRIu64, insns);
	profile_add_meta(p, "instructions", v);
	profile_add_meta(p, "trace_bytes", "0");
	profile_add_meta(p, "trace", "online");
}

static void free_all(void)
{
	for (size_t i = 0; i < o.nthreads; i++) {
		if (o.threads[i]->rb)
			rebuild_free(o.threads[i]->rb);
		free(o.threads[i]);
	}
	free(o.threads);
	o.threads = NULL;
	o.nthreads = 0;
	for (size_t i = 0; i < o.nrec; i++) {
		free(rec_at(i)->path);
		free(rec_at(i)->data);
	}
	for (size_t c = 0; c < REC_CHUNKS && o.chunks[c]; c++) {
		free(o.chunks[c]);
		o.chunks[c] = NULL;
	}
	o.nrec = 0;
	symbols_free(o.syms);
	o.syms = NULL;
}

/*
 * store_save_run (path), else store_keep_run (kept) with SIGXFSZ blocked in
 * this thread: a write past `ulimit -f` fails with EFBIG, said as such, and
 * raises no signal in QEMU, which would give it to the guest (its handler
 * also left SQLite an errno other than EFBIG: "disk I/O error" was all it
 * said).  The signals the writes raised are taken back before the mask is.
 */
static int store_save_blocked(const char *path, struct zp_profile *p, char kept[PATH_MAX],
			      struct zerr *err)
{
	sigset_t xfsz, old;
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &xfsz, &old);
	int rc = path ? store_save_run(path, p, err) : store_keep_run(p, kept, err);
	struct timespec now = {0, 0};
	while (sigtimedwait(&xfsz, NULL, &now) == SIGXFSZ) /* the writes' own, taken back */
		;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Every thread's profile into one run, the first thread as tid 0 (called once, at exit). */
/* p into the store, else into a store of its own, said on stderr (QEMU's: the program's). */
static int store_save_blocked(const char *path, struct zp_profile *p, char kept[PATH_MAX],
			      struct zerr *err);

static int store_online(struct zp_profile *p, struct zerr *err)
{
	char kept[PATH_MAX] = "", msg[PATH_MAX * 2 + 1200];
	struct zerr lost;
	if (store_save_blocked(o.store, p, NULL, err) == 0)
		return 0;
	if (store_save_blocked(NULL, p, kept, &lost) < 0)
		return -1;
	snprintf(msg, sizeof msg,
		 "zond trace: online profile not stored: %s\nzond trace: online profile kept in %s, a "
		 "store of its own (zond report -i %s)\n",
		 err->msg, kept, kept);
	fputs(msg, stderr);
	__atomic_store_n(&o.failed, 1, __ATOMIC_RELAXED); /* said: failed() adds nothing */
	return -1;
}

/*
 * The mapped files no thread's rebuild could open, appended to summary as a
 * warning line each (zond shows them, with -q too, as trace report does).
 */
static void warn_unreadable(char *summary, size_t size)
{
	for (size_t t = 0; t < o.nthreads; t++) {
		const char *const *files;
		size_t n = rebuild_unreadable(o.threads[t]->rb, &files);
		for (size_t i = 0; i < n; i++) {
			size_t used = strlen(summary);
			char line[4400];
			snprintf(line, sizeof line, "zond trace: warning: %s: its code is named by "
						    "address, with no source lines\n", files[i]);
			if (!strstr(summary, line))
				snprintf(summary + used, size - used, "%s", line);
		}
	}
}

/* Code that ran unlike its file: one warning line appended to summary. */
static void warn_patched(char *summary, size_t size)
{
	char line[4400];
	for (size_t t = 0; t < o.nthreads; t++) {
		if (rebuild_patched(o.threads[t]->rb, line, sizeof line)) {
			size_t used = strlen(summary);
			snprintf(summary + used, size - used, "zond trace: warning: %s\n", line);
			return;
		}
	}
}

int online_finish(uint64_t execs, const char *command, int status, int64_t start_ns,
		  char *summary, size_t size)
{
	struct zerr err;
	int rc = -1;
	if (!o.syms || lost()) {
		free_all();
		return -1;
	}
	struct zp_profile *p = profile_new();
	uint64_t insns = 0;
	rc = 0;
	for (size_t i = 0; i < o.nthreads && rc == 0; i++) {
		struct online_thread *t = o.threads[i];
		if (catch_up(t) < 0)
			return free_all(), profile_free(p), -1;
		insns += rebuild_insns(t->rb);
		rc = rebuild_finish_thread(t->rb, p, (int64_t)i, &err);
	}
	/* the process's id, as a trace's header gives it (qemu-user's process is the guest's) */
	for (size_t i = 0; i < p->nthreads; i++)
		p->threads[i].pid = getpid();
	if (rc == 0) {
		describe(p, insns, command, status, start_ns);
		rc = store_online(p, &err);
	}
	if (rc < 0) {
		failed(&err);
	} else {
		snprintf(summary, size, "zond trace: online profile stored in %s: %" PRIu64
			 " instructions, %" PRIu64 " block executions, %zu thread%s\n", o.store, insns,
			 execs, o.nthreads, o.nthreads == 1 ? "" : "s");
		warn_unreadable(summary, size);
		warn_patched(summary, size);
	}
	profile_free(p);
	free_all();
	return rc;
}
