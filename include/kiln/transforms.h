// JAX's function transformations for C++ functions of trees of arrays (kiln/tree.h):
// jit, grad, value_and_grad and vmap. Each traces the function into kiln's IR (the
// callable runs once with tracers in place of arrays), transforms the IR
// (src/transforms/: the same code that differentiates imported StableHLO), and compiles
// it through the runtime. They compose in any order: jit(value_and_grad(loss)),
// vmap(grad(f)), grad(grad(f)).
//
//   auto step = kiln::jit(kiln::value_and_grad(loss));   // loss(params, x, y) -> Array
//   auto [value, grads] = step(params, x, y);            // grads: a tree like params
//
// Semantics as in JAX: a jitted function is traced once per signature (the dtypes and
// shapes of its leaves, its tree structure and static scalars) and the compiled program
// is cached; arrays it closes over are captured by value when it is traced (changing
// them later does not change the compiled program). Under an enclosing trace, jit is
// inlined. Outside jit, grad and vmap trace and transform on every call (the compiled
// program is still cached, by the program's fingerprint).
//
// Errors: ApiError. "usage" for misuse (a tracer used after its trace ended, a
// non-scalar loss, an argument that cannot be differentiated); "unsupported" naming the
// op and the user's line for an op without a rule.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kiln/numpy.h"
#include "kiln/sharding.h"
#include "kiln/tree.h"

namespace kiln {

namespace detail {

using FlatFn = std::function<std::vector<Array>(const std::vector<Array>&)>;

// Whether this thread is tracing (jit inlines then).
bool tracing();

// A function traced into a program and compiled on first run.
struct Staged;
std::shared_ptr<Staged> stage(const FlatFn& f, const std::vector<Array>& inputs, const std::string& name);
// `label` prefixes a failure of this run (default: the program's name). The inputs at
// the indices `donate` names give their buffers to the run (JitOptions::donateArgnums).
std::vector<Array> run(const Staged& staged, const std::vector<Array>& inputs, const std::string& label = "",
                       const std::vector<size_t>& donate = {});
// The same partitioned by `in` / `out` (per flat input / output leaf; missing or empty
// mesh: left to propagation) over the mesh's devices (sharding.h).
std::vector<Array> runSharded(const Staged& staged, const std::vector<Array>& inputs,
                              const std::vector<std::optional<NamedSharding>>& in,
                              const std::vector<std::optional<NamedSharding>>& out);
// The StableHLO text of f traced on `inputs`, its closed-over arrays as constants.
std::string exportedText(const FlatFn& f, const std::vector<Array>& inputs);
std::string stagedJaxpr(const Staged& staged);

// "f32[2,3]" for each leaf (weak scalars marked "~").
std::string leafTypes(const std::vector<Array>& leaves);

struct GradSpec {
  std::vector<size_t> wrt;  // which inputs
  bool withValue = false;
  bool hasAux = false;      // f returns the loss, then auxiliary outputs
};
// [value,] gradients of the wrt inputs, [aux...]
std::vector<Array> grad(const FlatFn& f, const std::vector<Array>& inputs, const GradSpec& spec);

// f's outputs, then their tangents, given tangents for every primal.
std::vector<Array> jvp(const FlatFn& f, const std::vector<Array>& primals, const std::vector<Array>& tangents);

// inAxes per input (none: not batched); every output gets its batch axis at outAxis.
std::vector<Array> vmap(const FlatFn& f, const std::vector<Array>& inputs,
                        const std::vector<std::optional<int64_t>>& inAxes, int64_t outAxis);

// The explanation of a recompilation ("argument 1: f32[64,8] -> f32[17,8]") given the
// keys of each argument of the last compile and of this one; prints it to stderr when
// `print`.
std::string explainRecompile(const std::string& name, const std::vector<std::string>& before,
                             const std::vector<std::string>& now, bool print);
bool explainRecompilesFromEnvironment();  // KILN_EXPLAIN_RECOMPILES=1

template <class T>
std::string argumentKey(const T& arg) {
  std::string key;
  Tree<T>::describe(arg, key);
  return key + leafTypes(tree_leaves(arg));
}

template <class... Args>
std::vector<Array> leavesOf(const Args&... args) {
  std::vector<Array> out;
  (Tree<Args>::leaves(args, out), ...);
  return out;
}

// How many array leaves the tree `a` has.
template <class A>
size_t leafCount(const A& a) {
  std::vector<Array> leaves;
  Tree<A>::leaves(a, leaves);
  return leaves.size();
}

// Calls f with trees shaped like `args` holding `leaves`, returning its result.
template <class F, class... Args>
auto callRebuilt(const F& f, const std::vector<Array>& leaves, const Args&... args) {
  const Array* next = leaves.data();
  std::tuple<Args...> rebuilt{Tree<Args>::rebuild(args, next)...};
  return std::apply(f, rebuilt);
}

// f as a function of flat leaves (rebuilt into trees like `args`, which must outlive
// it) that keeps its result tree in `result`: the shape its caller rebuilds outputs into.
template <class R, class F, class... Args>
FlatFn recording(const F& f, const std::shared_ptr<std::optional<R>>& result, const Args&... args) {
  return [&f, result, &args...](const std::vector<Array>& in) {
    R r = callRebuilt(f, in, args...);
    std::vector<Array> out = tree_leaves(r);
    result->emplace(std::move(r));
    return out;
  };
}

}  // namespace detail

struct JitOptions {
  std::string name = "jit";        // what messages call the function
  bool explainRecompiles = false;  // also on with KILN_EXPLAIN_RECOMPILES=1
  // jax.jit's in_shardings / out_shardings, one per flat leaf of the arguments / the
  // result (std::nullopt: left to propagation); with any, the program is partitioned
  // over the mesh's devices (kiln/sharding.h).
  std::vector<std::optional<NamedSharding>> inShardings, outShardings;
  // jax.jit's donate_argnums: the arguments (by position; every array leaf of each tree)
  // whose device buffers the call gives to the program, whose results may then be
  // written into them. A donated array can no longer be used (an error says so). Arrays
  // not on the device as one buffer (C scalars, sharded arrays) are not donated.
  std::vector<size_t> donateArgnums;
};

namespace detail {
// The flat leaf indices `options.donateArgnums` names, given each argument's number of
// leaves; a Usage error for an argument number past them.
std::vector<size_t> donatedLeaves(const JitOptions& options, const std::vector<size_t>& leafCounts);
}  // namespace detail

// f traced and compiled once per signature; see the file comment.
template <class F>
class Jitted {
 public:
  Jitted(F f, JitOptions options) : f_(std::move(f)), state_(std::make_shared<State>()) {
    state_->options = std::move(options);
    state_->options.explainRecompiles |= detail::explainRecompilesFromEnvironment();
  }

