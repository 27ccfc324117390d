// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC: the tracepoints of include/trace/events/quic.h are instantiated
 * here; the other files only fire them.
 */

#define CREATE_TRACE_POINTS
#include <trace/events/quic.h>
