/*
 * transport_test.c - the ptrace transport (tool/inject/transport.h) on a
 * real program: started stopped, memory allocated within 2 GiB of its
 * code, memory shared with the controller (bytes written on one side are
 * read on the other through /proc/PID/mem), a write to its code read back,
 * then released: the program prints the same output and exits with the
 * same status as without zond (compared by transport.sh).
 *
 * Usage: transport_test PROG [ARGS]  (the program's output goes to stdout)
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "inject/transport.h"
#include "symbols/symbols.h"

int main(int argc, char **argv)
{
	(void)argc;
	struct zerr err;
	struct inject_transport *t = inject_ptrace_start(argv + 1, &err);
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	uint64_t start, near, remote;
	CHECK(t->ops->module_start(t, argv[1], &start, &err) == 0);
	CHECK(t->ops->alloc_near(t, start, 4096, &near, &err) == 0);
	int64_t dist = (int64_t)(near - start);
	CHECK(dist < (1ll << 31) && dist > -(1ll << 31));
	/* the new page reads as zeros, takes a write and gives it back */
	uint8_t page[16] = {1}, back[16] = {1};
	CHECK(t->ops->read(t, near, page, sizeof page, &err) == 0 && page[0] == 0);
	memcpy(page, "zond-trampoline", 16);
	CHECK(t->ops->write(t, near, page, sizeof page, &err) == 0);
	CHECK(t->ops->read(t, near, back, sizeof back, &err) == 0 && memcmp(page, back, 16) == 0);

	void *local;
	CHECK(t->ops->share(t, 8192, &local, &remote, &err) == 0);
	memcpy((char *)local + 4096, "from zond", 10);
	char seen[10] = "";
	CHECK(t->ops->read(t, remote + 4096, seen, sizeof seen, &err) == 0);
	CHECK_EQ_STR(seen, "from zond");
	CHECK(t->ops->write(t, remote, "from target", 12, &err) == 0);
	CHECK_EQ_STR((char *)local, "from target");

	int status = 0;
	CHECK(t->ops->release(t, &err) == 0);
	CHECK(t->ops->wait(t, &status, &err) == 0);
	t->ops->close(t);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	fflush(stdout);
	return check_done();
}
