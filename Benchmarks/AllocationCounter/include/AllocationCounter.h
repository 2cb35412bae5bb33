// SPDX-License-Identifier: Apache-2.0
//
// Counts heap allocations of the benchmark process (malloc, calloc, realloc), so that a benchmark
// can show that a loop allocates nothing per iteration. Linked only into motion-benchmarks.
#ifndef MOTION_ALLOCATION_COUNTER_H
#define MOTION_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Allocations made by the process so far (0 where counting is not available).
uint64_t motion_allocation_count(void);

/// 1 where allocations are counted (Linux with glibc), 0 elsewhere.
int motion_allocation_counting_available(void);

#endif
