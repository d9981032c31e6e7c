// Property tests of JAX's LAPACK factorization and solve calls (getrf, potrf, geqrf +
// orgqr/ungqr, trsm, gtsv) for f32/f64/c64/c128, batched, on well- and ill-conditioned
// inputs: each result is checked by what it must satisfy (P·A = L·U, L·Lᴴ = A, QᴴQ = I
// and Q·R = A, residuals of the solves), and the info outputs of singular and
// non-positive-definite inputs are LAPACK's, as jaxlib returns them.
#include "kernels/lapack_test_util.h"

namespace kiln::kernels::lapack_test {
namespace {

template <class T>
class LapackFactorizationTest : public ::testing::Test {};
TYPED_TEST_SUITE(LapackFactorizationTest, ElementTypes);

// The permutation matrix P of 1-based LAPACK pivots (row i swapped with pivots[i] - 1, in
// order), so that P·A = L·U.
Mat permutationOf(const std::vector<Z>& pivots, int64_t m) {
  std::vector<int64_t> rows(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) rows[static_cast<size_t>(i)] = i;
  for (size_t i = 0; i < pivots.size(); ++i) {
    const auto p = static_cast<int64_t>(pivots[i].real()) - 1;
    EXPECT_GE(p, static_cast<int64_t>(i)) << "pivot " << i;
    EXPECT_LT(p, m) << "pivot " << i;
    if (p >= 0 && p < m) std::swap(rows[i], rows[static_cast<size_t>(p)]);
  }
  Mat perm(m, m);
  for (int64_t i = 0; i < m; ++i) perm(i, rows[static_cast<size_t>(i)]) = 1;
  return perm;
}

// Checks P·A = L·U for every matrix of `a` against getrf's results; returns the infos.
template <class T>
std::vector<int32_t> checkLu(const Tensor& a, double tol) {
  const int64_t m = a.type.dim(a.type.rank() - 2), n = a.type.dim(a.type.rank() - 1),
                k = std::min(m, n);
  Shape batch(a.type.shape().begin(), a.type.shape().end() - 2);
  const std::vector<Tensor> r =
      runCall(name<T>("getrf"), {a},
              {a.type, tensorType(DType::I32, batch, {k}), tensorType(DType::I32, batch, {})});
  std::vector<int32_t> infos;
  for (int64_t b = 0; b < a.batch(); ++b) {
    const Mat lu = r[0].matrix(b);
    Mat l(m, k), u(k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) l(i, j) = i == j ? Z(1) : i > j ? lu(i, j) : Z(0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = i; j < n; ++j) u(i, j) = lu(i, j);
    const Mat pa = permutationOf(r[1].vector(b), m) * a.matrix(b);
    EXPECT_LE(relativeError(pa, l * u, pa), tol) << "matrix " << b << " of " << a.type.str();
    infos.push_back(r[2].info(b));
  }
  return infos;
}

TYPED_TEST(LapackFactorizationTest, GetrfGivesPermutedLuWithOneBasedPivots) {
  using T = TypeParam;
  Inputs<T> in;
  for (Shape shape : {Shape{2, 3, 6, 6}, Shape{3, 5, 3}, Shape{2, 3, 5}}) {
    Tensor a(Type::tensor(Element<T>::dtype, shape));
    for (int64_t b = 0; b < a.batch(); ++b)
      a.setMatrix(b, in.random(shape[shape.size() - 2], shape.back()));
    for (int32_t info : checkLu<T>(a, tolerance<T>(6))) EXPECT_EQ(info, 0);
  }
  // Ill-conditioned (condition 1e6 / 1e12): still a small backward error.
  Tensor ill(Type::tensor(Element<T>::dtype, {2, 8, 8}));
  for (int64_t b = 0; b < 2; ++b)
    ill.setMatrix(b, in.conditioned(8, 8, Element<T>::eps > 1e-10 ? 1e-6 : 1e-12));
  for (int32_t info : checkLu<T>(ill, tolerance<T>(8))) EXPECT_EQ(info, 0);
}

TYPED_TEST(LapackFactorizationTest, GetrfOfASingularMatrixNamesItsFirstZeroPivot) {
  using T = TypeParam;
  // Second matrix: rows 1 and 2 are multiples (exactly, in binary), so U(1,1) = 0.
  Tensor a(Type::tensor(Element<T>::dtype, {2, 3, 3}));
  Mat good = identity(3), singular(3, 3);
  const double rows[3][3] = {{1, 2, 3}, {2, 4, 6}, {1, 0, 1}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) singular(i, j) = rows[i][j];
  a.setMatrix(0, good);
  a.setMatrix(1, singular);
  const std::vector<int32_t> infos = checkLu<T>(a, tolerance<T>(3));
  EXPECT_EQ(infos[0], 0);
  // Pivot rows: (2,4,6) first; then (1,0,1) - 0.5*(2,4,6) = (0,-2,-2) beats (0,0,0);
  // the last pivot is exactly zero: info = 3 (1-based), and the factorization completes.
  EXPECT_EQ(infos[1], 3);
}

// L·Lᴴ = A (uplo 'L') or Uᴴ·U = A ('U'), reading only that triangle of the factor.
template <class T>
std::vector<int32_t> checkCholesky(const Tensor& a, char uplo, double tol,
                                   bool expectFactor = true) {
  const int64_t n = a.type.dim(a.type.rank() - 1);
  Shape batch(a.type.shape().begin(), a.type.shape().end() - 2);
  const std::vector<Tensor> r =
      runCall(name<T>("potrf"), {a}, {a.type, tensorType(DType::I32, batch, {})},
              "uplo = " + std::to_string(static_cast<int>(uplo)) + " : ui8");
  std::vector<int32_t> infos;
  for (int64_t b = 0; b < a.batch(); ++b) {
    infos.push_back(r[1].info(b));
    if (!expectFactor) continue;
    const Mat f = r[0].matrix(b);
    Mat t(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (uplo == 'L' ? j <= i : j >= i) t(i, j) = f(i, j);
    const Mat product = uplo == 'L' ? t * adjoint(t) : adjoint(t) * t;
    const Mat want = a.matrix(b);
    EXPECT_LE(relativeError(product, want, want), tol) << uplo << " matrix " << b;
    // The other triangle is the input's, as jaxlib leaves it.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (uplo == 'L' ? j > i : j < i) {
          EXPECT_EQ(f(i, j), want(i, j));
        }
  }
  return infos;
}

TYPED_TEST(LapackFactorizationTest, PotrfFactorsBothTrianglesOfWellAndIllConditionedMatrices) {
  using T = TypeParam;
  Inputs<T> in;
  Tensor a(Type::tensor(Element<T>::dtype, {2, 2, 5, 5}));
  for (int64_t b = 0; b < 4; ++b)
    a.setMatrix(b, rounded<T>(in.positiveDefinite(
                       5, b < 2 ? 0.1 : (Element<T>::eps > 1e-10 ? 1e-5 : 1e-12))));
  for (char uplo : {'L', 'U'})
    for (int32_t info : checkCholesky<T>(a, uplo, tolerance<T>(5))) EXPECT_EQ(info, 0);
}

TYPED_TEST(LapackFactorizationTest, PotrfOfAMatrixThatIsNotPositiveDefiniteNamesTheMinor) {
  using T = TypeParam;
  Tensor a(Type::tensor(Element<T>::dtype, {3, 3, 3}));
  Mat notDefinite = identity(3);
  notDefinite(1, 1) = -1;  // the leading minor of order 2 is negative
  Mat zero(3, 3);
  a.setMatrix(0, identity(3));
  a.setMatrix(1, notDefinite);
  a.setMatrix(2, zero);
  const std::vector<int32_t> infos = checkCholesky<T>(a, 'L', 0, false);
  EXPECT_EQ(infos, (std::vector<int32_t>{0, 2, 1}));
}

// geqrf, then orgqr / ungqr on its reflectors: QᴴQ = I and Q·R = A.
template <class T>
void checkQr(const Tensor& a, double tol) {
  const int64_t m = a.type.dim(a.type.rank() - 2), n = a.type.dim(a.type.rank() - 1),
                k = std::min(m, n);
  Shape batch(a.type.shape().begin(), a.type.shape().end() - 2);
  const Type tauType = tensorType(Element<T>::dtype, batch, {k});
  const std::vector<Tensor> qr = runCall(name<T>("geqrf"), {a}, {a.type, tauType});
  // Q has min(m, n) columns: the reflectors' first k columns.
  Tensor reflectors(tensorType(Element<T>::dtype, batch, {m, k}));
  for (int64_t b = 0; b < a.batch(); ++b) {
    const Mat full = qr[0].matrix(b);
    Mat first(m, k);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) first(i, j) = full(i, j);
    reflectors.setMatrix(b, first);
  }
  const std::string q = Element<T>::complex ? "ungqr" : "orgqr";
  const std::vector<Tensor> qs =
      runCall(name<T>(q.c_str()), {reflectors, qr[1]}, {reflectors.type});
  for (int64_t b = 0; b < a.batch(); ++b) {
    const Mat qb = qs[0].matrix(b), full = qr[0].matrix(b);
    Mat r(k, n);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = i; j < n; ++j) r(i, j) = full(i, j);
    const Mat want = a.matrix(b);
    EXPECT_LE(relativeError(adjoint(qb) * qb, identity(k), identity(k)), tol)
        << "QᴴQ, matrix " << b;
    EXPECT_LE(relativeError(qb * r, want, want), tol) << "QR, matrix " << b;
  }
}

