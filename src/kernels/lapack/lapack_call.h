// JAX's CPU linear-algebra custom calls: the `lapack_*_ffi` targets that jaxlib registers
// and `jax.numpy.linalg` / `jax.scipy.linalg` emit on CPU (LU, QR, Cholesky, eigen
// decompositions, SVD, Schur, Hessenberg and tridiagonal reductions, tridiagonal and
// triangular solves), for f32/f64/c64/c128, batched over leading dimensions. One
// implementation that the interpreter and the cpu backend both call.
//
// A call is parsed and checked once (lapackCallOf: the target name, its attributes from
// `mhlo.backend_config`, the operand and result types and layouts) and then run over kiln's
// dense row-major buffers (runLapackCall): operands are laid out as the call's
// `operand_layouts` say (jaxlib asks for column-major matrices), the kernel runs on those
// bytes as jaxlib's does, and the results come back from `result_layouts` to row-major.
// What jaxlib writes is what these write, info outputs included (LAPACK's info per matrix:
// > 0 for a singular LU or a matrix that is not positive definite, -4 for a geev input
// that is not finite); what jaxlib leaves unwritten (u and vt of an SVD without them,
// eigenvectors of a failed geev) is zero here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace kiln::kernels {

enum class LapackRoutine : uint8_t {
  Getrf,  // LU with partial pivoting; 1-based pivots
  Geqrf,  // QR as Householder reflectors + taus
  Orgqr,  // Q from reflectors (ungqr for complex types)
  Potrf,  // Cholesky
  Syevd,  // symmetric / Hermitian eigen (heevd for complex types)
  Gesdd,  // SVD
  Geev,   // general eigen
  Gees,   // Schur
  Gehrd,  // Hessenberg reduction
  Sytrd,  // symmetric / Hermitian tridiagonal reduction (hetrd for complex types)
  Gtsv,   // tridiagonal solve
  Trsm,   // triangular solve (BLAS)
};

// A checked call: everything its kernel needs.
struct LapackCall {
  LapackRoutine routine;
  std::string_view target;  // the custom call's target name (points into the op)
  DType dtype;              // the routine's element type (its s/d/c/z prefix)
  std::vector<Type> operands, results;
  // Minor-to-major dimension orders, one per operand and result (row-major when the
  // call gives none).
  std::vector<std::vector<int64_t>> operandLayouts, resultLayouts;
  // The attributes, as the LAPACK arguments they become.
  char uplo = 'L';            // potrf, syevd, sytrd, trsm
  char mode = 'V';            // syevd, gees: 'N' / 'V'; gesdd: 'A' / 'S' / 'N'
  char computeLeft = 'N';     // geev
  char computeRight = 'N';    // geev
  char side = 'L';            // trsm
  char transpose = 'N';       // trsm: 'N' / 'T' / 'C'
  char diag = 'N';            // trsm: 'N' / 'U'
  int32_t low = 1, high = 0;  // gehrd
};

// Whether `target` names one of these custom calls.
bool isLapackTarget(std::string_view target);

// The call `op` makes, or nothing when its target is not one of these. Throws kiln::Error
// (Verify) naming the target when the op does not fit it: wrong operand or result count,
// types or shapes, a missing or bad attribute or layout.
std::optional<LapackCall> lapackCallOf(const Op& op);

// Runs `call`: `operands` and `results` are dense row-major buffers of its operand and
// result types. Throws kiln::Error (Runtime) when LAPACK rejects an argument (a kiln bug).
void runLapackCall(const LapackCall& call, const void* const* operands, void* const* results);

}  // namespace kiln::kernels
