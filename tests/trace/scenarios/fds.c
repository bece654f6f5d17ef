/*
 * fds.c - prints the descriptors it starts with, closes every descriptor
 * from 3 up, opens its own output file (argv[1]) and writes into it, calls
 * leaf() 100 times, and exits with 5.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noipa)) int leaf(int i) { return i + 1; }

int main(int argc, char **argv)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self = d ? dirfd(d) : -1;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != self)
			printf("fd %s\n", e->d_name);
	if (d)
		closedir(d);
	fflush(stdout);
	for (int fd = 3; fd < 65536; fd++)
		close(fd);
	int s = 0;
	for (int i = 0; i < 100; i++)
		s += leaf(i);
	int fd = argc > 1 ? open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	if (fd < 0 || write(fd, "mine\n", 5) != 5 || close(fd) != 0)
		return 1;
	printf("%d\n", s);
	return 5;
}
