/*
 * gdb_test.c - the GDB remote protocol transport (transport.h,
 * transport/gdb.c) against QEMU's gdbstub on a real rv32 program
 * (progs/value.c): QEMU started by the transport, stopped at the ELF's
 * entry (run_to), interrupted while it runs (stop), the program's code
 * rewritten after it ran and the new code run (QEMU drops the translated
 * block: fence.i's job), CSRs read by their names in the target's
 * description (mcycle = minstret under -icount shift=0), scratch
 * RAM outside every segment, QEMU's exit status through wait().  Then a
 * second QEMU killed while the program runs: wait() fails with one line
 * saying the connection was lost and what was kept.
 *
 * Usage: gdb_test ELF ENTRY VALUE SPIN PHASE MAIN QEMU-ARGS...  (addresses as nm gives them, in hex;
 * the program's output goes to stdout)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "check.h"
#include "inject/transport.h"

/* A transport call that must succeed: its error line is shown when it fails. */
#define OK(call)                                                                                   \
	do {                                                                                       \
		int rc_ = (call);                                                                  \
		if (rc_ < 0)                                                                       \
			fprintf(stderr, "%s: %s\n", #call, err.msg);                              \
		CHECK(rc_ == 0);                                                                   \
	} while (0)

int main(int argc, char **argv)
{
	(void)argc;
	const char *elf = argv[1];
	struct zerr err = {{0}};
	struct inject_rsp_options o = {.elf = elf, .timeout_ms = 5000, .poll_ms = 0};
	uint64_t entry = strtoull(argv[2], NULL, 16), value = strtoull(argv[3], NULL, 16),
		 spin = strtoull(argv[4], NULL, 16), phase = strtoull(argv[5], NULL, 16),
		 main_at = strtoull(argv[6], NULL, 16);
	struct inject_transport *t = inject_rsp_start(argv + 7, &o, &err);
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	CHECK(inject_rsp_xlen(t) == 4);
	OK(t->ops->run_to(t, entry, &err));
	uint64_t pc = 0;
	CHECK(t->ops->pc(t, 0, &pc, &err) == 0 && pc == entry);
	/*
	 * value() runs ten times (its code translated), the program spins;
	 * stopped there (no breakpoint: QEMU flushes its code cache when one
	 * is set or removed), value() is rewritten (li a0,9; ret): the second
	 * loop must run the new code.
	 */
	OK(t->ops->run_to(t, main_at, &err)); /* crt0 has cleared .bss */
	OK(t->ops->write(t, spin, "\1\0\0\0", 4, &err));
	uint32_t ph = 0;
	for (int tries = 0; tries < 10000 && ph != 1 && !err.msg[0]; tries++) {
		OK(t->ops->release(t, &err));
		nanosleep(&(struct timespec){0, 1000000}, NULL); /* let it run a while */
		OK(t->ops->stop(t, &err));
		OK(t->ops->read(t, phase, &ph, 4, &err));
	}
	CHECK(ph == 1);
	uint8_t code[4] = {0x25, 0x45, 0x82, 0x80}, back[4];
	OK(t->ops->write(t, value, code, 4, &err));
	OK(t->ops->read(t, value, back, 4, &err));
	CHECK(memcmp(back, code, 4) == 0);
	OK(t->ops->write(t, spin, "\0\0\0\0", 4, &err));
	/* scratch RAM takes writes and gives them back */
	uint64_t at;
	CHECK(t->ops->alloc(t, 256, &at, &err) == 0);
	printf("scratch 0x%llx\n", (unsigned long long)at);
	fflush(stdout);
	OK(t->ops->write(t, at, "zond", 5, &err));
	char word[5] = "";
	CHECK(t->ops->read(t, at, word, 5, &err) == 0);
	CHECK_EQ_STR(word, "zond");
	/* the round trip of one packet, for the record (not checked: timing) */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 200; i++)
		OK(t->ops->read(t, at, word, 4, &err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("packet round trip: %.1f us (200 m packets)\n",
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 200 / 1e3);
	/* the CSRs are registers named by the target's description */
	uint64_t c1 = 0, c2 = 0;
	CHECK(inject_rsp_get_reg(t, "minstret", &c1, &err) == 0);
	CHECK(inject_rsp_get_reg(t, "mcycle", &c2, &err) == 0);
	CHECK(c1 > 0 && c1 == c2); /* -icount shift=0: one cycle per instruction */
	CHECK(inject_rsp_get_reg(t, "nosuch", &c1, &err) < 0);
	CHECK(strstr(err.msg, ": the target has no register nosuch") != NULL);
	int status = -1;
	CHECK(t->ops->release(t, &err) == 0);
	CHECK(t->ops->wait(t, &status, &err) == 0);
	t->ops->close(t);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);

	/* a QEMU killed while the program runs: one line, what was kept */
	o.poll_ms = 20;
	t = inject_rsp_start(argv + 7, &o, &err);
	CHECK(t != NULL);
	if (!t)
		return check_done();
	OK(t->ops->run_to(t, main_at, &err));
	OK(t->ops->write(t, spin, "\1\0\0\0", 4, &err));
	void *local;
	uint64_t remote;
	CHECK(t->ops->share(t, 64, &local, &remote, &err) == 0);
	memcpy(local, "kept", 5);
	OK(t->ops->release(t, &err)); /* zond's buffer to the target */
	OK(t->ops->stop(t, &err));    /* and back: a first read */
	OK(t->ops->release(t, &err));
	CHECK(t->pid > 0);
	kill((pid_t)t->pid, SIGKILL);
	CHECK(t->ops->wait(t, &status, &err) < 0);
	printf("lost: %s\n", strchr(err.msg, ':') ? strchr(err.msg, ':') + 2 : err.msg);
	CHECK(strstr(err.msg, "the connection was closed by the target") != NULL);
	CHECK(strstr(err.msg, " ms after the start are kept") != NULL);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK_EQ_STR((char *)local, "kept");
	t->ops->close(t);
	fflush(stdout);
	return check_done();
}
