/*
 * epollwait: says "ready" on stderr, then waits in epoll_wait (nothing to
 * wait for) until a line comes on stdin, and prints how many waits the
 * kernel ended with EINTR: a call it never restarts after a stop, as a
 * ptrace attach makes (attach.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <unistd.h>

int main(void)
{
	int ep = epoll_create1(0);
	struct epoll_event in = {.events = EPOLLIN, .data.fd = 0}, out;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, 0, &in) < 0)
		return 2;
	fprintf(stderr, "ready\n");
	int eintr = 0;
	for (;;) {
		int n = epoll_wait(ep, &out, 1, -1);
		if (n < 0 && errno == EINTR)
			eintr++;
		else if (n > 0)
			break;
	}
	printf("eintr %d\n", eintr > 0);
	return 0;
}
