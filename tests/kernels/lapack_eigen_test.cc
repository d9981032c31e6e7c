// Property tests of JAX's LAPACK eigen and singular value calls and the reductions
// before them (syevd/heevd, gesdd, geev, gees, gehrd, sytrd/hetrd) for f32/f64/c64/c128,
// batched, on well- and ill-conditioned inputs: A·V = V·Λ with VᴴV = I, U·Σ·Vᴴ = A,
// A·VR = VR·Λ, Z·T·Zᴴ = A with T upper (quasi-)triangular, and Q·H·Qᴴ = A from the
// reflectors LAPACK leaves (Hessenberg and tridiagonal).
#include "kernels/lapack_test_util.h"

namespace kiln::kernels::lapack_test {
namespace {

template <class T>
class LapackEigenTest : public ::testing::Test {};
TYPED_TEST_SUITE(LapackEigenTest, ElementTypes);

DType realOf(DType t) {
  return complexPart(t);
}
std::string chars(std::initializer_list<std::pair<const char*, char>> attrs) {
  std::string s;
  for (const auto& [key, c] : attrs)
    s += (s.empty() ? "" : ", ") + std::string(key) + " = " + std::to_string(static_cast<int>(c)) +
         " : ui8";
  return s;
}
Mat diagonal(const std::vector<Z>& d) {
  Mat m(static_cast<int64_t>(d.size()), static_cast<int64_t>(d.size()));
  for (size_t i = 0; i < d.size(); ++i) m(static_cast<int64_t>(i), static_cast<int64_t>(i)) = d[i];
  return m;
}

TYPED_TEST(LapackEigenTest,
           SyevdGivesOrthonormalEigenvectorsAndAscendingEigenvaluesFromOneTriangle) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t n = 6;
  const Type type = Type::tensor(Element<T>::dtype, {2, 2, n, n});
  Tensor a(type), garbled(type);
  for (int64_t b = 0; b < 4; ++b) {
    Mat h =
        b < 2 ? in.hermitian(n) : in.positiveDefinite(n, Element<T>::eps > 1e-10 ? 1e-6 : 1e-12);
    for (int64_t i = 0; i < n; ++i) h(i, i) = h(i, i).real();
    a.setMatrix(b, h);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) h(i, j) = 7.0;  // the upper triangle must not be read
    garbled.setMatrix(b, h);
  }
  const std::string routine = Element<T>::complex ? "heevd" : "syevd";
  const std::vector<Type> results = {type, Type::tensor(realOf(type.dtype()), {2, 2, n}),
                                     Type::tensor(DType::I32, {2, 2})};
  const std::vector<Tensor> r =
      runCall(name<T>(routine.c_str()), {garbled}, results, chars({{"mode", 'V'}, {"uplo", 'L'}}));
  const std::vector<Tensor> values =
      runCall(name<T>(routine.c_str()), {garbled}, results, chars({{"mode", 'N'}, {"uplo", 'L'}}));
  for (int64_t b = 0; b < 4; ++b) {
    EXPECT_EQ(r[2].info(b), 0);
    const Mat v = r[0].matrix(b), ab = a.matrix(b);
    const std::vector<Z> w = r[1].vector(b);
    for (int64_t i = 1; i < n; ++i) EXPECT_LE(w[i - 1].real(), w[i].real()) << "ascending";
    EXPECT_LE(relativeError(ab * v, v * diagonal(w), ab), tolerance<T>(n))
        << "A·V = V·Λ, matrix " << b;
    EXPECT_LE(relativeError(adjoint(v) * v, identity(n), identity(n)), tolerance<T>(n))
        << "VᴴV = I, matrix " << b;
    const std::vector<Z> w2 = values[1].vector(b);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_NEAR(w2[i].real(), w[i].real(), tolerance<T>(n) * norm(ab));
  }
}

