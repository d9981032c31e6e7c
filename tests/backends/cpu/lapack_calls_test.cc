// JAX's LAPACK custom calls in programs as JAX exports them (jax.numpy.linalg's
// cholesky, lu, eigh, svd, qr and jax.scipy's solve_triangular, with their layouts,
// info checks, locations, sharding rules and frontend attributes), parsed and run on the
// interpreter and on the cpu backend, where they are steps of the step program with no
// interpreter fallback; both run the one kernel in kernels/lapack/, so they agree bit for
// bit, and the results are checked by what they must satisfy. Every target runs natively
// on cpu; an unknown target is "unsupported: custom_call @name", and a call that does not
// fit its target is an error at its line.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>

#include "backends/cpu/cpu_test_util.h"
#include "interp/interpreter.h"
#include "kernels/lapack_test_util.h"
#include "passes/pass_test_util.h"

namespace kiln::cpu {
namespace {

using kernels::lapack_test::Mat;
using kernels::lapack_test::Tensor;
using Z = std::complex<double>;

Literal literalOf(const Tensor& t) {
  return Literal::fromStorage(t.type, t.bytes);
}
Tensor tensorOf(const interp::HostValue& v) {
  Tensor t(v.tensor().type());
  Literal dense = v.tensor();
  std::memcpy(t.bytes.data(), dense.mutableStorage(), t.bytes.size());
  return t;
}

// Runs @main on both backends; expects the cpu to run it as steps, its LAPACK calls
// natively, and the same bits as the interpreter. Returns the cpu's results.
std::vector<Tensor> runBoth(const std::string& text, const std::vector<Tensor>& inputs,
                            int lapackCalls) {
  test_util::Compiled c = test_util::compile(text);
  const std::string report = c.exe->report();
  EXPECT_EQ(report.find("through the interpreter"), std::string::npos) << report;
  EXPECT_NE(report.find("interpreter fallbacks: 0"), std::string::npos) << report;
  size_t listed = 0;
  for (size_t at = report.find("  LAPACK: "); at != std::string::npos;
       at = report.find("  LAPACK: ", at + 1))
    ++listed;
  EXPECT_EQ(listed, static_cast<size_t>(lapackCalls)) << report;
  interp::HostValues args;
  for (const Tensor& t : inputs) args.push_back(literalOf(t));
  const interp::HostValues expected = interp::Interpreter(*c.reference).call("main", args);
  const uint64_t before = c.exe->nativeRuns();
  const interp::HostValues got = c.exe->call(*c.module->lookup("main"), args);
  EXPECT_GT(c.exe->nativeRuns(), before);
  passes::test_util::expectBitIdentical(expected, got, text);
  std::vector<Tensor> out;
  for (const interp::HostValue& v : got) out.push_back(tensorOf(v));
  return out;
}

// What jax.numpy.linalg.cholesky exports (jax 0.4.3x, CPU): symmetrize, potrf, NaN
// where info != 0, then the lower triangle.
constexpr const char* kCholesky = R"(#loc1 = loc("x")
module @jit_cholesky attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x4xf32> {mhlo.layout_mode = "default"} loc("x")) -> (tensor<2x4x4xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32> loc(#loc3)
    %1 = stablehlo.add %arg0, %0 : tensor<2x4x4xf32> loc(#loc4)
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32> loc(#loc)
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x4xf32> loc(#loc5)
    %3 = stablehlo.divide %1, %2 : tensor<2x4x4xf32> loc(#loc5)
    %4:2 = stablehlo.custom_call @lapack_spotrf_ffi(%3) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2xi32>) loc(#loc6)
    %c = stablehlo.constant dense<0> : tensor<i32> loc(#loc6)
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32> loc(#loc6)
    %6 = stablehlo.compare  EQ, %4#1, %5,  SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1> loc(#loc6)
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1> loc(#loc6)
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32> loc(#loc6)
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x4x4xf32> loc(#loc6)
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1> loc(#loc6)
    %10 = stablehlo.select %9, %4#0, %8 : tensor<2x4x4xi1>, tensor<2x4x4xf32> loc(#loc6)
    %11 = stablehlo.iota dim = 0 : tensor<4x4xi32> loc(#loc7)
    %12 = stablehlo.iota dim = 1 : tensor<4x4xi32> loc(#loc7)
    %13 = stablehlo.compare  GE, %11, %12,  SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1> loc(#loc8)
    %14 = stablehlo.broadcast_in_dim %13, dims = [1, 2] : (tensor<4x4xi1>) -> tensor<2x4x4xi1> loc(#loc9)
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc7)
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x4x4xf32> loc(#loc7)
    %16 = stablehlo.select %14, %10, %15 : tensor<2x4x4xi1>, tensor<2x4x4xf32> loc(#loc9)
    return %16 : tensor<2x4x4xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("/tmp/export_linalg.py":12:9)
#loc3 = loc("jit(cholesky)/jit(main)/transpose"(#loc2))
#loc4 = loc("jit(cholesky)/jit(main)/add"(#loc2))
#loc5 = loc("jit(cholesky)/jit(main)/div"(#loc2))
#loc6 = loc("jit(cholesky)/jit(main)/cholesky"(#loc2))
#loc7 = loc("jit(cholesky)/jit(main)/tril"(#loc2))
#loc8 = loc("jit(cholesky)/jit(main)/ge"(#loc2))
#loc9 = loc("jit(cholesky)/jit(main)/select_n"(#loc2))
)";

TEST(LapackCallsTest, CholeskyAsJaxExportsItRunsNativelyOnCpu) {
  kernels::lapack_test::Inputs<float> in;
  Tensor a(Type::tensor(DType::F32, {2, 4, 4}));
  std::vector<Mat> spd;
  for (int64_t b = 0; b < 2; ++b) {
    spd.push_back(kernels::lapack_test::rounded<float>(in.positiveDefinite(4, 0.05)));
    a.setMatrix(b, spd.back());
  }
  const std::vector<Tensor> r = runBoth(kCholesky, {a}, 1);
  for (int64_t b = 0; b < 2; ++b) {
    const Mat l = r[0].matrix(b);
    EXPECT_LE(kernels::lapack_test::relativeError(l * adjoint(l), spd[b], spd[b]), 1e-5);
  }
  // Not positive definite: JAX's program turns info != 0 into NaNs.
  Mat bad = kernels::lapack_test::identity(4);
  bad(2, 2) = -1;
  a.setMatrix(1, bad);
  const std::vector<Tensor> r2 = runBoth(kCholesky, {a}, 1);
  EXPECT_TRUE(std::isnan(r2[0].matrix(1)(0, 0).real()));
  EXPECT_FALSE(std::isnan(r2[0].matrix(0)(0, 0).real()));
}

// jax.scipy.linalg.lu_factor's export: getrf, 0-based pivots, NaN where info < 0.
constexpr const char* kLu =
    R"(module @jit_lu_factor attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5x5xf64>) -> (tensor<3x5x5xf64> {jax.result_info = "[0]"}, tensor<3x5xi32> {jax.result_info = "[1]"}, tensor<3xi32> {jax.result_info = "[2]"}) {
    %0:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%arg0) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<3x5x5xf64>) -> (tensor<3x5x5xf64>, tensor<3x5xi32>, tensor<3xi32>)
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<3x5xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %4 = stablehlo.compare  GE, %0#2, %3,  SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xi1>) -> tensor<3x1x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x5x5xf64>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<3x1x1xi1>) -> tensor<3x5x5xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<3x5x5xi1>, tensor<3x5x5xf64>
    return %8, %2, %0#2 : tensor<3x5x5xf64>, tensor<3x5xi32>, tensor<3xi32>
  }
}
)";

TEST(LapackCallsTest, LuAsJaxExportsItRunsNativelyOnCpu) {
  kernels::lapack_test::Inputs<double> in;
  Tensor a(Type::tensor(DType::F64, {3, 5, 5}));
  for (int64_t b = 0; b < 3; ++b) a.setMatrix(b, in.random(5, 5));
  Mat singular = in.random(5, 5);
  for (int64_t r = 0; r < 5; ++r) singular(r, 4) = 0;  // a zero column: U(4,4) = 0
  a.setMatrix(2, singular);
  const std::vector<Tensor> r = runBoth(kLu, {a}, 1);
  for (int64_t b = 0; b < 3; ++b) {
    std::vector<Z> pivots = r[1].vector(b);
    for (Z& p : pivots) p += 1;  // the program made them 0-based
    const Mat lu = r[0].matrix(b);
    Mat l = kernels::lapack_test::identity(5), u(5, 5);
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 5; ++j) (j < i ? l(i, j) : u(i, j)) = lu(i, j);
    std::vector<int64_t> rows = {0, 1, 2, 3, 4};
    for (size_t i = 0; i < 5; ++i)
      std::swap(rows[i], rows[static_cast<size_t>(pivots[i].real()) - 1]);
    Mat pa(5, 5);
    const Mat ab = a.matrix(b);
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 5; ++j) pa(i, j) = ab(rows[static_cast<size_t>(i)], j);
    EXPECT_LE(kernels::lapack_test::relativeError(pa, l * u, pa), 1e-13) << "matrix " << b;
  }
  EXPECT_EQ(r[2].info(0), 0);
  EXPECT_EQ(r[2].info(2), 5);
}

// jnp.linalg.eigh (complex), svd (batched f32, as in JAX's back-compat data), qr with
// JAX's newer attributes (backend_config = "", frontend attributes, a Shardy rule), and
// solve_triangular: every call on cpu is a step.
constexpr const char* kDecompositions =
    R"(module @jit_decompositions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%h: tensor<3x3xcomplex<f32>>, %s: tensor<2x4x4xf32>, %q: tensor<3x4xf32>, %t: tensor<4x4xf64>, %b: tensor<4x5xf64>)
      -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<3x3xf32>, tensor<3x4xf32>, tensor<4x5xf64>) {
    %0:3 = stablehlo.custom_call @lapack_cheevd_ffi(%h) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<i32>)
    %1:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%s) {mhlo.backend_config = {mode = 65 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2xi32>)
    %2:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%q) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m]) {i=3, j=4, k=3, l=4, m=3}, custom>} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3xf32>)
    %3 = stablehlo.slice %2#0 [0:3, 0:3] : (tensor<3x4xf32>) -> tensor<3x3xf32>
    %4 = stablehlo.custom_call @lapack_sorgqr_ffi(%3, %2#1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=3, j=3, k=3, l=3, m=3}, custom>} : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
    %5 = stablehlo.custom_call @lapack_dtrsm_ffi(%t, %b) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=4, j=4, k=4, l=5, m=4, n=5}, custom>} : (tensor<4x4xf64>, tensor<4x5xf64>) -> tensor<4x5xf64>
    return %0#0, %0#1, %1#1, %1#2, %1#3, %4, %2#0, %5 : tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<3x3xf32>, tensor<3x4xf32>, tensor<4x5xf64>
  }
}
)";

