// Element-by-element maps over Literals, instantiated per compute type (element.h).
// The callable is a generic lambda; kernels use `if constexpr` on its argument type.
// Each map instantiates only the type pairs it needs: mapping every input type to every
// output type is for convert alone.
#pragma once

#include "interp/element.h"

namespace kiln::interp {

// out[i] = f(a[i]), same dtype.
template <class F>
Literal mapUnary(const Literal& a, F&& f) {
  Literal out(a.type());
  visitDType(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Reader<T> ra(a);
    Writer<T> w(out);
    for (int64_t i = 0, n = a.numElements(); i < n; ++i) w.set(i, static_cast<T>(f(ra[i])));
  });
  return out;
}

// out[i] = f(a[i], b[i]), same dtype.
template <class F>
Literal mapBinary(const Literal& a, const Literal& b, F&& f) {
  Literal out(a.type());
  visitDType(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Reader<T> ra(a), rb(b);
    Writer<T> w(out);
    for (int64_t i = 0, n = a.numElements(); i < n; ++i) w.set(i, static_cast<T>(f(ra[i], rb[i])));
  });
  return out;
}

// out[i] = f(a[i]) or f(a[i], b[i]) as i1 (predicates, comparisons).
template <class F>
Literal mapToBool(const Literal& a, F&& f) {
  Literal out(a.type().withDType(DType::I1));
  visitDType(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Reader<T> ra(a);
    Writer<bool> w(out);
    for (int64_t i = 0, n = a.numElements(); i < n; ++i) w.set(i, f(ra[i]));
  });
  return out;
}

template <class F>
Literal mapToBool(const Literal& a, const Literal& b, F&& f) {
  Literal out(a.type().withDType(DType::I1));
  visitDType(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Reader<T> ra(a), rb(b);
    Writer<bool> w(out);
    for (int64_t i = 0, n = a.numElements(); i < n; ++i) w.set(i, f(ra[i], rb[i]));
  });
  return out;
}

// out[i] = f(a[i]) with `outType` = the part type of a complex `a` (abs, real, imag).
template <class F>
Literal mapComplexToPart(const Literal& a, F&& f) {
  DType part = complexPart(a.dtype());
  Literal out(a.type().withDType(part));
  visitDType(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsComplex<T>) {
      using P = typename T::value_type;
      Reader<T> ra(a);
      Writer<P> w(out);
      for (int64_t i = 0, n = a.numElements(); i < n; ++i) w.set(i, static_cast<P>(f(ra[i])));
    }
  });
  return out;
}

// out[i] = f(a[i]) for any input and output dtypes (convert): f gets the input compute
// type and a TypeTag of the output's.
template <class F>
Literal mapConvert(const Literal& a, DType outType, F&& f) {
  Literal out(a.type().withDType(outType));
  visitDType(a.dtype(), [&](auto in) {
    using In = typename decltype(in)::type;
    visitDType(outType, [&](auto o) {
      using Out = typename decltype(o)::type;
      Reader<In> ra(a);
      Writer<Out> w(out);
      for (int64_t i = 0, n = a.numElements(); i < n; ++i) w.set(i, f(ra[i], o));
    });
  });
  return out;
}

}  // namespace kiln::interp
