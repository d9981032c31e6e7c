// The one table of LAPACK custom-call targets (lapack_call.h): each row names a routine
// as jaxlib does (its real and complex spellings), says how a call of it is checked —
// operands, attributes and the result types it produces — and which kernel runs it.
// lapackCallOf finds a target's row by name; runLapackCall lays the buffers out as the
// call says and runs the row's kernel.
#include "kernels/lapack/lapack_call.h"

#include <array>
#include <cstring>
#include <memory>
#include <string>

#include "ir/ops/stablehlo.h"
#include "kernels/lapack/buffer_layout.h"
#include "kernels/lapack/lapack_routines.h"
#include "support/error.h"

namespace kiln::kernels {
namespace {

DType realOf(DType t) {
  return complexPart(t);
}

std::string quoted(char c) {
  return std::string("'") + c + "' (" + std::to_string(static_cast<int>(c)) + ")";
}

// Checks one call against its target's signature and reads its attributes; every
// complaint names the target.
class CallChecker {
 public:
  CallChecker(const Op& op, LapackCall& call) : call_(call) {
    config_ = op.attr("mhlo.backend_config");
    // Newer StableHLO writes the FFI attributes as backend_config itself.
    if (!config_ && op.attr("backend_config").is(Attribute::Kind::Dictionary))
      config_ = op.attr("backend_config");
  }

  LapackCall& call() { return call_; }

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorKind::Verify,
                "stablehlo.custom_call @" + std::string(call_.target) + ": " + why);
  }

  void operandCount(size_t least, size_t most) const {
    const size_t n = call_.operands.size();
    if (n < least || n > most)
      fail("takes " + std::to_string(least) + (most > least ? " or " + std::to_string(most) : "") +
           " operand" + (most == 1 ? "" : "s") + ", not " + std::to_string(n));
  }

  // Operand `i`: of the routine's element type (or `dtype`) and at least rank `minRank`.
  const Type& operand(size_t i, int64_t minRank, std::optional<DType> dtype = std::nullopt) const {
    const Type& t = call_.operands[i];
    const DType want = dtype.value_or(call_.dtype);
    if (t.dtype() != want || t.rank() < minRank)
      fail("operand " + std::to_string(i) + " must be a tensor of " + std::string(name(want)) +
           (minRank == 2   ? " matrices"
            : minRank == 1 ? " vectors"
                           : "") +
           ", not " + t.str());
    return t;
  }
  // The batch dimensions of a [..., rows, cols] operand, and the matrix itself.
  static Shape batchDims(const Type& t, int64_t inner) {
    return Shape(t.shape().begin(), t.shape().end() - inner);
  }
  void squareMatrix(const Type& t) const {
    if (t.dim(t.rank() - 1) != t.dim(t.rank() - 2)) fail("needs square matrices, not " + t.str());
  }

  // A character attribute of mhlo.backend_config, one of `allowed`.
  char charAttr(const char* name, std::string_view allowed) const {
    Attribute a = config_ ? config_.field(name) : Attribute();
    if (!a) fail("needs the attribute " + std::string(name) + " in mhlo.backend_config");
    if (!a.is(Attribute::Kind::Integer))
      fail("attribute " + std::string(name) + " must be a ui8 character code");
    const int64_t v = a.asInt();
    for (char c : allowed)
      if (v == c) return c;
    std::string options;
    for (char c : allowed) options += (options.empty() ? "" : " or ") + quoted(c);
    fail("attribute " + std::string(name) + " = " + std::to_string(v) + " is not " + options);
  }
  int32_t intAttr(const char* name) const {
    Attribute a = config_ ? config_.field(name) : Attribute();
    if (!a || !a.is(Attribute::Kind::Integer))
      fail("needs the integer attribute " + std::string(name) + " in mhlo.backend_config");
    return static_cast<int32_t>(a.asInt());
  }

