// Runtime kernels (runtime_kernels.h).
#include "backends/cpu/runtime_kernels.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "ir/ops/stablehlo.h"
#include "kernels/complex_ops.h"
#include "kernels/random_bits.h"

namespace kiln::cpu {
namespace {

template <class P>
void complexUnary(int32_t code, const P* in, P* out) {
  const std::complex<P> z(in[0], in[1]);
  const OpCode op = static_cast<OpCode>(code);
  if (op == ops::Abs) {
    out[0] = kernels::complexAbs(z);
    return;
  }
  const std::complex<P> r = kernels::complexUnary(op, z);
  out[0] = r.real();
  out[1] = r.imag();
}

template <class P>
void complexBinary(int32_t code, const P* a, const P* b, P* out) {
  const std::complex<P> r =
      kernels::complexBinary(static_cast<OpCode>(code), std::complex<P>(a[0], a[1]), std::complex<P>(b[0], b[1]));
  out[0] = r.real();
  out[1] = r.imag();
}

}  // namespace

extern "C" void kilnComplexBinaryC64(int32_t code, const float* a, const float* b, float* out) {
  complexBinary(code, a, b, out);
}
extern "C" void kilnComplexBinaryC128(int32_t code, const double* a, const double* b, double* out) {
  complexBinary(code, a, b, out);
}

extern "C" void kilnComplexUnaryC64(int32_t code, const float* in, float* out) { complexUnary(code, in, out); }
extern "C" void kilnComplexUnaryC128(int32_t code, const double* in, double* out) { complexUnary(code, in, out); }

extern "C" void kilnSortLine(void* const* buffers, int64_t line, SortLess less, int64_t operands, int64_t length,
                             int64_t stride, const int64_t* elementBytes) {
  // Line `line` counts the lines in row-major order of the other dimensions: `stride`
  // consecutive lines start in each block of length * stride elements.
  const int64_t base = line / stride * length * stride + line % stride;
  std::vector<int64_t> perm(static_cast<size_t>(length));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    return less(buffers, base + a * stride, base + b * stride) != 0;
  });
  for (int64_t k = 0; k < operands; ++k) {
    const size_t bytes = static_cast<size_t>(elementBytes[k]);
    const auto* in = static_cast<const uint8_t*>(buffers[k]);
    auto* out = static_cast<uint8_t*>(buffers[operands + k]);
    for (int64_t j = 0; j < length; ++j)
      std::memcpy(out + static_cast<size_t>(base + j * stride) * bytes,
                  in + static_cast<size_t>(base + perm[static_cast<size_t>(j)] * stride) * bytes, bytes);
  }
}

extern "C" void kilnRngBits(void* const* buffers, int64_t begin, int64_t end, const int64_t* layout) {
  kernels::RngBitsLayout l;
  l.algorithm = static_cast<RngAlgorithm>(layout[0]);
  l.stateWidth = static_cast<int>(layout[1]);
  l.stateElements = layout[2];
  l.outWidth = static_cast<int>(layout[3]);
  l.outShape.assign(layout + 5, layout + 5 + layout[4]);
  const std::vector<uint64_t> words = kernels::rngStateWords(l, buffers[0]);
  if (begin == 0) kernels::rngWriteState(l, kernels::rngAdvance(l, words), buffers[1]);
  kernels::rngDraw(l, words, buffers[2], begin, std::min(end, kernels::rngDraws(l)));
}

// libgcc's complex multiply and divide, which LLVM calls for complex arithmetic: a plugin
// loaded privately (as frameworks dlopen plugins) does not show libgcc_s to the process's
// symbol search, so kernels reach them through this table too.
extern "C" void __mulsc3();
extern "C" void __muldc3();
extern "C" void __divsc3();
extern "C" void __divdc3();

std::span<const RuntimeFunction> runtimeFunctions() {
  static const RuntimeFunction functions[] = {
      {"__mulsc3", reinterpret_cast<void*>(&__mulsc3)},
      {"__muldc3", reinterpret_cast<void*>(&__muldc3)},
      {"__divsc3", reinterpret_cast<void*>(&__divsc3)},
      {"__divdc3", reinterpret_cast<void*>(&__divdc3)},
      {"kilnSortLine", reinterpret_cast<void*>(&kilnSortLine)},
      {"kilnComplexUnaryC64", reinterpret_cast<void*>(&kilnComplexUnaryC64)},
      {"kilnComplexUnaryC128", reinterpret_cast<void*>(&kilnComplexUnaryC128)},
      {"kilnComplexBinaryC64", reinterpret_cast<void*>(&kilnComplexBinaryC64)},
      {"kilnComplexBinaryC128", reinterpret_cast<void*>(&kilnComplexBinaryC128)},
      {"kilnRngBits", reinterpret_cast<void*>(&kilnRngBits)},
  };
  return functions;
}

}  // namespace kiln::cpu