  template <class... Args>
  auto operator()(const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    if (detail::tracing()) return f_(args...);
    std::vector<Array> leaves = detail::leavesOf(args...);
    std::vector<std::string> keys{detail::argumentKey(args)...};
    std::string key;
    for (const std::string& k : keys) key += k + "|";
    auto it = state_->entries.find(key);
    if (it == state_->entries.end()) {
      auto result = std::make_shared<std::optional<R>>();
      // Which leaves are donated depends on the signature alone: worked out once, and
      // before tracing, so that a bad argnum is reported first.
      const JitOptions& o = state_->options;
      std::vector<size_t> donated =
          o.donateArgnums.empty() ? std::vector<size_t>{} : detail::donatedLeaves(o, {detail::leafCount(args)...});
      detail::FlatFn flat = detail::recording(f_, result, args...);
      Entry entry{detail::stage(flat, leaves, o.name), result, std::move(donated)};
      if (!state_->lastKeys.empty())
        state_->lastExplanation = detail::explainRecompile(state_->options.name, state_->lastKeys, keys,
                                                           state_->options.explainRecompiles);
      state_->lastKeys = keys;
      ++state_->compiles;
      it = state_->entries.emplace(key, std::move(entry)).first;
    }
    const JitOptions& o = state_->options;
    std::vector<Array> out = o.inShardings.empty() && o.outShardings.empty()
                                 ? detail::run(*it->second.staged, leaves, "", it->second.donated)
                                 : detail::runSharded(*it->second.staged, leaves, o.inShardings, o.outShardings);
    const R& like = **std::static_pointer_cast<std::optional<R>>(it->second.result);
    const Array* next = out.data();
    return Tree<R>::rebuild(like, next);
  }