  // The declared results must be exactly `expected`.
  void results(const std::vector<Type>& expected) const {
    if (call_.results.size() != expected.size())
      fail("gives " + std::to_string(expected.size()) + " results, not " +
           std::to_string(call_.results.size()));
    for (size_t i = 0; i < expected.size(); ++i)
      if (call_.results[i] != expected[i])
        fail("result " + std::to_string(i) + " must be " + expected[i].str() + ", not " +
             call_.results[i].str());
  }

 private:
  LapackCall& call_;
  Attribute config_;
};

Type tensorOf(DType dtype, Shape batch, std::initializer_list<int64_t> inner) {
  batch.insert(batch.end(), inner.begin(), inner.end());
  return Type::tensor(dtype, std::move(batch));
}

// ---- the signature of each routine ----

void checkGetrf(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  const Shape batch = CallChecker::batchDims(a, 2);
  const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1);
  k.results({a, tensorOf(DType::I32, batch, {std::min(m, n)}), tensorOf(DType::I32, batch, {})});
}

void checkGeqrf(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1);
  k.results({a, tensorOf(a.dtype(), CallChecker::batchDims(a, 2), {std::min(m, n)})});
}

void checkOrgqr(CallChecker& k) {
  k.operandCount(2, 2);
  const Type& a = k.operand(0, 2);
  const Type& tau = k.operand(1, 1);
  const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1),
                reflectors = tau.dim(tau.rank() - 1);
  if (CallChecker::batchDims(tau, 1) != CallChecker::batchDims(a, 2))
    k.fail("needs one tau vector per matrix: " + a.str() + " and " + tau.str());
  if (n > m || reflectors > n)
    k.fail("needs rows >= columns >= reflectors, not " + std::to_string(m) + ", " +
           std::to_string(n) + ", " + std::to_string(reflectors));
  k.results({a});
}

void checkPotrf(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  k.squareMatrix(a);
  k.call().uplo = k.charAttr("uplo", "LU");
  k.results({a, tensorOf(DType::I32, CallChecker::batchDims(a, 2), {})});
}

void checkSyevd(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  k.squareMatrix(a);
  k.call().uplo = k.charAttr("uplo", "LU");
  k.call().mode = k.charAttr("mode", "NV");
  const Shape batch = CallChecker::batchDims(a, 2);
  k.results({a, tensorOf(realOf(a.dtype()), batch, {a.dim(a.rank() - 1)}),
             tensorOf(DType::I32, batch, {})});
}

void checkGesdd(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  // 'O' (overwrite a with u or vt) is not one jaxlib implements either.
  const char mode = k.call().mode = k.charAttr("mode", "ASN");
  const Shape batch = CallChecker::batchDims(a, 2);
  const int64_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1), least = std::min(m, n);
  // Without u and vt, JAX still declares them, full or reduced as full_matrices says:
  // the one of them whose shape differs between the two tells which.
  const std::vector<Type>& declared = k.call().results;
  auto lastDims = [&](size_t i, int64_t fromEnd) {
    const bool matrix = declared.size() > i && declared[i].rank() >= 2;
    return matrix ? declared[i].dim(declared[i].rank() - fromEnd) : int64_t{-1};
  };
  const bool full =
      mode == 'A' || (mode == 'N' && (m > n ? lastDims(2, 1) == m : lastDims(3, 2) == n));
  k.results({a, tensorOf(realOf(a.dtype()), batch, {least}),
             tensorOf(a.dtype(), batch, {m, full ? m : least}),
             tensorOf(a.dtype(), batch, {full ? n : least, n}), tensorOf(DType::I32, batch, {})});
}

void checkGeev(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  k.squareMatrix(a);
  k.call().computeLeft = k.charAttr("compute_left", "NV");
  k.call().computeRight = k.charAttr("compute_right", "NV");
  const Shape batch = CallChecker::batchDims(a, 2);
  const int64_t n = a.dim(a.rank() - 1);
  const Type vectors =
      tensorOf(isComplex(a.dtype()) ? a.dtype() : *complexOf(a.dtype()), batch, {n, n});
  const Type values = tensorOf(a.dtype(), batch, {n});
  const Type info = tensorOf(DType::I32, batch, {});
  if (isComplex(a.dtype()))
    k.results({values, vectors, vectors, info});
  else
    k.results({values, values, vectors, vectors, info});
}