TYPED_TEST(LapackFactorizationTest, GeqrfAndOrgqrGiveAnOrthonormalQTimesUpperR) {
  using T = TypeParam;
  Inputs<T> in;
  for (Shape shape : {Shape{2, 3, 6, 4}, Shape{2, 4, 4}, Shape{2, 3, 5}}) {
    Tensor a(Type::tensor(Element<T>::dtype, shape));
    for (int64_t b = 0; b < a.batch(); ++b)
      a.setMatrix(b, in.random(shape[shape.size() - 2], shape.back()));
    checkQr<T>(a, tolerance<T>(6));
  }
  Tensor ill(Type::tensor(Element<T>::dtype, {2, 7, 5}));
  for (int64_t b = 0; b < 2; ++b)
    ill.setMatrix(b, in.conditioned(7, 5, Element<T>::eps > 1e-10 ? 1e-6 : 1e-12));
  checkQr<T>(ill, tolerance<T>(7));
}

TYPED_TEST(LapackFactorizationTest, TrsmSolvesEverySideTriangleTransposeAndDiagonal) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t m = 4, n = 3;
  for (char side : {'L', 'R'})
    for (char uplo : {'L', 'U'})
      for (char trans : {'N', 'T', 'C'})
        for (char diag : {'N', 'U'}) {
          const int64_t k = side == 'L' ? m : n;
          Tensor a(Type::tensor(Element<T>::dtype, {2, k, k})),
              b(Type::tensor(Element<T>::dtype, {2, m, n}));
          for (int64_t i = 0; i < 2; ++i) {
            Mat t = in.random(
                k, k);  // the other triangle (and a unit diagonal's values) must be ignored
            for (int64_t d = 0; d < k; ++d) t(d, d) += 4;
            a.setMatrix(i, t);
            b.setMatrix(i, in.random(m, n));
          }
          const std::string config =
              "diag = " + std::to_string(static_cast<int>(diag)) +
              " : ui8, side = " + std::to_string(static_cast<int>(side)) +
              " : ui8, trans_x = " + std::to_string(static_cast<int>(trans)) +
              " : ui8, uplo = " + std::to_string(static_cast<int>(uplo)) + " : ui8";
          const std::vector<Tensor> x = runCall(name<T>("trsm"), {a, b}, {b.type}, config);
          for (int64_t i = 0; i < 2; ++i) {
            const Mat full = a.matrix(i);
            Mat t(k, k);
            for (int64_t r = 0; r < k; ++r)
              for (int64_t c = 0; c < k; ++c)
                if (r == c)
                  t(r, c) = diag == 'U' ? Z(1) : full(r, c);
                else if (uplo == 'L' ? c < r : c > r)
                  t(r, c) = full(r, c);
            Mat op = t;
            if (trans != 'N') {
              op = adjoint(t);
              if (trans == 'T')
                for (Z& z : op.v) z = std::conj(z);
            }
            const Mat xi = x[0].matrix(i), bi = b.matrix(i);
            const Mat lhs = side == 'L' ? op * xi : xi * op;
            EXPECT_LE(relativeError(lhs, bi, bi), tolerance<T>(k))
                << "side " << side << " uplo " << uplo << " trans " << trans << " diag " << diag;
          }
        }
}

