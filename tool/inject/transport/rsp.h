/*
 * rsp.h - a client of the GDB remote serial protocol, as zond inject needs
 * it to drive a bare-metal target through QEMU's gdbstub or a debug probe
 * (OpenOCD): one connection, all-stop mode, acknowledged packets.
 *
 * Framing (both ways): `$DATA#CC`, CC the modulo-256 sum of DATA's bytes in
 * two hex digits; each packet is acknowledged with `+` (`-` asks for it
 * again: a packet zond sent is resent up to 3 times, one it received with
 * a bad checksum is asked for again up to 3 times, then it is an error).
 * Received data are decoded: `}` escapes the next byte (xor 0x20) and
 * `X*N` repeats X another N-29 times (run-length encoding); `$#00` is an
 * empty reply (the stub does not know the command).  Sent data escape
 * `$ # } *`.
 *
 * Contract: every function returns 0 (or what it says), or -1 with one
 * line in err that starts with the connection's name ("HOST:PORT") and
 * says which request failed and why: the stub's `E NN` reply, no reply
 * within the timeout, a malformed packet, an unexpected reply (a stop
 * where a value was due), or the connection closed.  The stub's bytes a
 * message repeats (a reply, a file name of its description) are cut to 40
 * and any but printable ASCII written \xNN.  After a closed
 * connection or a protocol error every further call fails at once with
 * the same message (rsp_gone() says so): the caller keeps what it has.
 * Memory and registers are the target's bytes; register values are read
 * and written little-endian (RISC-V, the only target so far).
 */
#ifndef ZOND_INJECT_RSP_H
#define ZOND_INJECT_RSP_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct rsp;

/*
 * Connects to HOST:PORT (a TCP port: QEMU's -gdb tcp::PORT, OpenOCD's gdb
 * port) or to /PATH (a Unix socket: QEMU's -gdb unix:PATH,server=on),
 * retrying a refused connection until timeout_ms passed (a QEMU just
 * started may not listen yet), then asks qSupported.  timeout_ms is also
 * how long any later reply may take.  name is what messages call the
 * target (rsp_name), NULL for hostport: a QEMU zond started is named as
 * the user knows it, not by zond's own socket.  NULL with err set.
 */
struct rsp *rsp_connect(const char *hostport, const char *name, int timeout_ms, struct zerr *err);

/* The same over an open descriptor (a socketpair in tests); name for messages. */
struct rsp *rsp_open_fd(int fd, const char *name, int timeout_ms, struct zerr *err);

void rsp_close(struct rsp *r);

/* 1 when the connection is closed or broken (every call fails). */
int rsp_gone(const struct rsp *r);
const char *rsp_name(const struct rsp *r);
/* The largest packet the stub takes (qSupported's PacketSize, at most 64 KiB; else 400). */
size_t rsp_packet_size(const struct rsp *r);

/*
 * Sends cmd and waits for its reply, decoded into a buffer of r valid until
 * the next call (*reply, NUL-terminated, its length in *len).  An `E NN`
 * reply is an error ("NAME: CMD: the target answered E NN").  An empty
 * reply is returned as such (the stub does not support cmd).  A stop reply
 * (T, S, W, X) is an error here: it is not the answer to cmd.
 */
int rsp_request(struct rsp *r, const char *cmd, const char **reply, size_t *len,
		struct zerr *err);

/*
 * qXfer:features:read of annex ("target.xml"), every chunk; *xml malloc'ed.
 * A part with no data, or a file over 1 MiB, is an error (a stub that
 * never says 'l' does not keep zond).
 */
int rsp_features(struct rsp *r, const char *annex, char **xml, struct zerr *err);

/* The target's registers as its description numbers them. */
struct rsp_reg {
	char name[32];
	uint32_t regnum, bitsize;
};

struct rsp_regs {
	struct rsp_reg *regs;
	size_t n;
	char arch[32]; /* <architecture>, "riscv:rv32": trimmed, other bytes than printable ASCII '?' */
};

/*
 * Reads target.xml and every file it includes (xi:include), in document
 * order; registers without regnum follow the one before (the first is 0).
 * -1 with err when the stub has no description or it does not parse.
 */
int rsp_target_regs(struct rsp *r, struct rsp_regs *out, struct zerr *err);
void rsp_regs_free(struct rsp_regs *regs);
/* The register called name, or NULL. */
const struct rsp_reg *rsp_reg_find(const struct rsp_regs *regs, const char *name);

/* Memory, in packets the stub takes (m, M). */
int rsp_read_mem(struct rsp *r, uint64_t addr, void *buf, size_t n, struct zerr *err);
int rsp_write_mem(struct rsp *r, uint64_t addr, const void *buf, size_t n, struct zerr *err);

/* One register (p, P) of bytes bytes (4 or 8). */
int rsp_read_reg(struct rsp *r, uint32_t regnum, size_t bytes, uint64_t *value,
		 struct zerr *err);
int rsp_write_reg(struct rsp *r, uint32_t regnum, size_t bytes, uint64_t value,
		  struct zerr *err);
/* The general registers (g): at most cap bytes into buf, their number in *n. */
int rsp_read_gregs(struct rsp *r, uint8_t *buf, size_t cap, size_t *n, struct zerr *err);

/* A software breakpoint (Z0/z0) of kind (instruction length: 2 or 4). */
int rsp_break(struct rsp *r, uint64_t addr, int kind, int insert, struct zerr *err);

/* How the target stopped. */
struct rsp_stop {
	char kind;  /* 'T'/'S' stopped by a signal, 'W' exited, 'X' killed */
	int value;  /* the signal (T, S, X) or the exit status (W) */
	char thread[32];
};

/* The stop reply to `?` (why the target is stopped now). */
int rsp_halt_reason(struct rsp *r, struct rsp_stop *stop, struct zerr *err);

/* Lets the target run (vCont;c when the stub has it, else c); no reply is waited for. */
int rsp_continue(struct rsp *r, struct zerr *err);

/* Executes one instruction (s) and gives its stop reply. */
int rsp_step(struct rsp *r, struct rsp_stop *stop, struct zerr *err);
/*
 * Waits up to timeout_ms (-1: the connection's timeout, 0: no wait) for
 * the stop reply of a running target.  1: stopped (*stop filled), 0: still
 * running after the wait, -1 with err (connection lost, malformed packet).
 * Console output packets (O) met on the way are skipped.
 */
int rsp_wait_stop(struct rsp *r, int timeout_ms, struct rsp_stop *stop, struct zerr *err);

/* Stops a running target (a 0x03 byte); its stop reply follows (rsp_wait_stop). */
int rsp_interrupt(struct rsp *r, struct zerr *err);

#endif