TEST(LapackCallsTest, EighSvdQrAndTriangularSolveAsJaxExportsThemRunNativelyOnCpu) {
  using kernels::lapack_test::identity;
  using kernels::lapack_test::relativeError;
  kernels::lapack_test::Inputs<std::complex<float>> complexIn;
  kernels::lapack_test::Inputs<float> in;
  kernels::lapack_test::Inputs<double> in64;
  Tensor h(Type::tensor(DType::C64, {3, 3})), s(Type::tensor(DType::F32, {2, 4, 4})),
      q(Type::tensor(DType::F32, {3, 4})), t(Type::tensor(DType::F64, {4, 4})),
      b(Type::tensor(DType::F64, {4, 5}));
  Mat hm = complexIn.hermitian(3);
  for (int64_t i = 0; i < 3; ++i) hm(i, i) = hm(i, i).real();
  h.setMatrix(0, hm);
  for (int64_t i = 0; i < 2; ++i) s.setMatrix(i, in.random(4, 4));
  q.setMatrix(0, in.random(3, 4));
  Mat tm = in64.random(4, 4);
  for (int64_t i = 0; i < 4; ++i) tm(i, i) += 3;
  t.setMatrix(0, tm);
  b.setMatrix(0, in64.random(4, 5));
  const std::vector<Tensor> r = runBoth(kDecompositions, {h, s, q, t, b}, 5);
  // eigh: A·V = V·Λ.
  const Mat v = r[0].matrix(0), ha = h.matrix(0);
  Mat lambda(3, 3);
  for (int64_t i = 0; i < 3; ++i) lambda(i, i) = r[1].vector(0)[static_cast<size_t>(i)];
  EXPECT_LE(relativeError(ha * v, v * lambda, ha), 1e-5);
  // svd: U·Σ·Vᴴ = A for both matrices.
  for (int64_t i = 0; i < 2; ++i) {
    Mat sigma(4, 4);
    for (int64_t j = 0; j < 4; ++j) sigma(j, j) = r[2].vector(i)[static_cast<size_t>(j)];
    EXPECT_LE(relativeError(r[3].matrix(i) * sigma * r[4].matrix(i), s.matrix(i), s.matrix(i)),
              1e-5);
  }
  // qr: Q·R = A with R the upper triangle geqrf left.
  Mat rm(3, 4);
  const Mat packed = r[6].matrix(0);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = i; j < 4; ++j) rm(i, j) = packed(i, j);
  EXPECT_LE(relativeError(r[5].matrix(0) * rm, q.matrix(0), q.matrix(0)), 1e-5);
  EXPECT_LE(relativeError(adjoint(r[5].matrix(0)) * r[5].matrix(0), identity(3), identity(3)),
            1e-5);
  // solve_triangular (lower): L·X = B.
  Mat lower(4, 4);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j <= i; ++j) lower(i, j) = tm(i, j);
  EXPECT_LE(relativeError(lower * r[7].matrix(0), b.matrix(0), b.matrix(0)), 1e-13);
}

