// SPDX-License-Identifier: Apache-2.0
//
// The executable defines malloc, calloc and realloc itself; the dynamic linker then binds every
// library's calls (the Swift runtime, Foundation) to these, which count and forward to glibc's own
// entry points. free needs no wrapper: the memory still comes from glibc's allocator.

#include "AllocationCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);

static uint64_t allocation_count;

void *malloc(size_t size) {
  __atomic_fetch_add(&allocation_count, 1, __ATOMIC_RELAXED);
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  __atomic_fetch_add(&allocation_count, 1, __ATOMIC_RELAXED);
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  __atomic_fetch_add(&allocation_count, 1, __ATOMIC_RELAXED);
  return __libc_realloc(pointer, size);
}

uint64_t motion_allocation_count(void) { return __atomic_load_n(&allocation_count, __ATOMIC_RELAXED); }
int motion_allocation_counting_available(void) { return 1; }
#else
uint64_t motion_allocation_count(void) { return 0; }
int motion_allocation_counting_available(void) { return 0; }
#endif
