// Convolutions on oneDNN (onednn_convolution.h).
#include "backends/cpu/onednn_convolution.h"

#include <map>
#include <mutex>

#include "backends/cpu/onednn.h"
#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/threads.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln::cpu {
namespace {

using dnnl::memory;
using onednn::engine;

// Below this many output positions (batch x height x width) an f32 convolution stays
// with im2col and GEMM: oneDNN lays the kernel out its own way on every call, which
// small images do not pay back. Measured at one thread on an AVX-512 Xeon (`kiln bench`,
// KILN_ONEDNN=off against on): ResNet-50's 3x3 layers at batch 1 ran 1.6-1.7x faster on
// oneDNN from 14x14 (196 positions) up, and as fast either way at 7x7 (49); its 1x1
// layers and 7x7 stem 1.2-2.5x faster. bf16 ones run on oneDNN at every size (2.6-13x).
constexpr int64_t kMinF32Positions = 196;

// What oneDNN needs to run one convolution signature, made once.
struct ConvolutionPrimitive {
  dnnl::convolution_forward conv;
  memory::desc src, userWeights, weights, dst, scratchpad;
  std::optional<dnnl::reorder> toWeights;  // the kernel from [h, w, in, out] to oneDNN's layout
  std::string impl;                        // the kernel oneDNN chose, e.g. brgconv:avx512_core
};

// Why the layout, the types or the window keep `op` from oneDNN (nothing: they do not).
std::optional<std::string> shapeDeclines(const Op& op) {
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  if (dn.inputSpatial.size() != 2) return "not 2-D";
  if (dn.inputBatch != 0 || dn.inputSpatial != Dims{1, 2} || dn.inputFeature != 3 || dn.outputBatch != 0 ||
      dn.outputSpatial != Dims{1, 2} || dn.outputFeature != 3)
    return "data not in [batch, height, width, feature]";
  if (dn.kernelSpatial != Dims{0, 1} || dn.kernelInputFeature != 2 || dn.kernelOutputFeature != 3)
    return "kernel not in [height, width, in, out]";
  if (op.attr("feature_group_count").asInt() != 1 || op.attr("batch_group_count").asInt() != 1) return "grouped";
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
  const Shape& ls = op.operand(0)->type().shape();  // [n, h, w, c]
  const Shape& rs = op.operand(1)->type().shape();  // [kh, kw, c, o]
  const Shape& os = op.result()->type().shape();    // [n, oh, ow, o]
  const Window w = Window::ofConvolution(op, 2);
  const memory::data_type in = onednn::dataType(op.operand(0)->type().dtype()), out = onednn::dataType(op.result()->type().dtype());
  auto p = std::make_shared<ConvolutionPrimitive>();
  p->src = memory::desc(dimsOf(ls, {0, 3, 1, 2}), in, memory::format_tag::nhwc);
  p->userWeights = memory::desc(dimsOf(rs, {3, 2, 0, 1}), in, memory::format_tag::hwio);
  p->dst = memory::desc(dimsOf(os, {0, 3, 1, 2}), out, memory::format_tag::nhwc);
  const memory::desc anyWeights(dimsOf(rs, {3, 2, 0, 1}), in, memory::format_tag::any);
  const memory::dims strides{w.strides[0], w.strides[1]};
  const memory::dims dilations{w.windowDilations[0] - 1, w.windowDilations[1] - 1};
  const memory::dims low{w.padding[0].first, w.padding[1].first}, high{w.padding[0].second, w.padding[1].second};
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // per calling thread: executions run side by side
  try {
    const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                               p->src, anyWeights, p->dst, strides, dilations, low, high);
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, engine());
    p->impl = pd.impl_info_str();
    if (p->impl.starts_with("ref")) return nullptr;
    p->conv = dnnl::convolution_forward(pd);
    p->weights = pd.weights_desc();
    p->scratchpad = pd.scratchpad_desc();
    if (p->weights != p->userWeights)
      p->toWeights = dnnl::reorder(dnnl::reorder::primitive_desc(engine(), p->userWeights, engine(), p->weights));
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return p;
}

// The primitive of `op`'s signature (its types and window), made at its first request.
std::shared_ptr<const ConvolutionPrimitive> convolutionFor(const Op& op) {
  std::string key = op.operand(0)->type().str() + op.operand(1)->type().str() + op.result()->type().str();
  for (const char* attr : {"window_strides", "padding", "rhs_dilation"})
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

void oneDnnConvolutionInto(const Op& op, const void* lhs, const void* rhs, void* out) {
  const std::shared_ptr<const ConvolutionPrimitive> p = convolutionFor(op);
  if (!p) throw Error(ErrorKind::Internal, "internal error: oneDNN has no primitive for " + op.result()->type().str());
  thread_local onednn::ThreadBuffer weightsBuffer, scratchBuffer;
  omp_set_num_threads(threadCount());
  dnnl::stream stream(engine());
  memory src(p->src, engine(), const_cast<void*>(lhs)), dst(p->dst, engine(), out);
  memory weights(p->userWeights, engine(), const_cast<void*>(rhs));
  if (p->toWeights) {
    memory laidOut(p->weights, engine(), weightsBuffer.get(p->weights.get_size()));
    p->toWeights->execute(stream, weights, laidOut);
    weights = laidOut;
  }
  memory scratch(p->scratchpad, engine(), scratchBuffer.get(std::max<size_t>(p->scratchpad.get_size(), 1)));
  p->conv.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst},
                           {DNNL_ARG_SCRATCHPAD, scratch}});
  stream.wait();
}

}  // namespace kiln::cpu