// Every target, for every element type, is a native step on cpu and agrees with the
// interpreter (the same kernel); their properties are the kernel tests' business.
TEST(LapackCallsTest, EveryTargetOfEveryTypeRunsAsAStep) {
  using kernels::lapack_test::tensorType;
  for (DType t : {DType::F32, DType::F64, DType::C64, DType::C128}) {
    const bool complex = isComplex(t);
    const DType real = complexPart(t), vectors = complex ? t : *complexOf(t);
    const char p = t == DType::F32 ? 's' : t == DType::F64 ? 'd' : t == DType::C64 ? 'c' : 'z';
    auto target = [&](const char* realName, const char* complexName) {
      return std::string("lapack_") + p + (complex ? complexName : realName) + "_ffi";
    };
    const Type m = Type::tensor(t, {2, 4, 4}), v = Type::tensor(t, {2, 4}),
               w = Type::tensor(t, {2, 3});
    const Type rv = Type::tensor(real, {2, 4}), rw = Type::tensor(real, {2, 3}),
               info = Type::tensor(DType::I32, {2});
    const Type vec = Type::tensor(vectors, {2, 4, 4});
    struct Case {
      std::string target;
      std::vector<Type> operands, results;
      std::string config;
    };
    std::vector<Case> cases = {
        {target("getrf", "getrf"), {m}, {m, Type::tensor(DType::I32, {2, 4}), info}, ""},
        {target("geqrf", "geqrf"), {m}, {m, v}, ""},
        {target("orgqr", "ungqr"), {m, v}, {m}, ""},
        {target("potrf", "potrf"), {m}, {m, info}, "uplo = 85 : ui8"},
        {target("syevd", "heevd"), {m}, {m, rv, info}, "mode = 86 : ui8, uplo = 76 : ui8"},
        {target("gesdd", "gesdd"), {m}, {m, rv, m, m, info}, "mode = 83 : ui8"},
        {target("geev", "geev"),
         {m},
         complex ? std::vector<Type>{v, m, m, info} : std::vector<Type>{v, v, vec, vec, info},
         "compute_left = 78 : ui8, compute_right = 86 : ui8"},
        {target("gees", "gees"),
         {m},
         complex ? std::vector<Type>{m, m, v, info, info}
                 : std::vector<Type>{m, m, v, v, info, info},
         "mode = 86 : ui8, sort = 78 : ui8"},
        {target("gehrd", "gehrd"), {m}, {m, w, info}, "high = 4 : i32, low = 1 : i32"},
        {target("sytrd", "hetrd"), {m}, {m, rv, rw, w, info}, "uplo = 76 : ui8"},
        {target("gtsv", "gtsv"), {v, v, v, m}, {v, v, v, m, info}, ""},
        {target("trsm", "trsm"),
         {m, m},
         {m},
         "diag = 78 : ui8, side = 82 : ui8, trans_x = 67 : ui8, uplo = 85 : ui8"},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.target);
      const std::string text =
          kernels::lapack_test::callText(c.target, c.operands, c.results, c.config);
      kernels::lapack_test::Inputs<double> in;
      std::vector<Tensor> inputs;
      for (const Type& type : c.operands) {
        Tensor x(type);
        for (int64_t i = 0; i < type.numElements(); ++i)
          x.set(i, in.next() + Z(type.rank() == 3 && i % 5 == 0 ? 4 : 0));
        inputs.push_back(std::move(x));
      }
      runBoth(text, inputs, 1);
    }
  }
}

