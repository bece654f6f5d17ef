/*
 * rsp_test.c - the GDB remote protocol client (tool/inject/transport/rsp.h)
 * against a scripted fake stub on a socketpair: each step says which bytes
 * the client must send (raw, as framed: escapes visible) and which bytes
 * the stub answers (raw: checksums, escapes and run-length encoding written
 * by hand here, so that a wrong decoder cannot agree with a wrong encoder).
 * The stub records every ack the client sends.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "inject/transport/rsp.h"

struct step {
	const char *expect; /* the raw payload the client must send; NULL: read nothing */
	const char *reply;  /* raw bytes sent back; NULL: close the connection */
	int nak;            /* ask for the packet again once before acking it */
};

struct stub {
	int fd;
	const struct step *steps;
	size_t nsteps;
	char acks[64]; /* '+' and '-' the client sent */
	size_t nacks;
	char wrong[256]; /* the first packet that differed from the script */
};

/* The next packet's raw payload (or "\x03" for an interrupt); acks recorded. */
static int stub_read(struct stub *s, char *buf, size_t cap)
{
	char c;
	for (;;) {
		if (read(s->fd, &c, 1) != 1)
			return -1;
		if (c == '+' || c == '-') {
			if (s->nacks + 1 < sizeof s->acks)
				s->acks[s->nacks++] = c;
			continue;
		}
		if (c == 3) {
			snprintf(buf, cap, "\x03");
			return 0;
		}
		if (c == '$')
			break;
	}
	size_t n = 0;
	unsigned sum = 0;
	while (read(s->fd, &c, 1) == 1 && c != '#') {
		if (n + 1 < cap)
			buf[n++] = c;
		sum += (uint8_t)c;
	}
	buf[n] = 0;
	char cc[3] = {0};
	if (read(s->fd, cc, 2) != 2 || strtoul(cc, NULL, 16) != (sum & 0xff))
		snprintf(s->wrong, sizeof s->wrong, "bad checksum from the client: %s", cc);
	return 0;
}

static void *stub_run(void *arg)
{
	struct stub *s = arg;
	char buf[4096];
	for (size_t i = 0; i < s->nsteps; i++) {
		const struct step *st = &s->steps[i];
		if (st->expect) {
			if (stub_read(s, buf, sizeof buf) < 0)
				break;
			if (st->nak && (write(s->fd, "-", 1) != 1 || stub_read(s, buf, sizeof buf) < 0))
				break;
			if (buf[0] != 3 && write(s->fd, "+", 1) != 1)
				break;
			if (strcmp(buf, st->expect) != 0 && !s->wrong[0])
				snprintf(s->wrong, sizeof s->wrong, "step %zu: got '%.80s', want '%.80s'",
					 i, buf, st->expect);
		}
		if (!st->reply) {
			shutdown(s->fd, SHUT_WR);
			break;
		}
		if (write(s->fd, st->reply, strlen(st->reply)) < 0)
			break;
	}
	/* drain acks until the client closes */
	while (read(s->fd, buf, 1) == 1)
		if ((buf[0] == '+' || buf[0] == '-') && s->nacks + 1 < sizeof s->acks)
			s->acks[s->nacks++] = buf[0];
	close(s->fd);
	return NULL;
}

#define HELLO                                                                                     \
	{"qSupported:swbreak+;xmlRegisters=riscv", "$PacketSize=100;qXfer:features:read+#9c", 0}, \
	{                                                                                         \
		"vCont?", "$vCont;c;C;s;S#62", 0                                                  \
	}

struct run {
	struct stub stub;
	pthread_t th;
	struct rsp *r;
	struct zerr err;
};

static void start(struct run *x, const struct step *steps, size_t n)
{
	int sv[2];
	memset(x, 0, sizeof *x);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	x->stub.fd = sv[1];
	x->stub.steps = steps;
	x->stub.nsteps = n;
	pthread_create(&x->th, NULL, stub_run, &x->stub);
	x->r = rsp_open_fd(sv[0], "fake", 300, &x->err);
	if (!x->r)
		fprintf(stderr, "open: %s\n", x->err.msg);
}