  // How many signatures were traced and compiled.
  int64_t compiles() const { return state_->compiles; }
  // Why the last recompilation happened (empty before the second compile).
  const std::string& lastRecompileExplanation() const { return state_->lastExplanation; }

 private:
  struct Entry {
    std::shared_ptr<detail::Staged> staged;
    std::shared_ptr<void> result;  // std::optional<R>: the output tree's shape
    std::vector<size_t> donated;   // the flat leaves donateArgnums names
  };
  struct State {
    JitOptions options;
    std::unordered_map<std::string, Entry> entries;
    std::vector<std::string> lastKeys;
    std::string lastExplanation;
    int64_t compiles = 0;
  };
  F f_;
  std::shared_ptr<State> state_;
};

template <class F>
Jitted<F> jit(F f, JitOptions options = {}) {
  return Jitted<F>(std::move(f), std::move(options));
}

// The gradient of f's scalar result with respect to the arguments Argnums (each a tree:
// its gradient is a tree of the same structure; several argnums give a std::tuple of
// them, as JAX's argnums=(0, 1) does). f returns the loss (a float scalar), or a
// std::pair of the loss and auxiliary outputs (JAX's has_aux), which come back as f
// computed them.
template <class F, bool WithValue, size_t... Argnums>
class Differentiated {
 public:
  explicit Differentiated(F f) : f_(std::move(f)) {}

  template <class... Args>
  auto operator()(const Args&... args) const {
    static_assert(sizeof...(Argnums) > 0, "kiln::grad: no argnums");
    static_assert(((Argnums < sizeof...(Args)) && ...), "kiln::grad: an argnum beyond the arguments");
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    constexpr bool hasAux = !std::is_same_v<R, Array>;

    std::vector<Array> leaves;
    std::vector<size_t> firstLeaf;  // per argument
    detail::GradSpec spec{{}, WithValue, hasAux};
    auto addArgument = [&](auto const& arg) {
      firstLeaf.push_back(leaves.size());
      for (Array& a : tree_leaves(arg)) leaves.push_back(std::move(a));
    };
    (addArgument(args), ...);
    firstLeaf.push_back(leaves.size());
    // The wrt leaves in the order of Argnums (their gradients come back in that order).
    for (size_t argnum : {Argnums...})
      for (size_t i = firstLeaf[argnum]; i < firstLeaf[argnum + 1]; ++i) spec.wrt.push_back(i);

    auto result = std::make_shared<std::optional<R>>();
    if constexpr (hasAux)
      static_assert(std::is_same_v<std::decay_t<decltype(std::declval<R>().first)>, Array>,
                    "kiln::grad: f returns an Array or a pair (Array loss, aux)");
    detail::FlatFn flat = detail::recording(f_, result, args...);
    std::vector<Array> out = detail::grad(flat, leaves, spec);
    const Array* next = out.data();
    Array value = WithValue ? *next++ : Array();
    const auto all = std::forward_as_tuple(args...);
    auto gradientOf = [&](auto argnum) {
      using G = std::decay_t<std::tuple_element_t<decltype(argnum)::value, std::tuple<Args...>>>;
      return Tree<G>::rebuild(std::get<decltype(argnum)::value>(all), next);
    };
    auto gradients = [&] {
      if constexpr (sizeof...(Argnums) == 1) return gradientOf(std::integral_constant<size_t, Argnums...>{});
      else return std::tuple{gradientOf(std::integral_constant<size_t, Argnums>{})...};
    }();
    using Gs = decltype(gradients);
    if constexpr (hasAux) {
      using Aux = std::decay_t<decltype(std::declval<R>().second)>;
      Aux aux = Tree<Aux>::rebuild((*result)->second, next);
      if constexpr (WithValue) return std::pair<R, Gs>{R{value, std::move(aux)}, std::move(gradients)};
      else return std::pair<Gs, Aux>{std::move(gradients), std::move(aux)};
    } else {
      if constexpr (WithValue) return std::pair<Array, Gs>{value, std::move(gradients)};
      else return gradients;
    }
  }

