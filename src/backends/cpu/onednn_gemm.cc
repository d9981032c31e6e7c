// GEMM pieces on oneDNN's matmul (onednn_gemm.h), and what both oneDNN files share
// (onednn.h).
#include "backends/cpu/onednn_gemm.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

#include "backends/cpu/onednn.h"
#include "support/error.h"

namespace kiln::cpu {

namespace onednn {

dnnl::engine& engine() {
  static dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
  return cpu;
}

void ThreadBuffer::Free::operator()(uint8_t* p) const { std::free(p); }

void* ThreadBuffer::get(size_t bytes) {
  if (bytes > size_) {
    bytes_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
    if (!bytes_) throw Error(ErrorKind::Runtime, "out of memory: a buffer of " + std::to_string(bytes) + " bytes for oneDNN");
    size_ = bytes;
  }
  return bytes_.get();
}

}  // namespace onednn

namespace {

using dnnl::memory;
using onednn::engine;

struct MatmulPrimitive {
  dnnl::matmul matmul;
  memory::desc a, b, c, scratchpad;
};

// Everything a primitive depends on: the types, the transposes, the sizes and strides.
using Key = std::tuple<DType, DType, bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;

std::shared_ptr<const MatmulPrimitive> makeMatmul(const Key& key) {
  const auto [in, out, ta, tb, m, n, k, lda, ldb, ldc] = key;
  // oneDNN plans a primitive's threads when it makes it, from the caller's OpenMP thread
  // count, and runs with that many whatever the count at run time: a piece runs on one.
  omp_set_num_threads(1);
  auto p = std::make_shared<MatmulPrimitive>();
  // A transposed operand is the same matrix read with swapped strides.
  p->a = memory::desc({m, k}, onednn::dataType(in), ta ? memory::dims{1, lda} : memory::dims{lda, 1});
  p->b = memory::desc({k, n}, onednn::dataType(in), tb ? memory::dims{1, ldb} : memory::dims{ldb, 1});
  p->c = memory::desc({m, n}, onednn::dataType(out), memory::dims{ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // per calling thread: pieces run side by side
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p->a, p->b, p->c), attr, engine());
    // Its reference code is slow. For f32 it takes what it has for AVX-512: its brgemm
    // kernels, or for pieces whose B is a strided slice its jit GEMM, 1.2-1.7x OpenBLAS's
    // speed on one thread on the pieces of BERT's, the MLPs' and im2col's products, their
    // B streamed from memory (Xeon, AVX-512). Without AVX-512, OpenBLAS (unmeasured).
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    const std::string_view impl = pd.impl_info_str();
    const bool fastF32 = avx512 && (impl.starts_with("brg") || impl.starts_with("gemm:jit"));
    if (impl.starts_with("ref") || (in == DType::F32 && !fastF32)) return nullptr;
    p->matmul = dnnl::matmul(pd);
    p->scratchpad = pd.scratchpad_desc();
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return p;
}

std::shared_ptr<const MatmulPrimitive> matmulFor(const Key& key) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const MatmulPrimitive>> made;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = made.try_emplace(key);
  if (fresh) it->second = makeMatmul(key);
  return it->second;
}

}  // namespace

bool oneDnnEnabled() {
  static const bool on = [] {
    const char* v = std::getenv("KILN_ONEDNN");
    return !(v && std::string_view(v) == "off");
  }();
  return on;
}

// f32 to f32, and bf16 to bf16 or f32: the types oneDNN's matmul is asked for.
bool typesTaken(DType in, DType out) {
  return (in == DType::F32 && out == DType::F32) || (in == DType::BF16 && (out == DType::BF16 || out == DType::F32));
}

bool oneDnnGemmTakes(DType in, DType out) {
  if (!oneDnnEnabled() || !typesTaken(in, out)) return false;
  // A shape every kernel set takes, asked once per pair of types (this runs for every
  // GEMM piece).
  auto asked = [](DType i, DType o) { return matmulFor(Key{i, o, false, false, 64, 64, 64, 64, 64, 64}) != nullptr; };
  if (in == DType::F32) {
    static const bool f32 = asked(DType::F32, DType::F32);
    return f32;
  }
  if (out == DType::BF16) {
    static const bool bf16 = asked(DType::BF16, DType::BF16);
    return bf16;
  }
  static const bool bf16ToF32 = asked(DType::BF16, DType::F32);
  return bf16ToF32;
}

bool oneDnnGemm(DType in, DType out, bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, const void* a,
                int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc) {
  // (Where oneDNN takes no piece of these types, as f32 without AVX-512, no primitive is
  // tried for each new shape.)
  if (!oneDnnGemmTakes(in, out)) return false;
  const std::shared_ptr<const MatmulPrimitive> p = matmulFor(Key{in, out, transposeA, transposeB, m, n, k, lda, ldb, ldc});
  if (!p) return false;
  omp_set_num_threads(1);
  dnnl::stream stream(engine());
  memory am(p->a, engine(), const_cast<void*>(a)), bm(p->b, engine(), const_cast<void*>(b)), cm(p->c, engine(), c);
  thread_local onednn::ThreadBuffer scratch;
  memory sm(p->scratchpad, engine(), scratch.get(std::max<size_t>(p->scratchpad.get_size(), 1)));
  p->matmul.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}, {DNNL_ARG_SCRATCHPAD, sm}});
  stream.wait();
  return true;
}

}  // namespace kiln::cpu
