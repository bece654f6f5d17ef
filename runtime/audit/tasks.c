/*
 * tasks.c - tasks sharing a thread's TLS (runtime/linux/tasks.h), with
 * libzond-audit's per-thread state, struct za_thread za_self (audit.h):
 * the same code as libzond's, built with this collector's state.
 */
#include "audit.h"

#include "../linux/tasks.c"
