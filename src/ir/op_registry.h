// The op registry: what every opcode *is*, written once (DESIGN §3, STYLE §2.1).
// The parser, printer, verifier, interpreter, autodiff and codegen read these facts
// instead of repeating them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ir/attr_schema.h"
#include "ir/attribute.h"
#include "ir/opcode.h"

namespace kiln {

enum class OpCategory : uint8_t {
  ElementwiseUnary,
  ElementwiseBinary,
  ElementwiseOther,  // select, clamp, compare-like ops with extra structure
  Constant,
  DataMovement,  // broadcast, reshape, transpose, slice, concatenate, pad, gather, ...
  Reduction,     // reduce, reduce_window, select_and_scatter, scatter, sort, map
  Linalg,        // dot_general, convolution, fft, triangular_solve, cholesky
  ControlFlow,   // while, if, case, call, return
  Collective,    // all_reduce, all_gather, ..., replica_id, partition_id
  Communication, // send, recv, infeed, outfeed, after_all
  Random,        // rng, rng_bit_generator
  Tuple,         // tuple, get_tuple_element
  Quantization,  // uniform_quantize, uniform_dequantize
  Normalization, // batch_norm_*
  Misc,          // custom_call, composite, optimization_barrier, get_dimension_size
  Chlo,          // client ops kiln decomposes into StableHLO
  Composite,     // kiln's own ops defined by a decomposition (ir/composite_ops.h)
  Check,         // the check.* test ops
  Interpreter,   // interpreter.* test harness ops
  Fusion,        // kiln.fusion: a group of ops the compiler runs as one kernel
};
const char* categoryName(OpCategory c);

// Traits, as bit flags.
enum OpTrait : uint32_t {
  kNoTraits = 0,
  kCommutative = 1u << 0,
  kSideEffect = 1u << 1,   // never removed or merged (DCE/CSE keep it)
  kTerminator = 1u << 2,   // ends a region
  kElementwise = 1u << 4,  // result[i] depends only on operands[i]
  kIsolated = 1u << 5,     // regions may not use values from outside (the verifier checks)
  kExpensive = 1u << 6,    // costs many times a load per element: never recomputed per reader
  kBroadcasting = 1u << 7, // operands broadcast against each other: numpy's rule, or the
                           // lower-rank one along broadcast_dimensions (chlo.broadcast_*)
  // Executors may round its floating-point results each their own way: a function that
  // is not correctly rounded (exp, sine, atan2, ...) or a sum in an order the executor
  // picks (dot, convolution). Differential tests allow for it (roundsFreely below).
  kRoundsFreely = 1u << 8,
  // Each result element is an operand's element, or its negation or absolute value: in
  // the operands' element type it is exact, and a kernel need not round it again.
  kKeepsElements = 1u << 9,
};

// The element types an elementwise op takes (the classes of the spec's Inputs tables).
enum class ElementClass : uint8_t {
  Any,                   // add, multiply, maximum, ...
  IntOrBool,             // and, or, xor, not
  Int,                   // shifts, popcnt, count_leading_zeros
  Float,                 // ceil, floor, round_*, is_finite, reduce_precision, erf, ...
  FloatOrComplex,        // exponential, log, sine, ... atan2
  Numeric,               // integer, floating-point or complex: subtract, divide, negate
  SignedFloatOrComplex,  // abs, sign
};
bool acceptsElement(ElementClass c, DType t);
const char* describe(ElementClass c);  // "floating-point or complex"

// How fusion treats an op: fused into loops as elementwise work or an index map,
// the root of an input fusion (reductions), the head of a dot epilogue, or opaque.
enum class FusionRole : uint8_t { Opaque, Loop, Reduce, Dot };

// The identity element of a binary op used as a reducer: reducing with it from this
// value changes nothing (exactly, for every input: -0.0 for float addition).
enum class Identity : uint8_t { None, Zero, One, Lowest, Highest, AllOnes };

// What kind of value an attribute holds: the schema the parser normalizes to, the
// printer prints from and the verifier checks.
enum class AttrKind : uint8_t {
  Int,          // integer of AttrSpec::dtype (i64, i32, ui64, ...)
  Float,        // float of AttrSpec::dtype (epsilon: f32, tolerance: f64)
  Bool,
  Unit,         // present or absent (use_global_device_ids)
  I64Array,     // array<i64: ...>
  BoolArray,    // array<i1: ...>
  Enum,         // #stablehlo<comparison_direction LT>; AttrSpec::type names the enum
  EnumArray,    // [#stablehlo<precision DEFAULT>, ...]
  Dense,        // dense<...> : tensor<...> of any element type
  DenseI64,     // dense<...> : tensor<...xi64> (replica_groups, padding)
  String,
  Symbol,       // @callee
  SymbolArray,  // [@a, @b]
  Record,       // #stablehlo.gather<...>; AttrSpec::type names the record
  RecordArray,
  Any,          // anything (backend_config, composite_attributes, programs, ...)
};

struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  std::string_view type = {};  // enum or record name: "stablehlo.comparison_direction"
  DType dtype = DType::I64;    // Int and Float attributes
  bool required = false;
  Attribute defaultValue_ = {};  // what an absent attribute means; None if nothing
  const Attribute& defaultValue() const { return defaultValue_; }
};

