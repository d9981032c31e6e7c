// Optimizers as pure functions over parameter trees, as optax writes them: init(params)
// makes the state, update(grads, state, params) returns the updates and the new state,
// apply_updates(params, updates) adds them. States are trees, so a whole training step
// can be jitted.
//
//   kiln::optim::Adam opt{.learning_rate = 1e-3};
//   auto state = opt.init(params);
//   auto [updates, next] = opt.update(grads, state, params);
//   params = kiln::optim::apply_updates(params, updates);
#pragma once

#include <utility>

#include "kiln/numpy.h"
#include "kiln/tree.h"

namespace kiln::optim {

template <class P>
P apply_updates(const P& params, const P& updates) {
  return tree_map([](const Array& p, const Array& u) { return p + u; }, params, updates);
}

// Stochastic gradient descent, with heavy-ball momentum when momentum > 0 (optax.sgd).
template <class P>
struct SgdState {
  P velocity;
  KILN_TREE(velocity)
};

struct Sgd {
  double learning_rate = 1e-2;
  double momentum = 0;

  template <class P>
  SgdState<P> init(const P& params) const {
    return {tree_map([](const Array& p) { return zeros_like(p); }, params)};
  }
  template <class P>
  std::pair<P, SgdState<P>> update(const P& grads, const SgdState<P>& state, const P& = {}) const {
    double m = momentum, lr = learning_rate;
    P velocity = m > 0 ? tree_map([m](const Array& v, const Array& g) { return v * m + g; }, state.velocity, grads)
                       : grads;
    P updates = tree_map([lr](const Array& v) { return v * -lr; }, velocity);
    return {std::move(updates), SgdState<P>{m > 0 ? std::move(velocity) : state.velocity}};
  }
};

// Adam (optax.adam), and AdamW when weight_decay > 0 (decoupled: optax.adamw, which
// decays every parameter by learning_rate * weight_decay).
template <class P>
struct AdamState {
  Array count;  // int32 steps taken
  P mu, nu;     // first and second moments
  KILN_TREE(count, mu, nu)
};

struct Adam {
  double learning_rate = 1e-3;
  double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  double weight_decay = 0;

  template <class P>
  AdamState<P> init(const P& params) const {
    // Two trees of zeros, not one shared by both moments: a step that donates its state
    // (jit's donateArgnums) gives each buffer once.
    auto zero = [&] { return tree_map([](const Array& p) { return zeros_like(p); }, params); };
    return {zeros({}, int32), zero(), zero()};
  }
  template <class P>
  std::pair<P, AdamState<P>> update(const P& grads, const AdamState<P>& state, const P& params = {}) const {
    double b1_ = b1, b2_ = b2, eps_ = eps, lr = learning_rate, wd = weight_decay;
    Array count = state.count + 1;
    P mu = tree_map([b1_](const Array& m, const Array& g) { return m * b1_ + g * (1 - b1_); }, state.mu, grads);
    P nu = tree_map([b2_](const Array& v, const Array& g) { return v * b2_ + g * g * (1 - b2_); }, state.nu, grads);
    Array t = astype(count, float32);
    Array scale1 = 1.0 / (1.0 - power(Array(b1_), t));
    Array scale2 = 1.0 / (1.0 - power(Array(b2_), t));
    P updates = tree_map(
        [&](const Array& m, const Array& v) { return (m * scale1) / (sqrt(v * scale2) + eps_) * -lr; }, mu, nu);
    if (wd > 0) updates = tree_map([&](const Array& u, const Array& p) { return u - p * (lr * wd); }, updates, params);
    return {std::move(updates), AdamState<P>{count, std::move(mu), std::move(nu)}};
  }
};

}  // namespace kiln::optim