 private:
  F f_;
};

// jax.grad: the gradient (with aux: the pair (gradient, aux)); grad<0, 2>(f) gives the
// tuple of the gradients with respect to arguments 0 and 2.
template <size_t... Argnums, class F>
auto grad(F f) {
  if constexpr (sizeof...(Argnums) == 0) return Differentiated<F, false, 0>(std::move(f));
  else return Differentiated<F, false, Argnums...>(std::move(f));
}
// jax.value_and_grad: the pair (value, gradient) (with aux: ((loss, aux), gradient)).
template <size_t... Argnums, class F>
auto value_and_grad(F f) {
  if constexpr (sizeof...(Argnums) == 0) return Differentiated<F, true, 0>(std::move(f));
  else return Differentiated<F, true, Argnums...>(std::move(f));
}

// f applied to every slice of its arguments along their in_axes (one per argument,
// applying to all its leaves; none: the argument is shared by every slice; empty: all
// 0), its result leaves batched along out_axis.
template <class F>
class Vmapped {
 public:
  Vmapped(F f, std::vector<std::optional<int64_t>> inAxes, int64_t outAxis)
      : f_(std::move(f)), inAxes_(std::move(inAxes)), outAxis_(outAxis) {}

  template <class... Args>
  auto operator()(const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    if (!inAxes_.empty() && inAxes_.size() != sizeof...(Args))
      throw ApiError("usage", "vmap: " + std::to_string(inAxes_.size()) + " in_axes for " +
                                  std::to_string(sizeof...(Args)) + " arguments");
    std::vector<Array> leaves;
    std::vector<std::optional<int64_t>> leafAxes;
    size_t index = 0;
    auto addArgument = [&](auto const& arg, size_t argIndex) {
      for (Array& a : tree_leaves(arg)) {
        leaves.push_back(std::move(a));
        leafAxes.push_back(inAxes_.empty() ? std::optional<int64_t>(0) : inAxes_[argIndex]);
      }
    };
    (addArgument(args, index++), ...);
    auto result = std::make_shared<std::optional<R>>();
    detail::FlatFn flat = detail::recording(f_, result, args...);
    std::vector<Array> out = detail::vmap(flat, leaves, leafAxes, outAxis_);
    const Array* next = out.data();
    return Tree<R>::rebuild(**result, next);
  }

 private:
  F f_;
  std::vector<std::optional<int64_t>> inAxes_;
  int64_t outAxis_;
};

template <class F>
Vmapped<F> vmap(F f, std::vector<std::optional<int64_t>> in_axes = {}, int64_t out_axis = 0) {
  return Vmapped<F>(std::move(f), std::move(in_axes), out_axis);
}

// jax.jvp: f's outputs and their directional derivatives along `tangents` (a tuple of
// trees like the primals), as the pair (outputs, output tangents).
template <class F, class... Args>
auto jvp(F f, const std::tuple<Args...>& primals, const std::tuple<Args...>& tangents) {
  auto leaves = [](const std::tuple<Args...>& t) { return std::apply([](const Args&... a) { return detail::leavesOf(a...); }, t); };
  using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
  auto result = std::make_shared<std::optional<R>>();
  detail::FlatFn flat = [&](const std::vector<Array>& in) {
    R r = std::apply([&](const Args&... a) { return detail::callRebuilt(f, in, a...); }, primals);
    std::vector<Array> out = tree_leaves(r);
    result->emplace(std::move(r));
    return out;
  };
  std::vector<Array> out = detail::jvp(flat, leaves(primals), leaves(tangents));
  std::vector<Array> value(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(out.size() / 2));
  std::vector<Array> tangent(out.begin() + static_cast<std::ptrdiff_t>(out.size() / 2), out.end());
  return std::pair<R, R>{tree_unflatten(**result, value), tree_unflatten(**result, tangent)};
}

// jax.vjp of a function of one tree: (f(x), pullback), where pullback(cotangent of the
// output, an Array like it) is the gradient of <f(x), cotangent> with respect to x.
template <class F, class X>
auto vjp(F f, const X& x) {
  using R = std::decay_t<std::invoke_result_t<const F&, const X&>>;
  static_assert(std::is_same_v<R, Array>, "kiln::vjp: f returns one Array here");
  R y = f(x);
  auto pullback = [f, x](const Array& cotangent) {
    return grad([&](const X& at) { return sum(multiply(f(at), stop_gradient(cotangent))); })(x);
  };
  return std::pair<R, decltype(pullback)>{y, pullback};
}

namespace detail {
std::vector<Array> customJvpCall(const FlatFn& primal, const FlatFn& rule, const std::vector<Array>& args,
                                 const std::source_location& site);
std::vector<Array> customVjpCall(const FlatFn& primal, const FlatFn& fwd, const FlatFn& bwd,
                                 const std::vector<Array>& args, const std::source_location& site);
std::vector<Array> checkpointCall(const FlatFn& f, const std::vector<Array>& args, const std::string& policy,
                                  const std::source_location& site);
}  // namespace detail

// jax.custom_jvp: f with its forward-mode derivative given by
// rule(primals, tangents) -> std::pair{f(primals...), tangent of the result}, where
// primals and tangents are std::tuple<Args...>. The tangent must be linear in the
// tangents (as JAX requires): reverse mode transposes it, so grad uses the rule too.
// Outside a transformation the call is f itself. Arrays the functions close over are
// constants to the rule (closing over a traced value is an error: pass it as an
// argument).
template <class F, class Rule>
class CustomJvp {
 public:
  CustomJvp(F f, Rule rule, std::source_location site) : f_(std::move(f)), rule_(std::move(rule)), site_(site) {}

