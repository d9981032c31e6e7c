// Row groups: consecutive kernels of a step list that run together, one block of rows
// at a time, while the block is in cache. Softmax is three kernels (the row maxima, the
// exponentials and their sums, the quotients) that each stream the whole matrix; run
// block by block, the matrix is read from memory once, and what passes between the
// kernels (the exponentials, the maxima and sums) lives in a per-thread scratch of one
// block instead of in memory. Every kernel computes the same values on any split of its
// iterations (native_kernels.h), so a group's results are bitwise those of its kernels
// run one after the other, at every thread count.
//
// A kernel can join a group of `rows` rows when its iterations are the elements of a
// shape with `rows` leading and each of its results' row i reads, of what the group's
// earlier kernels produce, nothing but their row i. A shape's rows run along its first
// dimension that is not 1 (a [1, 128, 768] batch of one has 128 rows). This file holds that test and the
// block size; the step program (step_program.cc) forms and runs the groups.
#pragma once

#include <cstdint>
#include <functional>

#include "ir/module.h"

namespace kiln::cpu {

// Whether `v`'s rows number `rows`.
bool leadsRows(const Value* v, int64_t rows);

// The rows of a kernel's iteration space (0 when it has none).
int64_t rowsOfSpace(const Shape& space);

// Whether `kernel` (a fusion, or the one op of a one-op kernel) reads row by row: every
// result has `rows` as its leading dimension, and row i of each depends, among the
// values `fromGroup` holds, only on their row i (each of those having `rows` leading).
bool readsRowByRow(const Op& kernel, int64_t rows, const std::function<bool(const Value*)>& fromGroup);

// The rows of one block of a group whose values take `bytesPerRow` bytes per row in all:
// as many as fit in a share of the core's L2 cache (at least 1).
int64_t rowsPerBlock(int64_t bytesPerRow);

}  // namespace kiln::cpu
