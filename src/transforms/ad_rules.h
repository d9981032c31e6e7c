// The autodiff rules of the ops, one table indexed by opcode (ir/op_table.h).
//
// The structure is JAX's: every differentiable op has a jvp rule (forward mode), and the
// few linear ops those rules emit on tangents have a transpose rule. Reverse mode is
// derived rather than written: vjp takes the jvp program, keeps its primal part, and
// transposes its tangent part backwards (transforms/vjp.cc). That is one rule per
// differentiable op plus one per linear op, instead of MLX's jvp and vjp per op, and the
// two modes cannot disagree. An op's rules sit next to each other in the file of its
// family (rules/elementwise.cc, movement.cc, scatter.cc, linalg.cc, fft.cc,
// convolution.cc, reduce.cc, windows.cc, control_flow.cc).
//
// Tangents and cotangents are values of the primal's type, or null: a symbolic zero,
// which makes no work. Integer and boolean values always have zero tangents, so their
// ops need no rules. A tuple holding a float value has a tuple tangent: its elements'
// tangents, zeros where those are zero (integer elements included).
#pragma once

#include <vector>

#include "ir/builder.h"
#include "ir/op_table.h"

namespace kiln::transforms {

class JvpEmitter;

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
};
// The cotangent of each linear operand (null: zero, and ignored for the others).
using TransposeRule = std::vector<Value*> (*)(TransposeArgs&);

struct AdRules {
  JvpRule jvp = nullptr;
  TransposeRule transpose = nullptr;
};

const OpTable<AdRules>& adRules();

// The rule families, each adding its ops' entries.
void addElementwiseRules(OpTable<AdRules>& table);
void addMovementRules(OpTable<AdRules>& table);
void addLinalgRules(OpTable<AdRules>& table);
void addReduceRules(OpTable<AdRules>& table);
void addControlFlowRules(OpTable<AdRules>& table);
void addConvolutionRules(OpTable<AdRules>& table);
void addScatterRules(OpTable<AdRules>& table);
void addWindowRules(OpTable<AdRules>& table);
void addFftRules(OpTable<AdRules>& table);

// Helpers the rules share.
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
// Per dimension of a windowed op (convolution, reduce_window) of input size `in`, window
// `window`, stride, result size `out`, low padding and dilations: the (low, high)
// padding under which the same window, strided by the base dilation, maps the result's
// cotangent back onto the input (JAX's _conv_general_vjp_lhs_padding).
std::pair<int64_t, int64_t> transposedPadding(int64_t in, int64_t window, int64_t stride, int64_t out, int64_t low,
                                              int64_t baseDilation, int64_t windowDilation);
// "unsupported: <what> of <op> (line N)", kind Unsupported.
[[noreturn]] void unsupportedRule(const Op& op, const std::string& what, const std::string& detail = {});

}  // namespace kiln::transforms