  template <class... Args>
  auto operator()(const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    if (!detail::tracing()) return f_(args...);
    auto result = std::make_shared<std::optional<R>>();
    detail::FlatFn primal = detail::recording(f_, result, args...);
    detail::FlatFn rule = [&](const std::vector<Array>& in) {
      const Array* next = in.data();
      std::tuple<Args...> primals{Tree<Args>::rebuild(args, next)...};
      std::tuple<Args...> tangents{Tree<Args>::rebuild(args, next)...};
      std::pair<R, R> out = rule_(primals, tangents);
      std::vector<Array> leaves = tree_leaves(out.first);
      for (Array& a : tree_leaves(out.second)) leaves.push_back(std::move(a));
      return leaves;
    };
    std::vector<Array> out = detail::customJvpCall(primal, rule, detail::leavesOf(args...), site_);
    const Array* next = out.data();
    return Tree<R>::rebuild(**result, next);
  }

 private:
  F f_;
  Rule rule_;
  std::source_location site_;
};

template <class F, class Rule>
CustomJvp<F, Rule> custom_jvp(F f, Rule rule, std::source_location site = std::source_location::current()) {
  return CustomJvp<F, Rule>(std::move(f), std::move(rule), site);
}

// jax.custom_vjp: f with its reverse-mode derivative given by fwd(args...) ->
// std::pair{f(args...), residuals} (residuals: any tree) and bwd(residuals, cotangent of
// the result) -> the cotangents of the arguments (a std::tuple with one tree per
// argument; one argument may return its tree alone). As in JAX, forward mode (jvp) of
// a custom_vjp function is an error. Closed-over arrays: as for custom_jvp.
template <class F, class Fwd, class Bwd>
class CustomVjp {
 public:
  CustomVjp(F f, Fwd fwd, Bwd bwd, std::source_location site)
      : f_(std::move(f)), fwd_(std::move(fwd)), bwd_(std::move(bwd)), site_(site) {}

  template <class... Args>
  auto operator()(const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    using Res = std::decay_t<typename std::invoke_result_t<const Fwd&, const Args&...>::second_type>;
    if (!detail::tracing()) return f_(args...);
    auto result = std::make_shared<std::optional<R>>();
    auto residuals = std::make_shared<std::optional<Res>>();
    detail::FlatFn primal = detail::recording(f_, result, args...);
    detail::FlatFn fwd = [&](const std::vector<Array>& in) {
      auto out = detail::callRebuilt(fwd_, in, args...);
      std::vector<Array> leaves = tree_leaves(out.first);
      for (Array& a : tree_leaves(out.second)) leaves.push_back(std::move(a));
      residuals->emplace(std::move(out.second));
      return leaves;
    };
    detail::FlatFn bwd = [&](const std::vector<Array>& in) {
      const Array* next = in.data();
      Res res = Tree<Res>::rebuild(**residuals, next);
      R cotangent = Tree<R>::rebuild(**result, next);
      return tree_leaves(bwd_(res, cotangent));
    };
    std::vector<Array> out = detail::customVjpCall(primal, fwd, bwd, detail::leavesOf(args...), site_);
    const Array* next = out.data();
    return Tree<R>::rebuild(**result, next);
  }

