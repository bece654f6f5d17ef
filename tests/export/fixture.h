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

/*
 * fixture_context_profile(nevents) builds a run with calling contexts whose
 * call edges mislead: two callers share a callee that calls different
 * functions depending on its caller, mutual recursion, two threads.  Events
 * as in fixture_profile.  Times in ns (calls, self, inclusive per context):
 *
 * thread 0 (pid 200, tid 200, "main"):
 *   main                 1  100  1000
 *   main;A               2   50   350
 *   main;A;C             2  100   300
 *   main;A;C;X           4  200   200
 *   main;B               1   50   450
 *   main;B;C             3  100   400
 *   main;B;C;Y           3  300   300
 *   main;f               1   10   100
 *   main;f;g             1   20    90
 *   main;f;g;f           1   30    70
 *   main;f;g;f;g         1   40    40
 * thread 1 (pid 200, tid 201, "worker"):
 *   worker               1   60   200
 *   worker;C             1   40   140
 *   worker;C;X           2  100   100
 *
 * Stats and call edges are the flat sums a collector keeps beside them:
 * per (thread, node) calls and self summed, inclusive over outermost
 * activations; per (thread, caller, callee) calls and inclusive summed over
 * every call.  The edges alone would allow main;A;C;Y and main;B;C;X.
 * Node ids: main 0, A 1, B 2, C 3, X 4, Y 5, f 6, g 7, worker 8.
 * Total self time 1200 (thread 0: 1000, thread 1: 200).
 */
enum { CX_MAIN, CX_A, CX_B, CX_C, CX_X, CX_Y, CX_F, CX_G, CX_WORKER };
struct zp_profile *fixture_context_profile(unsigned nevents);

/*
 * fixture_timeline_profile() builds a run with a timeline (record
 * --timeline): meta timeline_unit ns, run.start_ns TL_START, spans (times in
 * us after the start, x1000 ns; depth in brackets):
 *
 * thread 0 (pid 300, tid 300, "main"):
 *   main[0] 0-10   f[1] 1-4   g[2] 1.5-2.5   f[1] 5-9   g[2] 6-8   f[3] 6.5-7.5
 *   g[2] 8-8.5
 * thread 1 (pid 300, tid 301, "worker"):
 *   worker[0] 2-6   f[1] 3-5
 *
 * No events, stats, edges or contexts: the spans alone (profile_window
 * makes the rest).
 */
#define TL_START 1700000000000000000
enum { TL_MAIN, TL_F, TL_G, TL_WORKER };
struct zp_profile *fixture_timeline_profile(void);

/* Reads a whole file into a malloc'ed string (NULL on failure). */
char *fixture_read_file(const char *path);

#endif
