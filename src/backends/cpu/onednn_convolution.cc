// Convolutions on oneDNN (onednn_convolution.h).
#include "backends/cpu/onednn_convolution.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "backends/cpu/onednn.h"
#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/threads.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::cpu {
namespace {

using dnnl::memory;
using onednn::engine;

// Below this many output positions (batch x height x width) an f32 convolution stays
// with im2col and GEMM: oneDNN lays the kernel out its own way on every call, which
// small images do not pay back. Measured at one thread on an AVX-512 Xeon (`kiln bench`
// of one convolution, KILN_ONEDNN=off against on): ResNet-50's 3x3 layers at batch 1 ran
// 1.3-1.8x faster on oneDNN from 14x14 (196 positions) up, and as fast either way at 7x7
// (49); at batch 8, 7x7 ran 1.3x faster; the 1x1 layers 1.1-1.3x, the 7x7 stem 2.2x. bf16
// ones run on oneDNN at every size (1.4-10x).
constexpr int64_t kMinF32Positions = 196;

// One piece of a convolution: output rows [outRow, outRow + outRows) of one image, from
// its input rows [inRow, inRow + inRows) (the window's padding at either end, if any, is
// the piece's own).
struct ConvolutionPiece {
  int64_t inRow = 0, outRow = 0;
  size_t kind = 0;  // which of the primitive's piece primitives computes it
};

// What oneDNN needs to run one convolution signature, made once: a primitive per kind of
// piece (the first rows, the middle ones, the last), each run single-threaded, and the
// pieces spread over the backend's threads (threads.h), so the cores are shared with the
// backend's pool rather than fought over by OpenMP's threads, and each output element is
// computed by one piece whatever the thread count.
struct ConvolutionPrimitive {
  struct Kind {
    dnnl::convolution_forward conv;
    memory::desc src, dst, scratchpad;
  };
  std::vector<Kind> kinds;
  std::vector<ConvolutionPiece> pieces;  // of one image, in row order
  memory::desc userWeights, weights;
  std::optional<dnnl::reorder> toWeights;  // the kernel from [h, w, in, out] or [h, w, out, in] to oneDNN's
  std::string impl;                        // the kernel oneDNN chose, e.g. brgconv:avx512_core
};

// A piece computes at least this many multiply-adds (less costs more to cut than it
// saves), and an image is cut into at most kMaxPiecesPerImage pieces.
constexpr int64_t kMinPieceWork = int64_t{1} << 21;
constexpr int64_t kMaxPiecesPerImage = 8;
// ... and at least this many rows: oneDNN's kernels lose their speed on pieces of one or
// two rows (ResNet-50's 7x7x512 layer at batch 8 ran 1.1x slower than im2col in pieces of
// one row).
constexpr int64_t kMinPieceRows = 4;

// The rows of each piece of an image of `rows` output rows (the last piece may have
// fewer), each at least `least` (but the last): of the even piece counts up to
// kMaxPiecesPerImage, the one whose pieces cover the rows with the fewest rows to spare,
// so that two or four threads get equal shares (14 rows: two pieces of 7, where pieces
// of 4 gave one thread 8 rows and the other 6); ties go to more pieces. Where two
// pieces would be too short, pieces of `least`.
int64_t piecesRows(int64_t rows, int64_t least) {
  int64_t best = std::min(rows, least), spare = INT64_MAX;
  for (int64_t n = 2; n <= kMaxPiecesPerImage; n += 2) {
    const int64_t each = (rows + n - 1) / n;
    if (each < least) break;
    if (each * n - rows <= spare) {
      best = each;
      spare = each * n - rows;
    }
  }
  return best;
}

// Why the layout, the types or the window keep `op` from oneDNN (nothing: they do not).
std::optional<std::string> shapeDeclines(const Op& op) {
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  if (dn.inputSpatial.size() != 2) return "not 2-D";
  if (dn.inputBatch != 0 || dn.inputSpatial != Dims{1, 2} || dn.inputFeature != 3 || dn.outputBatch != 0 ||
      dn.outputSpatial != Dims{1, 2} || dn.outputFeature != 3)
    return "data not in [batch, height, width, feature]";
  // [h, w, out, in]: the kernel of an input gradient, as JAX differentiates a convolution.
  if (dn.kernelSpatial != Dims{0, 1} || dn.kernelInputFeature + dn.kernelOutputFeature != 5)
    return "kernel not in [height, width, in, out] or [height, width, out, in]";
  if (op.attr("batch_group_count").asInt() != 1) return "batch-grouped";
  const Window w = Window::ofConvolution(op, 2);
  for (size_t d = 0; d < 2; ++d) {
    if (w.baseDilations[d] != 1) return "lhs-dilated (a transposed convolution)";
    if (w.reversal[d]) return "a reversed window";
    if (w.padding[d].first < 0 || w.padding[d].second < 0) return "negative padding";
  }
  const DType l = op.operand(0)->type().dtype(), r = op.operand(1)->type().dtype(), t = op.result()->type().dtype();
  const bool f32 = l == DType::F32 && r == DType::F32 && t == DType::F32;
  const bool bf16 = l == DType::BF16 && r == DType::BF16 && (t == DType::BF16 || t == DType::F32);
  if (!f32 && !bf16) return "its element types (oneDNN takes f32, or bf16 with an f32 or bf16 result)";
  if (op.result()->type().numElements() == 0 || op.operand(0)->type().numElements() == 0) return "empty";
  if (f32 && op.result()->type().numElements() / op.result()->type().shape()[3] < kMinF32Positions)
    return "few output positions for f32 (im2col and GEMM do better)";
  // (The digits CNN's first layer, 64x8x8x1 to 16 features: 223 us on oneDNN against 111
  // with im2col, at one thread on an AVX-512 Xeon; from 2 input features on, even or better.)
  if (f32 && op.operand(0)->type().shape()[3] == 1) return "one input feature for f32 (im2col and GEMM do better)";
  return std::nullopt;
}

memory::dims dimsOf(const Shape& s, std::initializer_list<int> order) {
  memory::dims d;
  for (int i : order) d.push_back(s[static_cast<size_t>(i)]);
  return d;
}

// The primitive for `op`, or null when oneDNN has no fast kernel for it (only its
// reference code, or none at all).
std::shared_ptr<const ConvolutionPrimitive> makeConvolution(const Op& op) {
  // oneDNN plans a primitive's threads when it makes it, from the caller's OpenMP thread
  // count, and then runs with that many whatever the count at run time: one per piece.
  omp_set_num_threads(1);
  const Shape& ls = op.operand(0)->type().shape();  // [n, h, w, c]
  const Shape& rs = op.operand(1)->type().shape();  // [kh, kw, c, o] or [kh, kw, o, c]
  const Shape& os = op.result()->type().shape();    // [n, oh, ow, o]
  const Window w = Window::ofConvolution(op, 2);
  const memory::data_type in = onednn::dataType(op.operand(0)->type().dtype());
  const memory::data_type out = onednn::dataType(op.result()->type().dtype());
  const memory::dims strides{w.strides[0], w.strides[1]};
  const memory::dims dilations{w.windowDilations[0] - 1, w.windowDilations[1] - 1};
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  const auto ko = static_cast<int>(dn.kernelOutputFeature), ki = static_cast<int>(dn.kernelInputFeature);
  auto p = std::make_shared<ConvolutionPrimitive>();
  // The kernel as it is stored, read through its strides (oneDNN orders it out, in, h, w;
  // grouped, group, out, in, h, w: a group's outputs are consecutive output features).
  const memory::dims rowMajor{rs[1] * rs[2] * rs[3], rs[2] * rs[3], rs[3], 1};
  const int64_t groups = op.attr("feature_group_count").asInt();
  memory::dims weightDims = dimsOf(rs, {ko, ki, 0, 1});
  memory::dims weightStrides{rowMajor[ko], rowMajor[ki], rowMajor[0], rowMajor[1]};
  if (groups > 1) {
    weightDims[0] /= groups;
    weightDims.insert(weightDims.begin(), groups);
    weightStrides.insert(weightStrides.begin(), weightDims[1] * rowMajor[ko]);
  }
  p->userWeights = memory::desc(weightDims, in, weightStrides);

  // Pieces of output rows, by the shape alone.
  const int64_t outRows = os[1], inRows = ls[1], stride = w.strides[0];
  const int64_t window = (rs[0] - 1) * w.windowDilations[0] + 1;
  const int64_t rowWork = std::max<int64_t>(1, os[2] * os[3] * rs[0] * rs[1] * rs[static_cast<size_t>(ki)]);
  const int64_t rowsPerPiece = piecesRows(outRows, std::max(std::min(outRows, kMinPieceRows),
                                                             std::min(outRows, (kMinPieceWork + rowWork - 1) / rowWork)));
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, size_t> kinds;  // in rows, pads, out rows
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // per calling thread: pieces run side by side
  try {
    for (int64_t first = 0; first < outRows; first += rowsPerPiece) {
      const int64_t last = std::min(outRows, first + rowsPerPiece);
      const int64_t top = first * stride - w.padding[0].first, end = (last - 1) * stride - w.padding[0].first + window;
      const int64_t from = std::max<int64_t>(0, top), to = std::min(inRows, end);
      const auto shape = std::make_tuple(to - from, from - top, end - to, last - first);
      auto [it, fresh] = kinds.try_emplace(shape, p->kinds.size());
      p->pieces.push_back({from, first, it->second});
      if (!fresh) continue;
      ConvolutionPrimitive::Kind k;
      k.src = memory::desc({1, ls[3], to - from, ls[2]}, in, memory::format_tag::nhwc);
      k.dst = memory::desc({1, os[3], last - first, os[2]}, out, memory::format_tag::nhwc);
      // The first piece chooses the kernel's layout; every other piece must take the same.
      const memory::desc weights =
          p->kinds.empty() ? memory::desc(weightDims, in, memory::format_tag::any) : p->weights;
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, k.src, weights, k.dst, strides,
          dilations, memory::dims{from - top, w.padding[1].first}, memory::dims{end - to, w.padding[1].second});
      const dnnl::convolution_forward::primitive_desc pd(desc, attr, engine());
      const std::string impl = pd.impl_info_str();
      if (impl.starts_with("ref")) return nullptr;
      if (p->kinds.empty()) {
        p->impl = impl;
        p->weights = pd.weights_desc();
      }
      k.conv = dnnl::convolution_forward(pd);
      k.scratchpad = pd.scratchpad_desc();
      p->kinds.push_back(std::move(k));
    }
    if (p->weights != p->userWeights)
      p->toWeights = dnnl::reorder(dnnl::reorder::primitive_desc(engine(), p->userWeights, engine(), p->weights));
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return p;
}

// The primitive of `op`'s signature (its types, window and kernel layout), made at its
// first request.
std::shared_ptr<const ConvolutionPrimitive> convolutionFor(const Op& op) {
  std::string key = op.operand(0)->type().str() + op.operand(1)->type().str() + op.result()->type().str();
  for (const char* attr : {"window_strides", "padding", "rhs_dilation", "dimension_numbers", "feature_group_count"})
    if (Attribute a = op.attr(attr)) key += std::string(attr) + std::to_string(a.hash());
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const ConvolutionPrimitive>> made;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = made.try_emplace(key);
  if (fresh) it->second = makeConvolution(op);
  return it->second;
}

}  // namespace