// U·Σ·Vᴴ = A with orthonormal U and V, for the three modes.
template <class T>
void checkSvd(const Tensor& a, char mode, double tol) {
  const int64_t m = a.type.dim(a.type.rank() - 2), n = a.type.dim(a.type.rank() - 1),
                k = std::min(m, n);
  Shape batch(a.type.shape().begin(), a.type.shape().end() - 2);
  const bool full = mode == 'A';
  const DType t = Element<T>::dtype;
  const std::vector<Tensor> r =
      runCall(name<T>("gesdd"), {a},
              {a.type, tensorType(realOf(t), batch, {k}), tensorType(t, batch, {m, full ? m : k}),
               tensorType(t, batch, {full ? n : k, n}), tensorType(DType::I32, batch, {})},
              chars({{"mode", mode}}));
  for (int64_t b = 0; b < a.batch(); ++b) {
    EXPECT_EQ(r[4].info(b), 0);
    const std::vector<Z> s = r[1].vector(b);
    for (int64_t i = 0; i < k; ++i) {
      EXPECT_GE(s[i].real(), 0);
      if (i > 0) {
        EXPECT_LE(s[i].real(), s[i - 1].real()) << "descending";
      }
    }
    const Mat u = r[2].matrix(b), vt = r[3].matrix(b);
    if (mode == 'N') {
      EXPECT_EQ(norm(u) + norm(vt), 0) << "no u or vᴴ without them";
      continue;
    }
    Mat sigma(u.cols, vt.rows);
    for (int64_t i = 0; i < k; ++i) sigma(i, i) = s[i];
    const Mat want = a.matrix(b);
    EXPECT_LE(relativeError(u * sigma * vt, want, want), tol) << mode << " U·Σ·Vᴴ, matrix " << b;
    EXPECT_LE(relativeError(adjoint(u) * u, identity(u.cols), identity(u.cols)), tol)
        << mode << " UᴴU";
    EXPECT_LE(relativeError(vt * adjoint(vt), identity(vt.rows), identity(vt.rows)), tol)
        << mode << " VᴴV";
  }
}

TYPED_TEST(LapackEigenTest, GesddReconstructsTheMatrixInEveryMode) {
  using T = TypeParam;
  Inputs<T> in;
  for (Shape shape : {Shape{2, 5, 3}, Shape{3, 3, 6}, Shape{2, 2, 4, 4}}) {
    Tensor a(Type::tensor(Element<T>::dtype, shape));
    for (int64_t b = 0; b < a.batch(); ++b)
      a.setMatrix(b, in.random(shape[shape.size() - 2], shape.back()));
    for (char mode : {'A', 'S', 'N'}) checkSvd<T>(a, mode, tolerance<T>(6));
  }
  Tensor ill(Type::tensor(Element<T>::dtype, {2, 6, 6}));
  for (int64_t b = 0; b < 2; ++b)
    ill.setMatrix(b, in.conditioned(6, 6, Element<T>::eps > 1e-10 ? 1e-6 : 1e-12));
  checkSvd<T>(ill, 'A', tolerance<T>(6));
}

TYPED_TEST(LapackEigenTest, GeevGivesRightAndLeftEigenvectorsAndRejectsNonFiniteInput) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t n = 5;
  const DType t = Element<T>::dtype;
  const DType c = Element<T>::complex ? t : *complexOf(t);
  Tensor a(Type::tensor(t, {3, n, n}));
  a.setMatrix(0, in.random(n, n));
  a.setMatrix(1, in.conditioned(n, n, 1e-4));
  Mat bad = in.random(n, n);
  bad(2, 3) = std::numeric_limits<double>::infinity();
  a.setMatrix(2, bad);
  const Type values = Type::tensor(t, {3, n}), vectors = Type::tensor(c, {3, n, n}),
             info = Type::tensor(DType::I32, {3});
  std::vector<Type> results = {values, vectors, vectors, info};
  if (!Element<T>::complex) results.insert(results.begin(), values);
  const std::vector<Tensor> r = runCall(name<T>("geev"), {a}, results,
                                        chars({{"compute_left", 'V'}, {"compute_right", 'V'}}));
  const size_t first = Element<T>::complex ? 1 : 2;  // where vl is
  for (int64_t b = 0; b < 2; ++b) {
    EXPECT_EQ(r.back().info(b), 0);
    std::vector<Z> w = r[0].vector(b);
    if (!Element<T>::complex) {
      const std::vector<Z> imag = r[1].vector(b);
      for (int64_t i = 0; i < n; ++i) w[i] = Z(w[i].real(), imag[i].real());
    }
    const Mat ab = a.matrix(b), vl = r[first].matrix(b), vr = r[first + 1].matrix(b);
    // Conditioned eigenvalue problems lose accuracy with the eigenvector condition.
    const double tol = tolerance<T>(n) * (b == 1 ? 100 : 1);
    EXPECT_LE(relativeError(ab * vr, vr * diagonal(w), ab), tol) << "A·VR = VR·Λ, matrix " << b;
    EXPECT_LE(relativeError(adjoint(vl) * ab, diagonal(w) * adjoint(vl), ab), tol)
        << "VLᴴ·A = Λ·VLᴴ, matrix " << b;
    for (int64_t j = 0; j < n; ++j) {
      double column = 0;
      for (int64_t i = 0; i < n; ++i) column += std::norm(vr(i, j));
      EXPECT_NEAR(column, 1, tolerance<T>(n)) << "unit eigenvectors";
    }
  }
  EXPECT_EQ(r.back().info(2), -4);
}

