/*
 * privdrop: what a daemon does once started as root.  It makes a call of f,
 * then changes its user (setgid and setuid to 65534, "user") or its root
 * (chroot to argv[2], "chroot"), or neither ("stay"), and then starts a thread (7 calls of g,
 * each calling f, and 7 of getppid), forks a child (11 calls of f) and
 * forks a child that execs this program ("child": 5 calls of g, exit 3; after
 * a chroot the exec fails, exit 127); after a change, it also runs a shell
 * with system() (exit 4; none in the jail: 127).  It prints its own counts
 * and the children's statuses.  Built with -finstrument-functions for zond record,
 * without for zond libcalls (getppid is its library call).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int f_calls, g_calls, getppid_calls;

__attribute__((noinline)) int f(int k)
{
	f_calls++;
	return k + 1;
}

__attribute__((noinline)) int g(int k)
{
	g_calls++;
	return f(k) + 1;
}

static void *thread(void *arg)
{
	(void)arg;
	int sum = 0;
	for (int i = 0; i < 7; i++) {
		sum += g(i);
		sum += getppid() > 0;
		getppid_calls++;
	}
	return (void *)(long)sum;
}

static int child_status(pid_t pid)
{
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		for (int i = 0; i < 5; i++)
			g(i);
		printf("exec'ed: g %d f %d\n", g_calls, f_calls);
		return 3;
	}
	if (argc < 2 ||
	    (strcmp(argv[1], "user") && strcmp(argv[1], "chroot") && strcmp(argv[1], "stay")) ||
	    (!strcmp(argv[1], "chroot") && argc < 3)) {
		fprintf(stderr, "usage: privdrop user | chroot DIR | stay\n");
		return 2;
	}
	f(0);
	if (!strcmp(argv[1], "user")	 ? setgid(65534) || setuid(65534)
	    : !strcmp(argv[1], "chroot") ? chroot(argv[2]) || chdir("/")
					 : 0) {
		perror(argv[1]);
		return 1;
	}
	pthread_t t;
	void *sum;
	if (pthread_create(&t, NULL, thread, NULL) || pthread_join(t, &sum))
		return 1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 11; i++)
			f(i);
		/* and a grandchild */
		pid_t grandchild = fork();
		if (grandchild == 0) {
			f(2);
			_exit(5);
		}
		_exit(child_status(grandchild) == 5 ? 0 : 1);
	}
	int forked = child_status(pid);
	pid = fork();
	if (pid == 0) {
		execl(argv[0], argv[0], "child", (char *)NULL);
		_exit(127);
	}
	int execed = child_status(pid);
	int shell = -1;
	if (strcmp(argv[1], "stay")) {
		int status = system("exit 4");
		shell = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	printf("uid %d: f %d g %d getppid %d sum %ld; forked child %d, exec'ed child %d, shell %d\n",
	       (int)getuid(), f_calls, g_calls, getppid_calls, (long)sum, forked, execed, shell);
	return 0;
}