void checkGees(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  k.squareMatrix(a);
  k.call().mode = k.charAttr("mode", "NV");
  // Ordering needs a select function that the call cannot pass; jaxlib refuses it too.
  if (k.charAttr("sort", "NS") != 'N')
    k.fail("sort = 'S' (ordered eigenvalues) is unsupported, as in jaxlib");
  const Shape batch = CallChecker::batchDims(a, 2);
  const Type values = tensorOf(a.dtype(), batch, {a.dim(a.rank() - 1)});
  const Type i32 = tensorOf(DType::I32, batch, {});
  if (isComplex(a.dtype()))
    k.results({a, a, values, i32, i32});
  else
    k.results({a, a, values, values, i32, i32});
}

void checkGehrd(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  k.squareMatrix(a);
  const int64_t n = a.dim(a.rank() - 1);
  const int32_t low = k.call().low = k.intAttr("low");
  const int32_t high = k.call().high = k.intAttr("high");
  // LAPACK's own condition (1 <= low <= high <= n, or low = 1, high = 0 when n = 0).
  if (!(low >= 1 && low <= std::max<int64_t>(1, n) && high >= std::min<int64_t>(low, n) &&
        high <= n))
    k.fail("needs 1 <= low <= high <= n, not low = " + std::to_string(low) +
           ", high = " + std::to_string(high) + ", n = " + std::to_string(n));
  const Shape batch = CallChecker::batchDims(a, 2);
  k.results({a, tensorOf(a.dtype(), batch, {std::max<int64_t>(n - 1, 0)}),
             tensorOf(DType::I32, batch, {})});
}

void checkSytrd(CallChecker& k) {
  k.operandCount(1, 1);
  const Type& a = k.operand(0, 2);
  k.squareMatrix(a);
  k.call().uplo = k.charAttr("uplo", "LU");
  const Shape batch = CallChecker::batchDims(a, 2);
  const int64_t n = a.dim(a.rank() - 1), off = std::max<int64_t>(n - 1, 0);
  const DType real = realOf(a.dtype());
  k.results({a, tensorOf(real, batch, {n}), tensorOf(real, batch, {off}),
             tensorOf(a.dtype(), batch, {off}), tensorOf(DType::I32, batch, {})});
}

void checkGtsv(CallChecker& k) {
  k.operandCount(4, 4);
  const Type& b = k.operand(3, 2);
  const Shape batch = CallChecker::batchDims(b, 2);
  const Type diagonal = tensorOf(b.dtype(), batch, {b.dim(b.rank() - 2)});
  for (size_t i = 0; i < 3; ++i)
    if (k.operand(i, 1) != diagonal)
      k.fail("operand " + std::to_string(i) + " must be " + diagonal.str() +
             " (a diagonal per right-hand side)");
  k.results({diagonal, diagonal, diagonal, b, tensorOf(DType::I32, batch, {})});
}

void checkTrsm(CallChecker& k) {
  k.operandCount(2, 3);  // older jaxlib passes alpha as a third operand
  const Type& a = k.operand(0, 2);
  const Type& b = k.operand(1, 2);
  if (k.call().operands.size() == 3) k.operand(2, 0);
  if (k.call().operands.size() == 3 && k.call().operands[2].rank() != 0)
    k.fail("alpha must be a scalar");
  k.call().side = k.charAttr("side", "LR");
  k.call().uplo = k.charAttr("uplo", "LU");
  k.call().transpose = k.charAttr("trans_x", "NTC");
  k.call().diag = k.charAttr("diag", "NU");
  const int64_t order = k.call().side == 'L' ? b.dim(b.rank() - 2) : b.dim(b.rank() - 1);
  const Type want = tensorOf(a.dtype(), CallChecker::batchDims(b, 2), {order, order});
  if (a != want) k.fail("operand 0 must be " + want.str() + " for a right-hand side " + b.str());
  k.results({b});
}