std::optional<std::string> oneDnnConvolutionDeclines(const Op& op) {
  if (!oneDnnEnabled()) return "KILN_ONEDNN=off";
  if (!op.is(ops::Convolution)) return "not a convolution";
  if (auto why = shapeDeclines(op)) return why;
  if (!convolutionFor(op)) return "oneDNN has no fast kernel for it on this CPU";
  return std::nullopt;
}

std::string oneDnnConvolutionPath(const Op& op) {
  const std::shared_ptr<const ConvolutionPrimitive> p = convolutionFor(op);
  return p ? "oneDNN " + p->impl + (p->toWeights ? " (kernel laid out for it)" : "") : "oneDNN: none";
}

bool oneDnnConvolutionInto(const Op& op, const void* lhs, const void* rhs, void* out) {
  if (!oneDnnEnabled() || !op.is(ops::Convolution) || shapeDeclines(op)) return false;
  const std::shared_ptr<const ConvolutionPrimitive> p = convolutionFor(op);
  if (!p) return false;
  // The kernel laid out once per call, on the calling thread, for every piece.
  thread_local onednn::ThreadBuffer weightsBuffer;
  omp_set_num_threads(1);
  const void* weights = rhs;
  if (p->toWeights) {
    dnnl::stream stream(engine());
    memory user(p->userWeights, engine(), const_cast<void*>(rhs));
    memory laidOut(p->weights, engine(), weightsBuffer.get(p->weights.get_size()));
    p->toWeights->execute(stream, user, laidOut);
    stream.wait();
    weights = laidOut.get_data_handle();
  }
  // Then each image's pieces, side by side.
  const Shape& ls = op.operand(0)->type().shape();
  const Shape& os = op.result()->type().shape();
  const int64_t inRowBytes = ls[2] * ls[3] * storageBytes(op.operand(0)->type().dtype());
  const int64_t outRowBytes = os[2] * os[3] * storageBytes(op.result()->type().dtype());
  const int64_t perImage = static_cast<int64_t>(p->pieces.size());
  runParts(os[0] * perImage, [&](int64_t i) {
    const int64_t image = i / perImage;
    const ConvolutionPiece& piece = p->pieces[static_cast<size_t>(i % perImage)];
    const ConvolutionPrimitive::Kind& k = p->kinds[piece.kind];
    thread_local onednn::ThreadBuffer scratchBuffer;
    omp_set_num_threads(1);
    dnnl::stream stream(engine());
    const auto* src = static_cast<const uint8_t*>(lhs) + (image * ls[1] + piece.inRow) * inRowBytes;
    auto* dst = static_cast<uint8_t*>(out) + (image * os[1] + piece.outRow) * outRowBytes;
    memory srcm(k.src, engine(), const_cast<uint8_t*>(src)), dstm(k.dst, engine(), dst);
    memory wm(p->weights, engine(), const_cast<void*>(weights));
    memory scratch(k.scratchpad, engine(), scratchBuffer.get(std::max<size_t>(k.scratchpad.get_size(), 1)));
    k.conv.execute(stream, {{DNNL_ARG_SRC, srcm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dstm},
                            {DNNL_ARG_SCRATCHPAD, scratch}});
    stream.wait();
  });
  return true;
}

}  // namespace kiln::cpu