// Ill-conditioned systems: the residual is small against ||A||·||X|| (backward
// stability), whatever the condition number does to X itself.
TYPED_TEST(LapackFactorizationTest, TrsmAndGtsvOfIllConditionedSystemsHaveSmallBackwardError) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t n = 8;
  const double smallest = Element<T>::eps > 1e-10 ? 1e-5 : 1e-11;
  // Triangular: a unit-norm-ish lower triangle whose diagonal falls geometrically.
  Tensor a(Type::tensor(Element<T>::dtype, {2, n, n})),
      b(Type::tensor(Element<T>::dtype, {2, n, 2}));
  for (int64_t i = 0; i < 2; ++i) {
    Mat t = in.random(n, n);
    for (int64_t d = 0; d < n; ++d) t(d, d) = std::pow(smallest, static_cast<double>(d) / (n - 1));
    a.setMatrix(i, t);
    b.setMatrix(i, in.random(n, 2));
  }
  const std::vector<Tensor> x =
      runCall(name<T>("trsm"), {a, b}, {b.type},
              "diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8");
  for (int64_t i = 0; i < 2; ++i) {
    const Mat full = a.matrix(i);
    Mat l(n, n);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c <= r; ++c) l(r, c) = full(r, c);
    const Mat xi = x[0].matrix(i);
    EXPECT_LE(norm(l * xi - b.matrix(i)) / (norm(l) * norm(xi)), tolerance<T>(n))
        << "trsm, system " << i;
  }
  // Tridiagonal: a small diagonal against unit off-diagonals (gtsv pivots).
  const Type diagonal = Type::tensor(Element<T>::dtype, {1, n});
  Tensor dl(diagonal), d(diagonal), du(diagonal), rhs(Type::tensor(Element<T>::dtype, {1, n, 1}));
  std::vector<Z> l, c, u;
  for (int64_t j = 0; j < n; ++j) {
    l.push_back(in.next());
    u.push_back(in.next());
    c.push_back(smallest * in.next());
  }
  dl.setVector(0, l);
  d.setVector(0, c);
  du.setVector(0, u);
  rhs.setMatrix(0, in.random(n, 1));
  const std::vector<Tensor> r =
      runCall(name<T>("gtsv"), {dl, d, du, rhs},
              {diagonal, diagonal, diagonal, rhs.type, Type::tensor(DType::I32, {1})});
  Mat tri(n, n);
  const std::vector<Z> lr = dl.vector(0), cr = d.vector(0), ur = du.vector(0);
  for (int64_t j = 0; j < n; ++j) {
    tri(j, j) = cr[static_cast<size_t>(j)];
    if (j > 0) tri(j, j - 1) = lr[static_cast<size_t>(j)];
    if (j + 1 < n) tri(j, j + 1) = ur[static_cast<size_t>(j)];
  }
  EXPECT_EQ(r[4].info(0), 0);
  const Mat xs = r[3].matrix(0);
  EXPECT_LE(norm(tri * xs - rhs.matrix(0)) / (norm(tri) * norm(xs)), tolerance<T>(n)) << "gtsv";
}

