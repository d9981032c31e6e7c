// How many threads the cpu backend uses: for the chunks of large kernels and the pieces
// of GEMMs (each piece on one OpenBLAS thread: gemm.cc), so the two never oversubscribe
// the cores between them (DESIGN §9); results do not depend on it (each kernel iteration
// and each GEMM piece is computed by one thread, in a fixed order).
#pragma once

#include <cstdint>
#include <functional>

#include "ir/module.h"

namespace kiln::cpu {

// `n` threads (at least 1); 0 restores the default: every core, or KILN_NUM_THREADS when
// that is set. Not to be called while the backend runs.
void setThreadCount(int n);
int threadCount();

// Runs `work` inside the backend's thread pool (its parallel loops use that many threads).
void inKernelPool(const std::function<void()>& work);

// Runs part(0), …, part(parts - 1), each on one thread of the pool (the calling thread
// alone when there is one part).
void runParts(int64_t parts, const std::function<void(int64_t)>& part);

struct Kernel;
class Profile;
// Runs a compiled kernel over its whole iteration range, in chunks on the pool when it
// is worth more than a chunk and more than one thread runs (a two-phase kernel: both
// phases, one after the other; `buffers` then ends with its scratch). With a profile,
// each chunk is a slice of `op` on the thread that ran it.
void runKernel(const Kernel& kernel, void* const* buffers, Profile* profile = nullptr, const Op* op = nullptr);

}  // namespace kiln::cpu