// A function that runs through the interpreter for another op (fft has no native step)
// still runs its LAPACK call, with the interpreter's custom_call kernel: the same code.
TEST(LapackCallsTest, ALapackCallInAFunctionThatRunsThroughTheInterpreter) {
  const std::string text =
      R"(func.func @main(%a: tensor<3x3xf64>, %x: tensor<4xcomplex<f32>>) -> (tensor<3x3xf64>, tensor<i32>, tensor<4xcomplex<f32>>) {
  %r:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<i32>)
  %f = stablehlo.fft %x, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %r#0, %r#1, %f : tensor<3x3xf64>, tensor<i32>, tensor<4xcomplex<f32>>
})";
  test_util::Compiled c = test_util::compile(text);
  EXPECT_NE(c.exe->report().find("through the interpreter"), std::string::npos) << c.exe->report();
  Tensor a(Type::tensor(DType::F64, {3, 3}));
  kernels::lapack_test::Inputs<double> in;
  a.setMatrix(0, in.positiveDefinite(3, 0.1));
  interp::HostValues args = {literalOf(a), Literal(Type::tensor(DType::C64, {4}))};
  passes::test_util::expectBitIdentical(interp::Interpreter(*c.reference).call("main", args),
                                        c.exe->call(*c.module->lookup("main"), args), text);
  const Tensor factor = tensorOf(c.exe->call(*c.module->lookup("main"), args)[0]);
  Mat l = factor.matrix(0);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = i + 1; j < 3; ++j) l(i, j) = 0;
  EXPECT_LE(kernels::lapack_test::relativeError(l * adjoint(l), a.matrix(0), a.matrix(0)), 1e-14);
}

