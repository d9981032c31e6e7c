// The transformation rules of the ops, one table indexed by opcode (ir/op_table.h):
// autodiff (jvp, transpose, split) and batching (vmap).
//
// The structure is JAX's: every differentiable op has a jvp rule (forward mode), and the
// few linear ops those rules emit on tangents have a transpose rule. Reverse mode is
// derived rather than written: vjp takes the jvp program, keeps its primal part, and
// transposes its tangent part backwards (transforms/vjp.cc). That is one rule per
// differentiable op plus one per linear op, instead of MLX's jvp and vjp per op, and the
// two modes cannot disagree. An op's rules sit next to each other in the file of its
// family (rules/elementwise.cc, movement.cc, scatter.cc, linalg.cc, lapack_calls.cc, fft.cc,
// convolution.cc, reduce.cc, windows.cc, control_flow.cc, collectives.cc), and kiln's
// autodiff constructs have theirs (custom_derivatives.cc: custom_jvp and custom_vjp;
// checkpoint.cc; stop_gradient, a composite, sits with the elementwise ops). The ops
// that batch only slice by slice (random numbers, opaque custom calls) have a loop
// (sequential.cc).
//
// Tangents and cotangents are values of the primal's type, or null: a symbolic zero,
// which makes no work. Integer and boolean values always have zero tangents, so their
// ops need no rules. A tuple holding a float value has a tuple tangent: its elements'
// tangents, zeros where those are zero (integer elements included).
//
// Batching (transforms/vmap.cc) keeps one convention: a batched value has the batch
// dimension in front. A batching rule sees which operands are batched and returns the
// op's results batched, so that rules never track where the batch dimension went.
#pragma once

#include <vector>

#include "ir/builder.h"
#include "ir/op_table.h"