TYPED_TEST(LapackFactorizationTest, TrsmWithAlphaOperandScalesTheRightHandSide) {
  using T = TypeParam;
  Inputs<T> in;
  Tensor a(Type::tensor(Element<T>::dtype, {3, 3})), b(Type::tensor(Element<T>::dtype, {3, 2}));
  Tensor alpha(Type::tensor(Element<T>::dtype, {}));
  a.setMatrix(0, identity(3));
  b.setMatrix(0, in.random(3, 2));
  alpha.set(0, 2);
  const std::vector<Tensor> x =
      runCall(name<T>("trsm"), {a, b, alpha}, {b.type},
              "diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8");
  EXPECT_LE(relativeError(x[0].matrix(0), scaled(b.matrix(0), 2), b.matrix(0)), tolerance<T>(3));
  // trsm is also known as blas_?trsm_ffi: the same call.
  const std::vector<Tensor> blas =
      runCall(std::string("blas_") + Element<T>::prefix + "trsm_ffi", {a, b, alpha}, {b.type},
              "diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8");
  EXPECT_EQ(blas[0].bytes, x[0].bytes);
}

TYPED_TEST(LapackFactorizationTest, GtsvSolvesTridiagonalSystemsAndReportsSingularOnes) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t m = 6, nrhs = 3;
  const Type diagonal = Type::tensor(Element<T>::dtype, {3, m});
  Tensor dl(diagonal), d(diagonal), du(diagonal), b(Type::tensor(Element<T>::dtype, {3, m, nrhs}));
  for (int64_t i = 0; i < 3; ++i) {
    std::vector<Z> l, c, u;
    for (int64_t j = 0; j < m; ++j) {
      l.push_back(in.next());
      u.push_back(in.next());
      c.push_back(i == 2 ? Z(0) : in.next() + Z(3));  // the third system is singular (all zero)
    }
    if (i == 2) l = u = std::vector<Z>(static_cast<size_t>(m));
    l[0] = 1e30;  // JAX's unused elements: must not be read
    u[m - 1] = 1e30;
    dl.setVector(i, l);
    d.setVector(i, c);
    du.setVector(i, u);
    b.setMatrix(i, in.random(m, nrhs));
  }
  const std::vector<Tensor> r =
      runCall(name<T>("gtsv"), {dl, d, du, b},
              {diagonal, diagonal, diagonal, b.type, Type::tensor(DType::I32, {3})});
  for (int64_t i = 0; i < 2; ++i) {
    Mat a(m, m);
    const std::vector<Z> l = dl.vector(i), c = d.vector(i), u = du.vector(i);
    for (int64_t j = 0; j < m; ++j) {
      a(j, j) = c[static_cast<size_t>(j)];
      if (j > 0) a(j, j - 1) = l[static_cast<size_t>(j)];
      if (j + 1 < m) a(j, j + 1) = u[static_cast<size_t>(j)];
    }
    EXPECT_EQ(r[4].info(i), 0);
    EXPECT_LE(relativeError(a * r[3].matrix(i), b.matrix(i), b.matrix(i)), tolerance<T>(m))
        << "system " << i;
  }
  EXPECT_EQ(r[4].info(2), 1);  // the first zero pivot, 1-based
}

}  // namespace
}  // namespace kiln::kernels::lapack_test
