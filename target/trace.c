// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints of scalio-target are defined here (trace.h).
 */
#include "rdma.h"

#define CREATE_TRACE_POINTS
#include "trace.h"