 private:
  F f_;
  Fwd fwd_;
  Bwd bwd_;
  std::source_location site_;
};

template <class F, class Fwd, class Bwd>
CustomVjp<F, Fwd, Bwd> custom_vjp(F f, Fwd fwd, Bwd bwd, std::source_location site = std::source_location::current()) {
  return CustomVjp<F, Fwd, Bwd>(std::move(f), std::move(fwd), std::move(bwd), site);
}

// jax.checkpoint (remat): f whose intermediate values reverse mode recomputes in the
// backward pass instead of keeping them from the forward pass, except what the policy
// saves: "nothing_saveable" (the default: only the arguments are kept), "dots_saveable"
// (results of matrix products are kept too) or "everything_saveable" (no recomputation).
template <class F>
class Checkpointed {
 public:
  Checkpointed(F f, std::string policy, std::source_location site)
      : f_(std::move(f)), policy_(std::move(policy)), site_(site) {}

  template <class... Args>
  auto operator()(const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    if (!detail::tracing()) return f_(args...);
    auto result = std::make_shared<std::optional<R>>();
    detail::FlatFn flat = detail::recording(f_, result, args...);
    std::vector<Array> out = detail::checkpointCall(flat, detail::leavesOf(args...), policy_, site_);
    const Array* next = out.data();
    return Tree<R>::rebuild(**result, next);
  }

 private:
  F f_;
  std::string policy_;
  std::source_location site_;
};

template <class F>
Checkpointed<F> checkpoint(F f, std::string policy = "nothing_saveable",
                           std::source_location site = std::source_location::current()) {
  return Checkpointed<F>(std::move(f), std::move(policy), site);
}

namespace detail {
// Moves the leading axis of `a` (the basis) after the others: [n, out...] -> [out..., in...].
Array basisLast(const Array& a, const std::vector<int64_t>& in);
}  // namespace detail

// The Jacobian of f: Array -> Array at x, of shape f(x).shape + x.shape: by forward mode
// (one jvp per input element, vmapped) or reverse mode (one vjp per output element).
template <class F>
auto jacfwd(F f) {
  return [f](const Array& x) {
    Array basis = reshape(eye(x.size(), x.dtype()), [&] { std::vector<int64_t> s{x.size()}; s.insert(s.end(), x.shape().begin(), x.shape().end()); return s; }());
    Array columns = vmap([&](const Array& t) { return jvp(f, std::tuple<Array>{x}, std::tuple<Array>{t}).second; })(basis);
    return detail::basisLast(columns, x.shape());
  };
}
template <class F>
auto jacrev(F f) {
  return [f](const Array& x) {
    Array y = f(x);
    Array basis = reshape(eye(y.size(), y.dtype()), [&] { std::vector<int64_t> s{y.size()}; s.insert(s.end(), y.shape().begin(), y.shape().end()); return s; }());
    Array rows = vmap([&](const Array& ct) { return vjp(f, x).second(ct); })(basis);
    std::vector<int64_t> shape = y.shape();
    shape.insert(shape.end(), x.shape().begin(), x.shape().end());
    return reshape(rows, shape);
  };
}
// The Hessian of a scalar function: jacfwd(jacrev(f)).
template <class F>
auto hessian(F f) {
  return jacfwd(jacrev(f));
}

// The StableHLO text of f traced on arguments like `args` (its @main takes their leaves
// in order; arrays f closes over are constants of the program): what `kiln run` and
// other StableHLO tools read.
template <class F, class... Args>
std::string export_stablehlo(const F& f, const Args&... args) {
  detail::FlatFn flat = [&](const std::vector<Array>& in) {
    return tree_leaves(detail::callRebuilt(f, in, args...));
  };
  return detail::exportedText(flat, detail::leavesOf(args...));
}

// jax.make_jaxpr: make_jaxpr(f)(args...) is the program f traces to on arguments like
// `args`, in JAX's jaxpr notation (ops keep their StableHLO names; arrays f closes over
// are the constants before the ';'). For reading; export_stablehlo gives the program to
// run elsewhere.
template <class F>
auto make_jaxpr(F f) {
  return [f](const auto&... args) {
    detail::FlatFn flat = [&](const std::vector<Array>& in) {
      return tree_leaves(detail::callRebuilt(f, in, args...));
    };
    return detail::stagedJaxpr(*detail::stage(flat, detail::leavesOf(args...), "jaxpr"));
  };
}

}  // namespace kiln
