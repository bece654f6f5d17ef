/*
 * drain.c - blocks every signal, works 0.3 s of CPU time, then takes every
 * pending signal with sigtimedwait, and with a signalfd for all signals:
 * nobody sent one, so none may be there (none of zond's sampler either).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

int main(void)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	spin_cpu(0.3);
	int fd = signalfd(-1, &all, SFD_NONBLOCK);
	struct signalfd_siginfo fsi;
	int by_fd = 0;
	while (fd >= 0 && read(fd, &fsi, sizeof fsi) == (ssize_t)sizeof fsi) {
		printf("signalfd: signal %u\n", fsi.ssi_signo);
		by_fd++;
	}
	spin_cpu(0.3);
	struct timespec now = {0, 0};
	siginfo_t si;
	int waited = 0;
	while (sigtimedwait(&all, &si, &now) > 0) {
		printf("sigtimedwait: signal %d\n", si.si_signo);
		waited++;
	}
	printf("pending: %d by signalfd, %d by sigtimedwait\n", by_fd, waited);
	return 0;
}