namespace kiln::transforms {

class BatchEmitter;
class JvpEmitter;
class Transposer;

// What a jvp rule sees: the original op (for its attributes and regions), its operands
// and results as computed in the new program, and the operands' tangents.
struct JvpArgs {
  Builder& b;
  const Op& op;
  std::vector<Value*> x;  // primal operands
  std::vector<Value*> y;  // primal results (a rule may compute them anew: loops)
  std::vector<Value*> t;  // operand tangents (null: zero)
  JvpEmitter& emitter;    // for the bodies of ops with regions (transforms/jvp_emitter.h)
};
// The tangent of each result (null: zero). Emits only ops that are linear in the
// tangents, each with a transpose rule.
using JvpRule = std::vector<Value*> (*)(JvpArgs&);

// What a transpose rule sees: a linear op of a jvp program, which of its operands are
// linear (tangents), the others as computed in the new program (null where linear), and
// the cotangent of each result (null: zero; at least one is not).
struct TransposeArgs {
  Builder& b;
  const Op& op;
  std::vector<Value*> x;
  std::vector<bool> linear;
  std::vector<Value*> ct;
  Transposer& transposer;  // for loop bodies and residuals (transforms/transposer.h)
};
// The cotangent of each linear operand (null: zero, and ignored for the others).
using TransposeRule = std::vector<Value*> (*)(TransposeArgs&);

// Reverse mode of an op whose results are partly primal (the loops jvp builds carry
// primals and tangents together): in vjp's forward phase the split rule emits the primal
// part, maps the primal results (Transposer::mapPrimal), keeps what the transpose rule
// needs (Transposer::setResiduals), and says which results are linear.
struct SplitArgs {
  Builder& b;
  const Op& op;
  std::vector<bool> linear;  // of the operands
  Transposer& transposer;
};
using SplitRule = std::vector<bool> (*)(SplitArgs&);

// What a batching rule sees: the op, its operands in the new program (a batched one
// with the batch dimension in front), which are batched (at least one), and the size.
struct BatchArgs {
  Builder& b;
  const Op& op;
  std::vector<Value*> x;
  std::vector<bool> batched;
  int64_t size;
  BatchEmitter& emitter;  // for the bodies of ops with regions (transforms/batch_emitter.h)
};
// The op's results, each batched (batch dimension in front).
using BatchRule = std::vector<Value*> (*)(BatchArgs&);

struct OpRules {
  JvpRule jvp = nullptr;
  TransposeRule transpose = nullptr;
  SplitRule split = nullptr;
  BatchRule batch = nullptr;
  // The batching rule handles batched values its regions capture (loops, conditionals).
  bool batchesRegions = false;
  // True for the ops autodiff takes through their registry decomposition although the op
  // has a jvp rule (a reduce_window whose body the rule does not know); when the
  // decomposition declines too, the jvp rule says what is unsupported.
  bool (*differentiatesThroughDecomposition)(const Op&) = nullptr;
};

const OpTable<OpRules>& opRules();

// The rule families, each adding its ops' entries.
void addElementwiseRules(OpTable<OpRules>& table);
void addMovementRules(OpTable<OpRules>& table);
void addLinalgRules(OpTable<OpRules>& table);
void addReduceRules(OpTable<OpRules>& table);
void addControlFlowRules(OpTable<OpRules>& table);
void addConvolutionRules(OpTable<OpRules>& table);
void addScatterRules(OpTable<OpRules>& table);
void addWindowRules(OpTable<OpRules>& table);
void addFftRules(OpTable<OpRules>& table);
void addCollectiveRules(OpTable<OpRules>& table);
void addCustomDerivativeRules(OpTable<OpRules>& table);
void addCheckpointRules(OpTable<OpRules>& table);
void addSequentialRules(OpTable<OpRules>& table);
void addLapackCallRules(OpTable<OpRules>& table);

// Helpers the rules share.
// The values an op's regions use from outside them (StableHLO regions may capture).
std::vector<Value*> capturedValues(const Op& op);
// Whether values of this type have tangents: floating-point and complex tensors, and
// tuples holding one.
bool isDifferentiable(const Type& type);
// `a + b` where either may be a symbolic zero (tuples: element by element).
Value* addTangents(Builder& b, Value* a, Value* c);
// A zero of `type` (tuples: of each element).
Value* zeros(Builder& b, const Type& type);
// `t`, or zeros of `like`'s type when `t` is a symbolic zero.
Value* orZeros(Builder& b, Value* t, Value* like);
// The complex conjugate of x, as complex(real(x), -imag(x)) (ops with transposes); x
// itself when it is real.
Value* conjugate(Builder& b, Value* x);
// How many leading operands of `op` carry data: the rest are start indices, gather
// indices or the roots of a collective_broadcast's dynamic root.
size_t dataOperands(const Op& op);
// Per dimension of a windowed op (convolution, reduce_window) of input size `in`, window
// `window`, stride, result size `out`, low padding and dilations: the (low, high)
// padding under which the same window, strided by the base dilation, maps the result's
// cotangent back onto the input (JAX's _conv_general_vjp_lhs_padding).
std::pair<int64_t, int64_t> transposedPadding(int64_t in, int64_t window, int64_t stride, int64_t out, int64_t low,
                                              int64_t baseDilation, int64_t windowDilation);
// For gathers and scatters: the largest start each component of `indices`' index vectors
// may take so that a window of `window` (per operand dimension) fits in `operand`
// (components address `operandDims`), broadcast to the shape of `indices`.
Value* largestStarts(Builder& b, const Type& indices, int64_t indexVectorDim, const Dims& operandDims,
                     const Shape& operand, const Dims& window);
// `op` again on `operands` with `attrs` (its regions copied): the results of the same op
// on other values, for the rules that rebuild an op (`given`: result types, for the ops
// whose result type is a parameter).
std::vector<Value*> rebuilt(Builder& b, const Op& op, const std::vector<Value*>& operands, NamedAttrList attrs,
                            const TypeList& given = {});
// `x` with a batch dimension of `size` in front: itself when batched, else broadcast (a
// tuple: each element).
Value* batchedValue(Builder& b, Value* x, bool batched, int64_t size);
// A batching rule: every operand batched (shared ones broadcast) and the op rebuilt on
// them, for ops that take leading batch dimensions (cholesky, triangular_solve) or pass
// values through whole (tuple, optimization_barrier).
std::vector<Value*> everyOperandBatched(BatchArgs& a);
// `dims` shifted past the batch dimension, with it (0) in front when `withBatch`.
Dims pastBatch(const Dims& dims, bool withBatch = false);
// `shape` with the batch dimension in front.
Shape batchedShape(int64_t size, const Shape& shape);
// For the rules of ops with regions (control flow, checkpoint):
// Emits `region` (arguments `args`: its primals, then the tangents of the arguments at
// `argTangents`) with tangents through `c`, by an emitter nested in `parent`; yields its
// primals, then the tangents of the yielded values at `outTangents` (zeros where zero).
std::vector<Value*> emitBody(JvpEmitter& parent, Builder& c, const Region& region, const std::vector<Value*>& args,
                             const std::vector<size_t>& argTangents, const std::vector<size_t>& outTangents);
// The result tangents (null where not differentiable) from the extra results of the
// rebuilt op, whose first `n` results replace the primals (JvpArgs::y).
std::vector<Value*> splitResults(JvpArgs& a, const std::vector<Value*>& results, const std::vector<size_t>& withTangent);
// Emits `region` batched (its arguments `args`, batched where `batched`) through `c`;
// yields its values, each batched where `want` says (a shared one broadcast).
std::vector<Value*> batchBody(BatchEmitter& parent, Builder& c, const Region& region, const std::vector<Value*>& args,
                              const std::vector<bool>& batched, const std::vector<bool>& want);
// "unsupported: <what> of <op> (line N)", kind Unsupported.
[[noreturn]] void unsupportedRule(const Op& op, const std::string& what, const std::string& detail = {});

}  // namespace kiln::transforms