// Count of operands/results/regions: [min, max], max -1 for unbounded.
struct Arity {
  int min = 0;
  int max = 0;
  bool variadic() const { return max < 0; }
  bool allows(size_t n) const { return static_cast<int>(n) >= min && (max < 0 || static_cast<int>(n) <= max); }
};

class Builder;
class Op;
class Value;
// An executable decomposition (a registry decomposition, docs/ops.md): builds, with `b`
// (placed before `op`), StableHLO ops that compute what `op` computes and returns the
// replacements of its results; returns nothing (and builds nothing) where it does not
// apply (an element type it does not cover), so the op stays.
using DecomposeFn = std::vector<Value*> (*)(Builder& b, const Op& op);

struct OpInfo {
  OpCode code;
  std::string_view name;  // full MLIR name: stablehlo.add, func.call, check.expect_eq
  OpCategory category;
  Arity operands;
  Arity results;
  Arity regions;
  uint32_t traits = kNoTraits;
  ElementClass elements = ElementClass::Any;
  FusionRole fusion = FusionRole::Opaque;
  Identity identity = Identity::None;
  std::vector<AttrSpec> attrs;
  // The pretty form, in the small format language of stablehlo/op_syntax.h; empty when
  // the op only has the generic form.
  std::string_view syntax;
  // For chlo ops: how the op is to be decomposed into StableHLO (or "primitive" when
  // kiln implements it directly).
  std::string_view decomposition;
  // The executable form of `decomposition`, applied by the lower-chlo pass to chlo and
  // composite ops; null for ops kiln implements directly. StableHLO ops that have one
  // (batch norm) keep their kernels: theirs serves the transforms, which differentiate
  // and batch an op without rules of its own through its decomposition.
  DecomposeFn decompose = nullptr;
  // The op's name in VHLO, the versioned dialect of StableHLO's portable artifacts, at the
  // StableHLO release kiln reads (stablehlo/stablehlo_version.h), and that VHLO op's
  // attributes as VhloOps.td lists them, space-separated. Empty for ops VHLO lacks.
  std::string_view vhlo;
  std::string_view vhloAttrs;

  bool has(OpTrait t) const { return (traits & t) != 0; }
  bool isTerminator() const { return has(kTerminator); }
  const AttrSpec* findAttr(std::string_view attrName) const;
};

const OpInfo& opInfo(OpCode code);
// Whether two executors may disagree in the last bits of `op`'s results of element type
// `t`: it rounds freely (kRoundsFreely) and `t` is not an integer or boolean type.
bool roundsFreely(const OpInfo& op, DType t);
// Finds an op by its full name; also accepts `return`/`call` for func.return/func.call.
std::optional<OpCode> lookupOp(std::string_view name);
// The check op that `stablehlo.custom_call @<target>` stands for (JAX-generated tests
// call check.expect_eq, check.expect_almost_eq and check.expect_close this way), or
// nothing for any other target.
std::optional<OpCode> checkOpOfCustomCall(std::string_view target);

// Every registered op, in OpCode order: the primitives of the tables of ir/ops/, then the
// composite ops (ir/composite_ops.h), whose opcodes follow the primitives'.
std::span<const OpInfo> allOps();

// The identity of `code` as a reducer over `dtype` (a rank-0 literal), or nothing when it
// has none there (float formats without infinities have no identity for maximum).
std::optional<Literal> reducerIdentity(OpCode code, DType dtype);

}  // namespace kiln
