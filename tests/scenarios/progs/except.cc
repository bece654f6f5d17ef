/*
 * except: C++ exceptions thrown through frames that called probe(), caught
 * a few frames up, and one never caught (std::terminate: SIGABRT).
 */
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "scen.h"

static void deep(int n)
{
	probe(n);
	if (n == 0)
		throw std::runtime_error("bottom");
	deep(n - 1);
	probe(n); /* never reached */
}

/* the uncaught throw: what was called up to it is reported before the abort */
static void terminated()
{
	scen_report("uncaught");
	abort();
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 25; i++) {
		try {
			deep(4);
		} catch (const std::exception &) {
			probe(-1);
		}
	}
	if (argc > 1 && !strcmp(argv[1], "uncaught")) {
		std::set_terminate(terminated);
		deep(2);
	}
	scen_report("caught");
	return 0;
}