/* Closes the client, then checks the stub saw exactly the script and these acks. */
static void finish(struct run *x, const char *acks)
{
	rsp_close(x->r);
	pthread_join(x->th, NULL);
	CHECK_EQ_STR(x->stub.wrong, "");
	CHECK_EQ_STR(x->stub.acks, acks);
}

static void test_hello_and_memory(void)
{
	static const struct step steps[] = {
		HELLO,
		/* 16 zeros as "0" and 15 more ("*," : ',' is 44 = 15 + 29) */
		{"m80000000,8", "$0*,#86", 0},
		/* "11*\"" is 1 + 5 more 1s, then 22: 1111112222... */
		{"m80000008,4", "$1*\"22#e1", 0},
		/* packet size 0x100: (256-32)/2 = 112 bytes per M packet */
		{"M10,3:0a0b0c", "$OK#9a", 1},
	};
	struct run x;
	start(&x, steps, sizeof steps / sizeof *steps);
	CHECK(x.r != NULL);
	CHECK(rsp_packet_size(x.r) == 0x100);
	uint8_t b[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	CHECK(rsp_read_mem(x.r, 0x80000000, b, 8, &x.err) == 0);
	CHECK(memcmp(b, "\0\0\0\0\0\0\0\0", 8) == 0);
	CHECK(rsp_read_mem(x.r, 0x80000008, b, 4, &x.err) == 0);
	CHECK(b[0] == 0x11 && b[1] == 0x11 && b[2] == 0x11 && b[3] == 0x22);
	CHECK(rsp_write_mem(x.r, 0x10, "\x0a\x0b\x0c", 3, &x.err) == 0);
	finish(&x, "+++++");
}

static void test_escapes(void)
{
	static const struct step steps[] = {
		HELLO,
		/* the client escapes # * $ } as } and the byte xor 0x20 */
		{"qX}\x03}\x0a}\x04}]", "$x}]}\x03}\x04}\x0ay#53", 0},
	};
	struct run x;
	start(&x, steps, sizeof steps / sizeof *steps);
	const char *rep;
	size_t len;
	CHECK(rsp_request(x.r, "qX#*$}", &rep, &len, &x.err) == 0);
	CHECK_EQ_STR(rep, "x}#$*y");
	CHECK(len == 6);
	finish(&x, "+++");
}

static void test_checksums(void)
{
	static const struct step steps[] = {
		HELLO,
		/* a bad checksum is asked for again ('-'); the resent packet is good */
		{"p20", "$78563412#00$78563412#a4", 0},
		/* four bad ones: an error */
		{"p21", "$00#00$00#00$00#00$00#00", 0},
	};
	struct run x;
	start(&x, steps, sizeof steps / sizeof *steps);
	uint64_t v = 0;
	CHECK(rsp_read_reg(x.r, 0x20, 4, &v, &x.err) == 0);
	CHECK(v == 0x12345678);
	CHECK(rsp_read_reg(x.r, 0x21, 4, &v, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: p21: bad checksum 00 (the data sum to 60), 4 times");
	CHECK(rsp_gone(x.r));
	finish(&x, "++-+---");
}

static void test_errors_and_empty(void)
{
	static const struct step steps[] = {
		HELLO,
		{"m0,4", "$E14#aa", 0},
		/* an E reply leaves the connection usable */
		{"P20=efbeadde", "$OK#9a", 0},
		/* $#00: the stub does not know Z0 */
		{"Z0,80000000,4", "$#00", 0},
		{"p20", "$T05thread:p01.01;#06", 0},
	};
	struct run x;
	start(&x, steps, sizeof steps / sizeof *steps);
	uint8_t b[4];
	CHECK(rsp_read_mem(x.r, 0, b, 4, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: m0,4: the target answered E14");
	CHECK(!rsp_gone(x.r));
	CHECK(rsp_write_reg(x.r, 0x20, 4, 0xdeadbeef, &x.err) == 0);
	CHECK(rsp_break(x.r, 0x80000000, 4, 1, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: Z0,80000000,4: the target has no software breakpoints");
	uint64_t v;
	CHECK(rsp_read_reg(x.r, 0x20, 4, &v, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg,
		     "fake: p20: unexpected stop reply T05thread:p01.01; (the target stopped)");
	finish(&x, "++++++");
}

static void test_disconnect_and_timeout(void)
{
	static const struct step lost[] = {HELLO, {"m0,4", NULL, 0}};
	struct run x;
	start(&x, lost, sizeof lost / sizeof *lost);
	uint8_t b[4];
	CHECK(rsp_read_mem(x.r, 0, b, 4, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: m0,4: the connection was closed by the target");
	CHECK(rsp_gone(x.r));
	/* every later call says the same */
	CHECK(rsp_read_mem(x.r, 8, b, 4, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: m0,4: the connection was closed by the target");
	finish(&x, "++");

	/* acked, never answered */
	static const struct step mute[] = {HELLO, {"m0,4", "", 0}};
	start(&x, mute, sizeof mute / sizeof *mute);
	CHECK(rsp_read_mem(x.r, 0, b, 4, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: m0,4: no reply within 300 ms");
	finish(&x, "++");

	/* a packet cut short */
	static const struct step cut[] = {HELLO, {"m0,4", "$0011", 0}, {NULL, NULL, 0}};
	start(&x, cut, sizeof cut / sizeof *cut);
	CHECK(rsp_read_mem(x.r, 0, b, 4, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: m0,4: the connection was closed by the target");
	finish(&x, "++");
}

static void test_target_xml(void)
{
	static const struct step steps[] = {
		HELLO,
		{"qXfer:features:read:target.xml:0,f8",
		 "$l<target><architecture>riscv:rv32</architecture>"
		 "<xi:include href=\"cpu.xml\"/><xi:include href=\"csr.xml\"/></target>#de",
		 0},
		/* two chunks: 'm' then 'l' */
		{"qXfer:features:read:cpu.xml:0,f8",
		 "$m<feature><reg name=\"zero\" bitsize=\"32\"/>#bc", 0},
		{"qXfer:features:read:cpu.xml:28,f8",
		 "$l<reg name=\"ra\" bitsize=\"32\"/><reg name=\"pc\" bitsize=\"32\" "
		 "regnum=\"32\"/></feature>#8d",
		 0},
		{"qXfer:features:read:csr.xml:0,f8",
		 "$l<feature><reg name=\"mcycle\" bitsize=\"32\" regnum=\"2882\"/>"
		 "<reg name=\"minstret\" bitsize=\"32\" regnum=\"2884\"/></feature>#b4",
		 0},
	};
	struct run x;
	start(&x, steps, sizeof steps / sizeof *steps);
	struct rsp_regs regs;
	CHECK(rsp_target_regs(x.r, &regs, &x.err) == 0);
	CHECK_EQ_STR(regs.arch, "riscv:rv32");
	CHECK(regs.n == 5);
	const struct rsp_reg *g = rsp_reg_find(&regs, "ra");
	CHECK(g && g->regnum == 1 && g->bitsize == 32);
	g = rsp_reg_find(&regs, "pc");
	CHECK(g && g->regnum == 32);
	g = rsp_reg_find(&regs, "minstret");
	CHECK(g && g->regnum == 2884);
	CHECK(rsp_reg_find(&regs, "mhpmcounter3") == NULL);
	rsp_regs_free(&regs);
	finish(&x, "++++++");
}

static void test_run_and_stop(void)
{
	static const struct step steps[] = {
		HELLO,
		{"vCont;c", "$O48690a#bb$T05thread:p01.01;#06", 0},
		{"vCont;c", "", 0},
		{"\x03", "$T02thread:p01.01;#03", 0},
		{"vCont;c", "$W03#ba", 0},
	};
	struct run x;
	start(&x, steps, sizeof steps / sizeof *steps);
	struct rsp_stop st;
	CHECK(rsp_continue(x.r, &x.err) == 0);
	CHECK(rsp_wait_stop(x.r, -1, &st, &x.err) == 1);
	CHECK(st.kind == 'T' && st.value == 5);
	CHECK_EQ_STR(st.thread, "p01.01");
	/* still running: no stop within 0 ms, then an interrupt stops it */
	CHECK(rsp_continue(x.r, &x.err) == 0);
	CHECK(rsp_wait_stop(x.r, 0, &st, &x.err) == 0);
	CHECK(rsp_interrupt(x.r, &x.err) == 0);
	CHECK(rsp_wait_stop(x.r, -1, &st, &x.err) == 1);
	CHECK(st.kind == 'T' && st.value == 2);
	CHECK(rsp_continue(x.r, &x.err) == 0);
	CHECK(rsp_wait_stop(x.r, -1, &st, &x.err) == 1);
	CHECK(st.kind == 'W' && st.value == 3);
	finish(&x, "++++++");
}

/*
 * A stub's bytes in messages stay on one line (fuzz_rsp: a newline as a
 * checksum digit, or in a reply, an architecture or a file name the
 * description includes, split zond's error line); a PacketSize past 64
 * KiB is taken as 64 KiB (one of ffffffffffffffff made rsp_write_mem's
 * buffer size wrap to 30 bytes, and its packets overran it); a description
 * part with no data is an error, not a request for the same part forever.
 */
static void test_hostile_stub(void)
{
	static const struct step newline[] = {
		HELLO,
		{"P20=efbeadde", "$a\nb#cd", 0},
		{"p20", "$OK#\n\xff", 0},
	};
	struct run x;
	uint64_t v;
	start(&x, newline, sizeof newline / sizeof *newline);
	CHECK(rsp_write_reg(x.r, 0x20, 4, 0xdeadbeef, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: P20=efbeadde: unexpected reply 'a\\x0ab'");
	CHECK(rsp_read_reg(x.r, 0x20, 4, &v, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg, "fake: p20: malformed reply: checksum '\\x0a\\xff' is not hex");
	finish(&x, "+++");

	static const struct step big[] = {
		{"qSupported:swbreak+;xmlRegisters=riscv", "$PacketSize=ffffffffffffffff#90", 0},
		{"vCont?", "$#00", 0},
		{"M10,3:0a0b0c", "$OK#9a", 0},
	};
	start(&x, big, sizeof big / sizeof *big);
	CHECK(x.r && rsp_packet_size(x.r) == 0x10000);
	CHECK(rsp_write_mem(x.r, 0x10, "\x0a\x0b\x0c", 3, &x.err) == 0);
	finish(&x, "+++");

	static const struct step xml[] = {
		HELLO,
		{"qXfer:features:read:target.xml:0,f8",
		 "$l<target><architecture>\n riscv:rv32\n</architecture>"
		 "<xi:include href=\"a&}\x03" "10;b\"/></target>#9b",
		 0},
		{"qXfer:features:read:a\nb:0,f8", "$E01#a6", 0},
		{"qXfer:features:read:target.xml:0,f8", "$m#6d", 0},
		{"qXfer:features:read:target.xml:0,f8",
		 "$l<target><architecture>\n riscv:rv32\n</architecture></target>#a8", 0},
	};
	struct rsp_regs regs;
	start(&x, xml, sizeof xml / sizeof *xml);
	CHECK(rsp_target_regs(x.r, &regs, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg,
		     "fake: qXfer:features:read:a\\x0ab:0,f8: the target answered E01");
	CHECK(rsp_target_regs(x.r, &regs, &x.err) < 0);
	CHECK_EQ_STR(x.err.msg,
		     "fake: target.xml: a part of the register description with no data");
	CHECK(rsp_target_regs(x.r, &regs, &x.err) == 0);
	CHECK_EQ_STR(regs.arch, "riscv:rv32");
	rsp_regs_free(&regs);
	finish(&x, "++++++");
}

int main(void)
{
	test_hello_and_memory();
	test_escapes();
	test_checksums();
	test_errors_and_empty();
	test_disconnect_and_timeout();
	test_target_xml();
	test_run_and_stop();
	test_hostile_stub();
	return check_done();
}
