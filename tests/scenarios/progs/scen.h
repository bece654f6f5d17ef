/*
 * scen.h - what every scenario program shares: scen_probe(), the function
 * whose calls are counted (in libscen.so: a library call for `zond
 * libcalls`, an instrumented function for `zond record`), and the program's
 * own count of its calls, printed by each process as "ref N" before it
 * ends, with write(2) so that no stdio buffer is lost or doubled at fork,
 * exec or death.
 */
#ifndef SCEN_H
#define SCEN_H
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif
int scen_probe(int x);
#ifdef __cplusplus
}
#endif

static unsigned long scen_calls; /* this process image's calls of scen_probe */

static inline int probe(int x)
{
	scen_calls++;
	return scen_probe(x);
}

static inline void scen_report(const char *who)
{
	char line[64];
	int n = snprintf(line, sizeof line, "ref %s %lu\n", who, scen_calls);
	if (write(1, line, (size_t)n) != n)
		_exit(99);
}
#endif
