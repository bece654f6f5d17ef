/*
 * sigagain.c - signal handlers that return to run the interrupted
 * instruction again (tests/trace/sigagain.sh): a store into a page the
 * handler makes writable (a fault fixed, as guard pages and write barriers
 * do), and a read() restarted after an SA_RESTART handler (a child signals
 * while the parent is blocked in it).  The program's own counts are its
 * output: fill is called 10 times and read once.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int fixed, woke;
static char *page;

static void unprotect(int sig)
{
	(void)sig;
	fixed++;
	mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

static void wake(int sig)
{
	(void)sig;
	woke++;
}

__attribute__((noinline)) void fill(char *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (char)i;
}

__attribute__((noinline)) long reader(int fd)
{
	char b[8];
	return read(fd, b, sizeof b);
}

/* pid blocked in read(2): the program runs under qemu-user on an x86-64 host, whose read is 0 */
static int in_read(pid_t pid)
{
	char path[64];
	long nr = -1;
	snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &nr) != 1)
			nr = -1;
		fclose(f);
	}
	return nr == 0;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = unprotect;
	sigaction(SIGSEGV, &sa, NULL);
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < 10; i++) {
		mprotect(page, 4096, PROT_READ);
		fill(page, 64);
	}
	sa.sa_handler = wake;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	int p[2];
	if (pipe(p) != 0)
		return 1;
	pid_t parent = getpid(), child = fork();
	if (child == 0) {
		for (int i = 0; i < 3; i++) {
			while (!in_read(parent))
				usleep(1000);
			kill(parent, SIGUSR1);
			usleep(50000);
		}
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	long r = reader(p[0]);
	waitpid(child, NULL, 0);
	printf("faults fixed %d, read %ld after %d signals\n", fixed, r, woke);
	return 0;
}
