// Native kernels: ops of an optimized module (fusions, and elementwise, index-map,
// reduce and data-dependent ops outside fusions) compiled to machine code through LLVM.
// This header is the whole interface to LLVM: no LLVM type appears in it, so only the
// files that emit and compile LLVM IR (the emitter's kernel_emitter.h and the files
// that share it, scalar_ir.cc, vector_math.cc, jit.cc) include LLVM's headers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/module.h"

namespace kiln::cpu {

// The calling convention of every kernel: `buffers` holds the op's operands (dense,
// row-major, in the Literal storage layout) and then its results; the kernel computes
// iterations [begin, end) — result elements in row-major order, or for reductions the
// elements of the reduced results, each folding its own inputs — so disjoint ranges may
// run on different threads, and the results do not depend on how the range is split.
// A kernel may ask that ranges start and end at multiples of a unit (Kernel::unit).
using KernelFn = void (*)(void* const* buffers, int64_t begin, int64_t end);

// A kernel's machine code. Set when the kernel is compiled, and replaced while programs
// run when better code for it is ready (a tiered compile's optimized code, compiled in
// the background): both compute the same bits (no fast-math at any tier), so a run may
// use either, and each call reads the pointer once.
struct KernelCode {
  std::atomic<KernelFn> fn{nullptr}, combine{nullptr};
  // The symbols `fn` and `combine` are loaded from (empty: none), which a serialized
  // executable looks up again; written with LoadedCode's mutex held.
  std::string fnSymbol, combineSymbol;
};

// The machine code the kernels run, as loaded: one object per LLVM module (the latest:
// a tiered compile replaces the fast code's), what a serialized executable keeps.
struct LoadedCode {
  std::mutex mutex;
  std::vector<std::string> objects;
};

struct Kernel {
  std::shared_ptr<KernelCode> code;  // shared by the kernels that are the same code
  int64_t iterations = 0;  // the whole range: [0, iterations)
  int64_t grain = 1;       // iterations worth a thread's chunk (fewer when each folds many inputs)
  // When the iterations are the elements of one shape in row-major order (a loop over
  // one result shape, or one group of reduces), that shape; else empty.
  Shape space;
  // A kernel in two phases (a large column reduction): `fn`'s iterations are pieces of
  // the folded rows, each folding its rows into its own accumulators in a scratch
  // buffer of `scratchBytes` (passed after the results); then `combine`'s iterations,
  // [0, combineIterations), finish the result elements from those accumulators. Each
  // accumulator folds its elements in one fixed order, so the results do not depend on
  // how either range is split. Null for kernels of one phase.
  int64_t combineIterations = 0, combineGrain = 1, scratchBytes = 0;
  // Every range a caller passes starts and ends at a multiple of `unit` (or at
  // `iterations`): a loop over whole rows (kernel_emitter.h, forRows) then knows each
  // row's bounds at compile time, and LLVM emits no remainder loop for them.
  int64_t unit = 1;
  bool twoPhase() const { return scratchBytes > 0; }
  KernelFn fn() const { return code->fn.load(std::memory_order_acquire); }
  KernelFn combine() const { return code->combine.load(std::memory_order_acquire); }
};

// An op to compile. `precomputed` are values inside a fusion that something else computes
// first (the dot of a dot_epilogue fusion, on BLAS): the kernel reads them from buffers
// placed after the operands, before the results.
struct KernelRequest {
  const Op* op;
  std::vector<const Value*> precomputed;
  // It may write a result over an operand it reads: buffer assignment puts one there, or
  // a donating call may (Executable's mayWriteInPlace). Its loops then store through a
  // tile, and its buffers get no alias scopes (kernel_emitter.h).
  bool inPlace = false;
};

class Jit;  // the JIT session that owns the machine code (jit.h)

// How much LLVM optimizes before the first run.
enum class CompileTier : uint8_t {
  Optimized,  // the kernel pipeline of O2's passes, vectorized (the default; jit.cc)
  Fast,       // no IR optimization, FastISel: compiles about 10x faster, runs slower
  Tiered,     // Fast first, then Optimized in the background, swapped in when ready
};

// A tiered compile's optimizing half, on a thread of its own; destroying it stops it
// after the module it is compiling and waits for that.
class BackgroundCompile;

struct NativeKernels {
  std::shared_ptr<Jit> jit;
  std::unordered_map<const Op*, Kernel> kernels;
  // The ops asked for that the emitter left to the interpreter, with the reason
  // ("unsupported: stablehlo.reduce in a fusion").
  std::vector<std::pair<const Op*, std::string>> declined;
  double seconds = 0;          // emission, optimization and machine code, in all (wall clock)
  // Summed over the modules compiled side by side (so together more than `seconds`
  // when several threads compiled):
  double emitSeconds = 0;      // building the LLVM IR
  double optimizeSeconds = 0;  // LLVM's optimization passes
  double codegenSeconds = 0;   // machine code
  int threads = 1;             // modules compiled side by side
  int cachedModules = 0;       // of them, those whose machine code came from the disk cache
  CompileTier tier = CompileTier::Optimized;
  // Tiered: the optimized code on its way (null once none is); `waitForOptimizedCode`.
  std::shared_ptr<BackgroundCompile> background;
  int sharedKernels = 0;       // kernels that are the same code as an earlier one, compiled once
  std::shared_ptr<LoadedCode> code = std::make_shared<LoadedCode>();
  bool deserialized = false;   // loaded from a serialized executable: nothing was compiled
};

// How reports and errors name an op: "kiln.fusion (input) at line 12". A fusion has no
// line of its own and takes its root's (the op of its first result).
SourcePos sourceLine(const Op& op);
std::string describeOp(const Op& op);

struct CompileOptions {
  // Where the kernels' LLVM IR (before and after optimization) and assembly are written
  // (`kiln compile --backend cpu --dump-dir`); empty: nowhere.
  std::string dumpDir;
  // The persistent cache of machine code (disk_cache.h; the CLI passes
  // defaultCacheDir()); empty: none. Not used with a dump dir (a dump compiles). Only
  // optimized code is kept there: a tiered compile that finds it there runs it at once.
  std::string cacheDir;
  CompileTier tier = CompileTier::Optimized;  // a dump is always optimized
  // The most bytes the program's buffers may take at their peak; a program that needs
  // more is refused before its kernels compile (passes/memory_limit.h). 0: no limit.
  int64_t memoryLimit = 0;
};

// Emits one kernel per request into LLVM modules (one per thread of the backend, compiled
// side by side; one in all with a dump dir), optimizes them (jit.cc's kernel pipeline) for the host CPU and
// compiles them. Each kernel's function is named after its op and source line. Throws
// kiln::Error (Internal) when LLVM itself fails, Io when a dump cannot be written.
NativeKernels compileKernels(const std::vector<KernelRequest>& requests, const CompileOptions& options = {});

// A kernel as a serialized executable keeps it: where its code is (an index into the
// distinct codes' symbols) and how it runs; or why the emitter declined it.
struct SavedKernel {
  bool declined = false;
  std::string reason;          // declined
  size_t code = 0;             // else: the code's number
  Kernel kernel;               // its iterations, grain, space and phases (not its code)
};
struct SavedKernels {
  std::vector<std::string> objects;
  std::vector<std::pair<std::string, std::string>> symbols;  // per code: fn, combine ("" if none)
  std::vector<SavedKernel> kernels;                          // per request
};

// What serializing keeps of `compiled`'s kernels for `requests` (those compileKernels
// compiled them from, in the same order).
SavedKernels saveKernels(const NativeKernels& compiled, const std::vector<KernelRequest>& requests);
// The kernels of `requests` from `saved` (the same requests, of an identical module)
// without compiling: the objects are loaded and each kernel's code looked up by name.
// Throws kiln::Error (Io) when `saved` does not fit the requests.
NativeKernels loadKernels(const SavedKernels& saved, const std::vector<KernelRequest>& requests);

// Blocks until a tiered compile's optimized code is in use (at once for other tiers),
// and returns the seconds its background compile took (0 when there was none). Rethrows
// what the background compile threw.
double waitForOptimizedCode(const NativeKernels& kernels);

}  // namespace kiln::cpu
