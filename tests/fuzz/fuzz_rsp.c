/*
 * fuzz_rsp - libFuzzer target: the GDB remote protocol client
 * (tool/inject/transport/rsp.h) against a stub whose whole byte stream is
 * the input.  The input is written into one end of a socketpair, which is
 * then shut for writing (the stub has said all it will say: every wait ends
 * at the input's end, never on a clock), and the client on the other end
 * makes the calls of a zond inject session over GDB (transport/gdb.c): the
 * handshake (qSupported, vCont?), the target description (qXfer, expat,
 * xi:include), the halt reason, registers, memory both ways, breakpoints,
 * a step, continue, interrupt and the stop reply.  What the client sends is
 * drained by a thread, so that no send of it blocks.
 *
 * Each error must be one line that begins with the connection's name (the
 * file's path in fuzz_file.h's check: here "stub").
 */
#include "fuzz_file.h"
#include "inject/transport/rsp.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#define NAME "stub"

static void *drain(void *arg)
{
	int fd = *(int *)arg;
	char buf[4096];
	while (read(fd, buf, sizeof buf) > 0)
		;
	return NULL;
}

/* The stub's side: the input, as much of it as the socket takes at once, then its end. */
static int stub(const uint8_t *data, size_t size, int *client)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("socketpair");
		abort();
	}
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	while (size) {
		ssize_t n = write(sv[1], data, size);
		if (n <= 0)
			break; /* full: the rest is cut (inputs that large are rare) */
		data += n;
		size -= (size_t)n;
	}
	fcntl(sv[1], F_SETFL, 0);
	shutdown(sv[1], SHUT_WR);
	*client = sv[0];
	return sv[1];
}

static void check(int failed, const struct zerr *err)
{
	if (failed)
		fuzz_check_error(err->msg, NAME);
}

static void session(struct rsp *r)
{
	struct zerr err;
	struct rsp_regs regs;
	struct rsp_stop st;
	uint64_t v;
	uint8_t mem[300], gregs[520];
	size_t n;
	const char *rep;

	if (rsp_packet_size(r) < 64)
		abort();
	if (rsp_target_regs(r, &regs, &err) < 0) {
		fuzz_check_error(err.msg, NAME);
	} else {
		const struct rsp_reg *pc = rsp_reg_find(&regs, "pc");
		if (pc && memchr(pc->name, 0, sizeof pc->name) == NULL)
			abort();
		if (!memchr(regs.arch, 0, sizeof regs.arch))
			abort();
		rsp_regs_free(&regs);
	}
	check(rsp_halt_reason(r, &st, &err) < 0, &err);
	check(rsp_read_reg(r, 32, 4, &v, &err) < 0, &err);
	check(rsp_read_reg(r, 32, 8, &v, &err) < 0, &err);
	check(rsp_read_gregs(r, gregs, sizeof gregs, &n, &err) < 0, &err);
	check(rsp_read_mem(r, 0x80000000, mem, sizeof mem, &err) < 0, &err);
	memset(mem, 0x5a, sizeof mem);
	check(rsp_write_mem(r, 0x80001000, mem, 100, &err) < 0, &err);
	check(rsp_write_reg(r, 32, 4, 0x80000000, &err) < 0, &err);
	check(rsp_break(r, 0x80000010, 2, 1, &err) < 0, &err);
	check(rsp_step(r, &st, &err) < 0, &err);
	check(rsp_break(r, 0x80000010, 2, 0, &err) < 0, &err);
	check(rsp_continue(r, &err) < 0, &err);
	check(rsp_wait_stop(r, 0, &st, &err) < 0, &err);
	check(rsp_interrupt(r, &err) < 0, &err);
	check(rsp_wait_stop(r, -1, &st, &err) < 0, &err);
	check(rsp_request(r, "qfThreadInfo", &rep, &n, &err) < 0, &err);
	(void)rsp_gone(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int client;
	int peer = stub(data, size, &client);
	pthread_t th;
	if (pthread_create(&th, NULL, drain, &peer) != 0)
		abort();
	struct zerr err;
	struct rsp *r = rsp_open_fd(client, NAME, 1000, &err);
	if (r) {
		session(r);
		rsp_close(r); /* closes client: the drain ends */
	} else {
		fuzz_check_error(err.msg, NAME); /* rsp_open_fd closed client */
	}
	pthread_join(th, NULL);
	close(peer);
	return 0;
}