struct LapackTarget {
  std::string_view real, complex;  // the routine as jaxlib spells it for each kind of type
  LapackRoutine routine;
  void (*check)(CallChecker&);
  void (*run)(const LapackCall&, const LapackBuffers&);
};

constexpr std::array<LapackTarget, 12> kTargets{{
    {"getrf", "getrf", LapackRoutine::Getrf, checkGetrf, runGetrf},
    {"geqrf", "geqrf", LapackRoutine::Geqrf, checkGeqrf, runGeqrf},
    {"orgqr", "ungqr", LapackRoutine::Orgqr, checkOrgqr, runOrgqr},
    {"potrf", "potrf", LapackRoutine::Potrf, checkPotrf, runPotrf},
    {"syevd", "heevd", LapackRoutine::Syevd, checkSyevd, runSyevd},
    {"gesdd", "gesdd", LapackRoutine::Gesdd, checkGesdd, runGesdd},
    {"geev", "geev", LapackRoutine::Geev, checkGeev, runGeev},
    {"gees", "gees", LapackRoutine::Gees, checkGees, runGees},
    {"gehrd", "gehrd", LapackRoutine::Gehrd, checkGehrd, runGehrd},
    {"sytrd", "hetrd", LapackRoutine::Sytrd, checkSytrd, runSytrd},
    {"gtsv", "gtsv", LapackRoutine::Gtsv, checkGtsv, runGtsv},
    {"trsm", "trsm", LapackRoutine::Trsm, checkTrsm, runTrsm},
}};

const LapackTarget& targetOf(LapackRoutine routine) {
  for (const LapackTarget& t : kTargets)
    if (t.routine == routine) return t;
  throw Error(ErrorKind::Internal, "a LAPACK routine without a row in the table");
}

// `lapack_` + s/d/c/z + routine + `_ffi`, as jaxlib registers them (and `blas_?trsm_ffi`,
// a name trsm is also known by).
struct ParsedName {
  const LapackTarget* target = nullptr;
  DType dtype = DType::F32;
};
ParsedName parseTarget(std::string_view name) {
  constexpr std::string_view kSuffix = "_ffi";
  std::string_view prefix = name.starts_with("lapack_") ? "lapack_"
                            : name.starts_with("blas_") ? "blas_"
                                                        : "";
  if (prefix.empty() || !name.ends_with(kSuffix) ||
      name.size() < prefix.size() + 1 + kSuffix.size())
    return {};
  const char type = name[prefix.size()];
  const std::string_view routine =
      name.substr(prefix.size() + 1, name.size() - prefix.size() - 1 - kSuffix.size());
  const DType dtype = type == 's'   ? DType::F32
                      : type == 'd' ? DType::F64
                      : type == 'c' ? DType::C64
                      : type == 'z' ? DType::C128
                                    : DType::I1;
  if (dtype == DType::I1) return {};
  for (const LapackTarget& t : kTargets) {
    if (routine != (isComplex(dtype) ? t.complex : t.real)) continue;
    if (prefix == "blas_" && t.routine != LapackRoutine::Trsm) return {};
    return {&t, dtype};
  }
  return {};
}