TYPED_TEST(LapackEigenTest, GeesGivesAUnitaryZAndAQuasiTriangularT) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t n = 6;
  const DType t = Element<T>::dtype;
  Tensor a(Type::tensor(t, {2, n, n}));
  a.setMatrix(0, in.random(n, n));
  a.setMatrix(1, in.conditioned(n, n, Element<T>::eps > 1e-10 ? 1e-6 : 1e-12));
  const Type values = Type::tensor(t, {2, n}), i32 = Type::tensor(DType::I32, {2});
  std::vector<Type> results = {a.type, a.type, values, i32, i32};
  if (!Element<T>::complex) results.insert(results.begin() + 3, values);
  const std::vector<Tensor> r =
      runCall(name<T>("gees"), {a}, results, chars({{"mode", 'V'}, {"sort", 'N'}}));
  for (int64_t b = 0; b < 2; ++b) {
    EXPECT_EQ(r.back().info(b), 0);
    EXPECT_EQ(r[r.size() - 2].info(b), 0) << "sdim without ordering";
    const Mat tb = r[0].matrix(b), z = r[1].matrix(b), ab = a.matrix(b);
    EXPECT_LE(relativeError(z * tb * adjoint(z), ab, ab), tolerance<T>(n))
        << "Z·T·Zᴴ = A, matrix " << b;
    EXPECT_LE(relativeError(adjoint(z) * z, identity(n), identity(n)), tolerance<T>(n))
        << "ZᴴZ = I";
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j + 1 < i; ++j) EXPECT_EQ(tb(i, j), Z(0)) << "below the subdiagonal";
    for (int64_t i = 1; i < n; ++i) {
      if (Element<T>::complex) {
        EXPECT_EQ(tb(i, i - 1), Z(0)) << "complex Schur forms are triangular";
      } else if (i + 1 < n && tb(i, i - 1) != Z(0)) {
        // Real ones have 2x2 blocks on the diagonal, never two subdiagonal entries in a row.
        EXPECT_EQ(tb(i + 1, i), Z(0));
      }
    }
  }
}

// The product of the elementary reflectors H(i) = I - tau_i v_i v_iᴴ in `order`, where
// v_i has a 1 at `one(i)`, zeros outside `[from(i), to(i))` and `a`'s column `col(i)`
// rows elsewhere.
template <class One, class Col>
Mat reflectorProduct(const Mat& a, const std::vector<Z>& tau, bool reversed, One one, Col column) {
  const int64_t n = a.rows;
  Mat q = identity(n);
  for (size_t s = 0; s < tau.size(); ++s) {
    const int64_t i = reversed ? static_cast<int64_t>(tau.size() - 1 - s) : static_cast<int64_t>(s);
    Mat v(n, 1);
    for (int64_t r = 0; r < n; ++r) v(r, 0) = column(i, r);
    v(one(i), 0) = 1;
    q = q * (identity(n) - scaled(v * adjoint(v), tau[static_cast<size_t>(i)]));
  }
  return q;
}

