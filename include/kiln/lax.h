// Structured control flow (jax.lax): loops and branches whose bodies are traced once into
// the program (a stablehlo.while / if / case), not unrolled by C++. Bodies are C++
// callables of trees; their results must have the structure, dtypes and shapes of the
// loop carry (JAX's rule). Values the bodies close over are passed in as loop-invariant
// operands. They compose with the transformations: grad through fori_loop and scan (trip
// counts known when traced), vmap of all of them.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "kiln/numpy.h"
#include "kiln/transforms.h"

namespace kiln {

namespace detail {
std::vector<Array> whileLoop(const FlatFn& cond, const FlatFn& body, const std::vector<Array>& init);
// Runs branches[index] (index clamped to the branches, as lax.switch) on the operands.
std::vector<Array> switchBranches(const Array& index, const std::vector<FlatFn>& branches,
                                  const std::vector<Array>& operands);
// f(carry..., x slices...) -> (carry..., ys...) over the leading axis of xs (length
// steps; xs may be empty), stacking the ys.
std::vector<Array> scanLoop(const FlatFn& f, size_t numCarry, const std::vector<Array>& init,
                            const std::vector<Array>& xs, int64_t length, bool reverse);
}  // namespace detail

namespace lax {

// while cond(carry): carry = body(carry); returns the last carry.
template <class C, class Cond, class Body>
C while_loop(Cond cond, Body body, const C& init) {
  detail::FlatFn c = [&](const std::vector<Array>& in) { return std::vector<Array>{cond(tree_unflatten(init, in))}; };
  detail::FlatFn b = [&](const std::vector<Array>& in) { return tree_leaves(C(body(tree_unflatten(init, in)))); };
  return tree_unflatten(init, detail::whileLoop(c, b, tree_leaves(init)));
}

// for i in [lower, upper): carry = body(i, carry), i an int32 scalar array.
template <class C, class Body>
C fori_loop(int64_t lower, int64_t upper, Body body, const C& init) {
  auto state = std::pair<Array, C>{full({}, static_cast<int32_t>(lower), int32), init};
  auto done = while_loop([upper](const std::pair<Array, C>& s) { return less(s.first, static_cast<int32_t>(upper)); },
                         [&](const std::pair<Array, C>& s) {
                           return std::pair<Array, C>{add(s.first, 1), C(body(s.first, s.second))};
                         },
                         state);
  return done.second;
}

// pred ? true_fn(operands...) : false_fn(operands...); both return the same structure.
template <class T, class F, class... Ops>
auto cond(const Array& pred, T true_fn, F false_fn, const Ops&... operands) {
  using R = std::decay_t<std::invoke_result_t<T&, const Ops&...>>;
  std::vector<Array> leaves = detail::leavesOf(operands...);
  auto result = std::make_shared<std::optional<R>>();
  // lax.cond's branch 0 is the false one.
  std::vector<Array> out = detail::switchBranches(
      astype(pred, int32),
      {detail::recording(false_fn, result, operands...), detail::recording(true_fn, result, operands...)}, leaves);
  return tree_unflatten(**result, out);
}

// branches[index](operands...), index clamped into range (lax.switch).
template <class F, class... Ops>
auto switch_(const Array& index, const std::vector<F>& branches, const Ops&... operands) {
  using R = std::decay_t<std::invoke_result_t<const F&, const Ops&...>>;
  auto result = std::make_shared<std::optional<R>>();
  std::vector<detail::FlatFn> flat;
  for (const F& fn : branches) flat.push_back(detail::recording(fn, result, operands...));
  std::vector<Array> out = detail::switchBranches(index, flat, detail::leavesOf(operands...));
  return tree_unflatten(**result, out);
}

// lax.scan: f(carry, x) returns (carry, y); x runs over the leading axis of xs (a tree;
// every leaf the same length); returns the last carry and the ys stacked along a new
// leading axis. `length` is needed only when xs has no leaves.
template <class C, class X, class F>
auto scan(F f, const C& init, const X& xs, std::optional<int64_t> length = std::nullopt, bool reverse = false) {
  using Out = std::decay_t<std::invoke_result_t<F&, const C&, const X&>>;
  using Y = std::decay_t<decltype(std::declval<Out>().second)>;
  std::vector<Array> xLeaves = tree_leaves(xs);
  int64_t n = length ? *length : (xLeaves.empty() ? -1 : xLeaves[0].dim(0));
  if (n < 0) throw ApiError("usage", "scan: xs has no arrays; give the length");
  auto ys = std::make_shared<std::optional<Y>>();
  size_t numCarry = tree_leaves(init).size();
  detail::FlatFn flat = [&, ys](const std::vector<Array>& in) {
    std::vector<Array> carryIn(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(numCarry));
    std::vector<Array> xIn(in.begin() + static_cast<std::ptrdiff_t>(numCarry), in.end());
    // Each slice has the structure of xs (its leaves without the leading axis).
    Out out = f(tree_unflatten(init, carryIn), tree_unflatten(xs, xIn));
    std::vector<Array> leaves = tree_leaves(C(out.first));
    for (const Array& y : tree_leaves(out.second)) leaves.push_back(y);
    if (!*ys) ys->emplace(out.second);
    return leaves;
  };
  std::vector<Array> out = detail::scanLoop(flat, numCarry, tree_leaves(init), xLeaves, n, reverse);
  std::vector<Array> carry(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(numCarry));
  std::vector<Array> stacked(out.begin() + static_cast<std::ptrdiff_t>(numCarry), out.end());
  return std::pair<C, Y>{tree_unflatten(init, carry), tree_unflatten(**ys, stacked)};
}

}  // namespace lax
}  // namespace kiln