// A layouts attribute as minor-to-major lists, row-major where absent.
std::vector<std::vector<int64_t>> layoutsOf(const CallChecker& k, const Attribute& attr,
                                            const std::vector<Type>& types, const char* what) {
  std::vector<std::vector<int64_t>> layouts;
  if (!attr) {
    for (const Type& t : types) {
      std::vector<int64_t> rowMajor;
      for (int64_t d = t.rank() - 1; d >= 0; --d) rowMajor.push_back(d);
      layouts.push_back(std::move(rowMajor));
    }
    return layouts;
  }
  if (!attr.is(Attribute::Kind::Array) || attr.asArray().size() != types.size())
    k.fail(std::string(what) + " must list one layout per " +
           (std::string(what) == "operand_layouts" ? "operand" : "result"));
  for (size_t i = 0; i < types.size(); ++i) {
    const Attribute& l = attr.asArray()[i];
    std::vector<int64_t> order;
    if (l.is(Attribute::Kind::Dense))
      for (int64_t j = 0; j < l.asDense().numElements(); ++j) order.push_back(l.asDense().intAt(j));
    else if (l.is(Attribute::Kind::DenseArray))
      order = l.asInts();
    std::vector<bool> seen(static_cast<size_t>(types[i].rank()), false);
    bool permutation = static_cast<int64_t>(order.size()) == types[i].rank();
    for (int64_t d : order) {
      permutation = permutation && d >= 0 && d < types[i].rank() && !seen[static_cast<size_t>(d)];
      if (permutation) seen[static_cast<size_t>(d)] = true;
    }
    if (!permutation)
      k.fail(std::string(what) + " entry " + std::to_string(i) + " is not a dimension order of " +
             types[i].str());
    layouts.push_back(std::move(order));
  }
  return layouts;
}

}  // namespace

bool isLapackTarget(std::string_view target) {
  return parseTarget(target).target != nullptr;
}

std::optional<LapackCall> lapackCallOf(const Op& op) {
  if (!op.is(ops::CustomCall)) return std::nullopt;
  const Attribute name = op.attr("call_target_name");
  if (!name.is(Attribute::Kind::String)) return std::nullopt;
  const ParsedName parsed = parseTarget(name.asString());
  if (!parsed.target) return std::nullopt;
  LapackCall call{parsed.target->routine, name.asString(), parsed.dtype, {}, {}, {}, {}};
  CallChecker k(op, call);
  for (size_t i = 0; i < op.numOperands(); ++i) {
    const Type& t = op.operand(i)->type();
    if (!t.isTensor()) k.fail("operand " + std::to_string(i) + " must be a tensor, not " + t.str());
    call.operands.push_back(t);
  }
  for (size_t i = 0; i < op.numResults(); ++i) {
    const Type& t = op.result(i)->type();
    if (!t.isTensor()) k.fail("result " + std::to_string(i) + " must be a tensor, not " + t.str());
    call.results.push_back(t);
  }
  parsed.target->check(k);
  call.operandLayouts = layoutsOf(k, op.attr("operand_layouts"), call.operands, "operand_layouts");
  call.resultLayouts = layoutsOf(k, op.attr("result_layouts"), call.results, "result_layouts");
  return call;
}

void runLapackCall(const LapackCall& call, const void* const* operands, void* const* results) {
  // Buffers in the call's layouts: kiln's own where they are row-major already.
  std::vector<std::unique_ptr<uint8_t[]>> owned;
  LapackBuffers b;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    const Type& t = call.operands[i];
    if (isRowMajor(call.operandLayouts[i])) {
      b.operands.push_back(operands[i]);
      continue;
    }
    owned.push_back(std::make_unique_for_overwrite<uint8_t[]>(static_cast<size_t>(t.byteSize())));
    toLayout(operands[i], owned.back().get(), t.shape(), call.operandLayouts[i],
             static_cast<size_t>(storageBytes(t.dtype())));
    b.operands.push_back(owned.back().get());
  }
  for (size_t i = 0; i < call.results.size(); ++i) {
    const size_t bytes = static_cast<size_t>(call.results[i].byteSize());
    if (isRowMajor(call.resultLayouts[i])) {
      b.results.push_back(results[i]);
    } else {
      owned.push_back(std::make_unique_for_overwrite<uint8_t[]>(bytes));
      b.results.push_back(owned.back().get());
    }
    // What a routine leaves unwritten reads as zero.
    if (bytes > 0) std::memset(b.results.back(), 0, bytes);
  }
  targetOf(call.routine).run(call, b);
  for (size_t i = 0; i < call.results.size(); ++i) {
    if (b.results[i] == results[i]) continue;
    const Type& t = call.results[i];
    fromLayout(b.results[i], results[i], t.shape(), call.resultLayouts[i],
               static_cast<size_t>(storageBytes(t.dtype())));
  }
}

}  // namespace kiln::kernels
