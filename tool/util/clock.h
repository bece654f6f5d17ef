/*
 * clock.h - the time now, in one place for the tool.
 *
 * clock_now_ns(CLOCK_REALTIME) is what runs store as their start (ns since
 * the epoch); clock_now_ns(CLOCK_MONOTONIC) is for durations and timeouts,
 * which must not jump when the wall clock is set.  Never fails: the clocks
 * asked for always exist on Linux.
 */
#ifndef ZOND_UTIL_CLOCK_H
#define ZOND_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

int64_t clock_now_ns(clockid_t clock);

#endif
