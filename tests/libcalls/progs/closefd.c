/* closefd.c - a program that closes every file descriptor, then calls on, then _exits. */
#include <unistd.h>

#include "mylib.h"

int main(void)
{
	for (int fd = 0; fd < 1024; fd++)
		close(fd);
	int sum = 0;
	for (int i = 0; i < 500; i++)
		sum += ml_add(i, 1);
	_exit(sum == 125250 ? 7 : 1);
}
