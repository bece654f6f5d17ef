/*
 * What zond's sampler must not change, and where it must go on sampling.
 * Its standard output is the same with and without zond (the test compares
 * them): the fd numbers open() and pipe() give, the fds a forked child and
 * an exec'ed image hold (zond's own, perf_event fds, left out), and that the
 * exec'ed image lives.  On standard error, for the test: each process's
 * perf_event fds ("perf_fds ROLE PID N") and the executable mappings of
 * zond's runtime ("zond_code PID LO HI", from /proc/self/maps).
 *
 * The parent runs a worker thread that spins with every signal blocked,
 * forks while it lives (the child spins, lists its fds), then execs itself
 * ("exec").  That image spins with every signal blocked and execs itself
 * again ("plain") without LD_PRELOAD: a sample signal pending then must
 * not reach the last image, which has no handler for it and unblocks all
 * signals.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "spin.h"
#include <unistd.h>

static pthread_barrier_t forked;

static void block_all(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

/* The fds of this process but the directory's own and perf_event fds; their count on stderr. */
static void list_fds(const char *role)
{
	DIR *d = opendir("/proc/self/fd");
	int perf = 0;
	char line[4096] = "";
	size_t used = 0;
	int fds[256], n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		char link[320], target[256] = "";
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t len = readlink(link, target, sizeof target - 1);
		target[len > 0 ? len : 0] = 0;
		if (strcmp(target, "anon_inode:[perf_event]") == 0)
			perf++;
		else if (n < 256)
			fds[n++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	for (int i = 0; i < n; i++) /* readdir's order is the kernel's: sorted here */
		for (int j = i + 1; j < n; j++)
			if (fds[j] < fds[i]) {
				int x = fds[i];
				fds[i] = fds[j];
				fds[j] = x;
			}
	for (int i = 0; i < n && used < sizeof line - 16; i++)
		used += (size_t)snprintf(line + used, sizeof line - used, " %d", fds[i]);
	printf("%s fds:%s\n", role, line);
	fflush(stdout);
	fprintf(stderr, "perf_fds %s %d %d\n", role, (int)getpid(), perf);
}

static void zond_code(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096];
	while (maps && fgets(line, sizeof line, maps)) {
		unsigned long lo, hi;
		char perms[8];
		if (strstr(line, "libzond") && sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
		    perms[2] == 'x')
			fprintf(stderr, "zond_code %d %lx %lx\n", (int)getpid(), lo, hi);
	}
	if (maps)
		fclose(maps);
}

static void *worker(void *arg)
{
	(void)arg;
	block_all();
	spin(0.05);
	pthread_barrier_wait(&forked);
	return NULL;
}

static void unblock_all(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The image the parent execs: sampled like it, it execs one without zond. */
static int exec_image(char **argv, char **envp)
{
	unblock_all();
	zond_code();
	spin(0.1);
	list_fds("exec");
	printf("exec image: alive\n");
	fflush(stdout);
	char *env[256];
	int n = 0;
	for (char **e = envp; *e && n < 255; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
			env[n++] = *e;
	env[n] = NULL;
	block_all();
	spin(0.05);
	char *args[] = {argv[0], "plain", NULL};
	execve("/proc/self/exe", args, env);
	return 1;
}

int main(int argc, char **argv, char **envp)
{
	if (argc > 1 && strcmp(argv[1], "exec") == 0)
		return exec_image(argv, envp);
	if (argc > 1 && strcmp(argv[1], "plain") == 0) {
		unblock_all();
		printf("plain image: alive\n");
		return 0;
	}
	zond_code();
	int fd = open("/dev/null", O_RDONLY);
	int p[2];
	if (pipe(p) != 0)
		return 1;
	printf("open: %d, pipe: %d %d\n", fd, p[0], p[1]);
	/* zond's sampling signal, queried: the default, as without zond */
	struct sigaction was;
	sigaction(SIGRTMAX - 3, NULL, &was);
	printf("SIGRTMAX-3: %s\n", was.sa_handler == SIG_DFL ? "default" : "a handler");
	fflush(stdout);
	pthread_barrier_init(&forked, NULL, 2);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	spin(0.05);
	pid_t child = fork();
	if (child == 0) {
		zond_code();
		spin(0.1);
		list_fds("child");
		_exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	printf("child: exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	pthread_barrier_wait(&forked);
	pthread_join(t, NULL);
	list_fds("parent");
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
	return 1;
}
