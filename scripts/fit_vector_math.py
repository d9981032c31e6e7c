#!/usr/bin/env python3
"""Fits the polynomial coefficients of the cpu backend's inline math
(src/backends/cpu/vector_math.cc) that are not taken from Cephes: near-minimax
polynomials by Lawson's iteratively reweighted least squares on Chebyshev nodes, with
mpmath's values as the truth. Prints each polynomial's coefficients (highest power
first, the order horner() takes them) rounded to f32, and its relative error.
   /usr/bin/python3 scripts/fit_vector_math.py
"""
import mpmath
import numpy as np

mpmath.mp.prec = 120


def lawson(xs, target, basis, iterations=60):
    """Coefficients c minimising max |sum_j c_j basis_j(x) - target(x)| (relative
    weights already folded into basis and target by the caller)."""
    a = np.array([[b(x) for b in basis] for x in xs])
    t = np.array(target)
    w = np.ones(len(xs)) / len(xs)
    for _ in range(iterations):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(a * sw[:, None], t * sw, rcond=None)
        err = np.abs(a @ c - t)
        w = w * err
        w /= w.sum()
    return c


def chebyshev_nodes(lo, hi, n):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def fit(name, lo, hi, degree, g, scale):
    """P of `degree` with g(f) ≈ P(f); the error is weighted by scale(f), the factor by
    which P's error enters the function's relative error."""
    xs = [x for x in chebyshev_nodes(lo, hi, 4000) if abs(x) > 1e-12]
    basis = [lambda x, j=j: scale(x) * x ** j for j in range(degree + 1)]
    target = [scale(x) * float(g(mpmath.mpf(x))) for x in xs]
    c = lawson(xs, target, basis)
    c32 = [float(np.float32(v)) for v in c]
    worst = max(abs(sum(cj * x ** j for j, cj in enumerate(c32)) - t / scale(x)) * scale(x)
                for x, t in zip(xs, target))
    print(f"{name}: degree {degree} on [{lo:.6g}, {hi:.6g}], weighted error {worst:.3g}")
    print("  {" + ", ".join(f"{v:.9g}" for v in reversed(c32)) + "}")


# log(1 + f) = f - f²/2 + f³·P(f) for f = m - 1, m in [sqrt(1/2), sqrt(2)).
lo, hi = float(mpmath.sqrt(0.5)) - 1, float(mpmath.sqrt(2)) - 1
fit("log", lo, hi, 7, lambda f: (mpmath.log1p(f) - f + f * f / 2) / f ** 3,
    lambda f: abs(f ** 3 / float(mpmath.log1p(f))))
# e^r - 1 = r + r²/2 + r³·Q(r) for |r| <= ln 2 / 2.
h = float(mpmath.log(2) / 2)
fit("expm1", -h, h, 4, lambda r: (mpmath.expm1(r) - r - r * r / 2) / r ** 3,
    lambda r: abs(r ** 3 / float(mpmath.expm1(r))))