TEST(LapackCallsTest, AnUnknownTargetIsUnsupportedNamingIt) {
  for (const char* target : {"lapack_sfoo_ffi", "lapack_qgetrf_ffi", "lapack_cpotrf",
                             "lapack_corgqr_ffi", "blas_sgetrf_ffi"}) {
    const std::string text =
        std::string("func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n") +
        "  %r = stablehlo.custom_call @" + target +
        "(%a) {mhlo.backend_config = {}} : (tensor<2x2xf32>) -> tensor<2x2xf32>\n" +
        "  return %r : tensor<2x2xf32>\n}\n";
    const std::string want = std::string("unsupported: custom_call @") + target;
    auto module = stablehlo::parseModule(text);
    try {
      interp::Interpreter(*module).call("main", {Literal(Type::tensor(DType::F32, {2, 2}))});
      ADD_FAILURE() << "no error for " << target;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
      EXPECT_EQ(e.message(), want);
      EXPECT_EQ(e.pos().line, 2);
    }
    test_util::Compiled c = test_util::compile(text);
    try {
      c.exe->call(*c.module->lookup("main"), {Literal(Type::tensor(DType::F32, {2, 2}))});
      ADD_FAILURE() << "no error for " << target << " on cpu";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), want);
    }
  }
}

TEST(LapackCallsTest, ACallThatDoesNotFitItsTargetIsAnErrorAtItsLine) {
  auto errorOf = [](const std::string& call, const std::string& types) {
    const std::string text = "func.func @main(%a: tensor<3x3xf32>) -> " + types +
                             " {\n  %r:2 = " + call + "\n  return %r#0 : tensor<3x3xf32>\n}\n";
    std::string interpError, cpuError;
    try {
      auto module = stablehlo::parseModule(text);
      interp::Interpreter(*module).call("main", {Literal(Type::tensor(DType::F32, {3, 3}))});
    } catch (const Error& e) {
      EXPECT_EQ(e.pos().line, 2) << e.message();
      interpError = e.message();
    }
    try {
      test_util::compile(text);
    } catch (const Error& e) {
      EXPECT_EQ(e.pos().line, 2) << e.message();
      cpuError = e.message();
    }
    EXPECT_EQ(interpError, cpuError);
    return interpError;
  };
  EXPECT_EQ(
      errorOf("stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 88 : "
              "ui8}} : "
              "(tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)",
              "tensor<3x3xf32>"),
      "stablehlo.custom_call @lapack_spotrf_ffi: attribute uplo = 88 is not 'L' (76) or 'U' (85)");
  EXPECT_EQ(
      errorOf("stablehlo.custom_call @lapack_spotrf_ffi(%a) : (tensor<3x3xf32>) -> "
              "(tensor<3x3xf32>, tensor<i32>)",
              "tensor<3x3xf32>"),
      "stablehlo.custom_call @lapack_spotrf_ffi: needs the attribute uplo in mhlo.backend_config");
  EXPECT_EQ(errorOf("stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}} : "
                    "(tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>)",
                    "tensor<3x3xf32>"),
            "stablehlo.custom_call @lapack_dgetrf_ffi: operand 0 must be a tensor of f64 matrices, "
            "not tensor<3x3xf32>");
  EXPECT_EQ(errorOf("stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}} : "
                    "(tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>)",
                    "tensor<3x3xf32>"),
            "stablehlo.custom_call @lapack_sgetrf_ffi: gives 3 results, not 2");
}

}  // namespace
}  // namespace kiln::cpu