TYPED_TEST(LapackEigenTest, GehrdReflectorsReduceToHessenberg) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t n = 6;
  const DType t = Element<T>::dtype;
  Tensor a(Type::tensor(t, {2, n, n}));
  a.setMatrix(0, in.random(n, n));
  a.setMatrix(1, in.conditioned(n, n, 1e-5));
  const std::vector<Tensor> r = runCall(
      name<T>("gehrd"), {a}, {a.type, Type::tensor(t, {2, n - 1}), Type::tensor(DType::I32, {2})},
      "high = " + std::to_string(n) + " : i32, low = 1 : i32");
  for (int64_t b = 0; b < 2; ++b) {
    EXPECT_EQ(r[2].info(b), 0);
    const Mat packed = r[0].matrix(b);
    Mat h(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = std::max<int64_t>(i - 1, 0); j < n; ++j) h(i, j) = packed(i, j);
    // H(i): v(0..i) = 0, v(i+1) = 1, v(i+2..) below the subdiagonal of column i; Q = H(0)..H(n-2).
    const Mat q = reflectorProduct(
        packed, r[1].vector(b), false, [](int64_t i) { return i + 1; },
        [&](int64_t i, int64_t row) { return row > i + 1 ? packed(row, i) : Z(0); });
    const Mat ab = a.matrix(b);
    EXPECT_LE(relativeError(q * h * adjoint(q), ab, ab), tolerance<T>(n))
        << "Q·H·Qᴴ = A, matrix " << b;
    EXPECT_LE(relativeError(adjoint(q) * q, identity(n), identity(n)), tolerance<T>(n))
        << "QᴴQ = I";
  }
}

TYPED_TEST(LapackEigenTest, SytrdReflectorsReduceToRealTridiagonalFromEitherTriangle) {
  using T = TypeParam;
  Inputs<T> in;
  const int64_t n = 6;
  const DType t = Element<T>::dtype, real = realOf(t);
  Tensor a(Type::tensor(t, {2, n, n}));
  for (int64_t b = 0; b < 2; ++b) {
    Mat h = b == 0 ? in.hermitian(n) : in.positiveDefinite(n, 1e-5);
    for (int64_t i = 0; i < n; ++i) h(i, i) = h(i, i).real();
    a.setMatrix(b, h);
  }
  const std::string routine = Element<T>::complex ? "hetrd" : "sytrd";
  for (char uplo : {'L', 'U'}) {
    const std::vector<Tensor> r =
        runCall(name<T>(routine.c_str()), {a},
                {a.type, Type::tensor(real, {2, n}), Type::tensor(real, {2, n - 1}),
                 Type::tensor(t, {2, n - 1}), Type::tensor(DType::I32, {2})},
                chars({{"uplo", uplo}}));
    for (int64_t b = 0; b < 2; ++b) {
      EXPECT_EQ(r[4].info(b), 0);
      const std::vector<Z> d = r[1].vector(b), e = r[2].vector(b);
      Mat tri = diagonal(d);
      for (int64_t i = 0; i + 1 < n; ++i) tri(i + 1, i) = tri(i, i + 1) = e[i];
      const Mat packed = r[0].matrix(b);
      // 'L': H(i) has v(i+1) = 1 and column i below it, Q = H(0)..H(n-2); 'U': H(i) has
      // v(i) = 1 and column i+1 above it, Q = H(n-2)..H(0).
      const Mat q =
          uplo == 'L'
              ? reflectorProduct(
                    packed, r[3].vector(b), false, [](int64_t i) { return i + 1; },
                    [&](int64_t i, int64_t row) { return row > i + 1 ? packed(row, i) : Z(0); })
              : reflectorProduct(
                    packed, r[3].vector(b), true, [](int64_t i) { return i; },
                    [&](int64_t i, int64_t row) { return row < i ? packed(row, i + 1) : Z(0); });
      const Mat ab = a.matrix(b);
      EXPECT_LE(relativeError(q * tri * adjoint(q), ab, ab), tolerance<T>(n))
          << uplo << " Q·T·Qᴴ = A, matrix " << b;
    }
  }
}

}  // namespace
}  // namespace kiln::kernels::lapack_test
