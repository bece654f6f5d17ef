/*
 * fixture.h - a small hand-built profile with known numbers, shared by the
 * export and report tests.
 *
 * fixture_profile(nevents) builds run 7 of "./app --fast" with nevents
 * events: none (counts only), "time" in ns, or "time" and "cycles" (every
 * cycles cost is 3 times the time cost).  Times in ns:
 *
 * thread 0 (pid 100, tid 100, "app"):
 *   <root> -> main           1 call   incl 10000
 *   main   -> work           4 calls  incl  8000   (site line 12)
 *   main   -> parse (block)  2 calls  incl  1000   (site line 13)
 *   work   -> helper         8 calls  incl  2000   (site line 25)
 *   main   calls 1 self 1000 incl 10000 min 10000 max 10000
 *   work   calls 4 self 6000 incl  8000 min  1500 max  2500
 *   helper calls 8 self 2000 incl  2000 min   200 max   300
 *   parse  calls 2 self 1000 incl  1000 min   400 max   600
 * thread 1 (pid 100, tid 101, "worker"):
 *   <root> -> worker_main    1 call   incl 3500
 *   worker_main -> helper    3 calls  incl  600
 *   worker_main -> fact      1 call   incl 2400
 *   fact -> fact             4 calls  incl 4800   (recursion)
 *   worker_main calls 1 self  500 incl 3500 min 3500 max 3500
 *   helper      calls 3 self  600 incl  600 min  150 max  250
 *   fact        calls 5 self 2400 incl 2400 min  480 max 2400
 *
 * Node ids: main 0, work 1, helper 2, parse 3, worker_main 4, fact 5.
 * Total self time 13500 (thread 0: 10000, thread 1: 3500).
 */
#ifndef ZOND_TEST_FIXTURE_H
#define ZOND_TEST_FIXTURE_H

#include "model/profile.h"

enum { FX_MAIN, FX_WORK, FX_HELPER, FX_PARSE, FX_WORKER_MAIN, FX_FACT };

struct zp_profile *fixture_profile(unsigned nevents);

/* Reads a whole file into a malloc'ed string (NULL on failure). */
char *fixture_read_file(const char *path);

#endif
