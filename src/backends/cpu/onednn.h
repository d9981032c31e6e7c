// What the cpu backend's two oneDNN files (onednn_convolution.cc, onednn_gemm.cc) share:
// oneDNN's C++ API (this header is the only one that includes it), its CPU engine, the
// OpenMP thread count it runs with, and the scratch memory of each calling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>

#include "ir/dtype.h"

// libgomp's, which Debian's oneDNN runs its threads on: how many threads the calling
// thread's next oneDNN calls use.
extern "C" void omp_set_num_threads(int);

namespace kiln::cpu::onednn {

dnnl::engine& engine();

// oneDNN's type for kiln's f32 and bf16.
inline dnnl::memory::data_type dataType(DType t) {
  return t == DType::BF16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

// A buffer of the calling thread's, grown to at least `bytes` (64-byte aligned).
class ThreadBuffer {
 public:
  void* get(size_t bytes);

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t[], Free> bytes_;
  size_t size_ = 0;
};

}  // namespace kiln::cpu::onednn
