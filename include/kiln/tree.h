// Trees of arrays (JAX's pytrees): the nested structures that transformed functions take
// and return. A tree is an Array (a leaf); a std::vector, std::array, std::map with string
// keys, std::pair or std::tuple of trees; a struct that lists its fields with KILN_TREE;
// or a C scalar (bool, integer, floating point), which is a static part of the tree:
// not a leaf, but part of its structure, so jit compiles again when it changes (JAX's
// static_argnums).
//
//   struct Dense { kiln::Array w, b; KILN_TREE(w, b) };
//   std::map<std::string, Dense> params;   // a tree with 2 leaves per entry
//
// Tree<T> says how: leaves() appends T's arrays in a fixed order, rebuild() makes a T
// shaped like an example with the next arrays of a list, describe() writes the
// structure and static values (the part of a jit signature that is not the leaves).
#pragma once

#include <array>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/array.h"

// Inside a struct: its fields, in order, are its subtrees.
#define KILN_TREE(...)                                               \
  auto kiln_tree_fields() { return std::tie(__VA_ARGS__); }          \
  auto kiln_tree_fields() const { return std::tie(__VA_ARGS__); }

namespace kiln {

template <class T, class Enable = void>
struct Tree {
  static_assert(sizeof(T) == 0,
                "kiln: not a tree (use Array, containers of trees, C scalars, or a struct with KILN_TREE)");
};

template <>
struct Tree<Array> {
  static void leaves(const Array& a, std::vector<Array>& out) { out.push_back(a); }
  static Array rebuild(const Array&, const Array*& next) { return *next++; }
  static void describe(const Array&, std::string& out) { out += '*'; }
};

template <class T>
struct Tree<T, std::enable_if_t<std::is_arithmetic_v<T>>> {
  static void leaves(const T&, std::vector<Array>&) {}
  static T rebuild(const T& like, const Array*&) { return like; }
  static void describe(const T& value, std::string& out) { out += "=" + std::to_string(value) + ";"; }
};

template <class T>
struct Tree<std::vector<T>> {
  static void leaves(const std::vector<T>& v, std::vector<Array>& out) {
    for (const T& x : v) Tree<T>::leaves(x, out);
  }
  static std::vector<T> rebuild(const std::vector<T>& like, const Array*& next) {
    std::vector<T> v;
    v.reserve(like.size());
    for (const T& x : like) v.push_back(Tree<T>::rebuild(x, next));
    return v;
  }
  static void describe(const std::vector<T>& v, std::string& out) {
    out += "[" + std::to_string(v.size()) + ":";
    for (const T& x : v) Tree<T>::describe(x, out);
    out += "]";
  }
};

template <class T, size_t N>
struct Tree<std::array<T, N>> {
  static void leaves(const std::array<T, N>& v, std::vector<Array>& out) {
    for (const T& x : v) Tree<T>::leaves(x, out);
  }
  static std::array<T, N> rebuild(const std::array<T, N>& like, const Array*& next) {
    std::array<T, N> v = like;
    for (size_t i = 0; i < N; ++i) v[i] = Tree<T>::rebuild(like[i], next);
    return v;
  }
  static void describe(const std::array<T, N>& v, std::string& out) {
    out += "[";
    for (const T& x : v) Tree<T>::describe(x, out);
    out += "]";
  }
};

template <class T>
struct Tree<std::map<std::string, T>> {
  static void leaves(const std::map<std::string, T>& m, std::vector<Array>& out) {
    for (const auto& [key, x] : m) Tree<T>::leaves(x, out);
  }
  static std::map<std::string, T> rebuild(const std::map<std::string, T>& like, const Array*& next) {
    std::map<std::string, T> m;
    for (const auto& [key, x] : like) m.emplace(key, Tree<T>::rebuild(x, next));
    return m;
  }
  static void describe(const std::map<std::string, T>& m, std::string& out) {
    out += "{";
    for (const auto& [key, x] : m) {
      out += key + ":";
      Tree<T>::describe(x, out);
      out += ",";
    }
    out += "}";
  }
};

template <class... Ts>
struct Tree<std::tuple<Ts...>> {
  using T = std::tuple<Ts...>;
  static void leaves(const T& t, std::vector<Array>& out) {
    std::apply([&](const auto&... x) { (Tree<std::decay_t<decltype(x)>>::leaves(x, out), ...); }, t);
  }
  static T rebuild(const T& like, const Array*& next) {
    // Braced initialization evaluates left to right, so the leaves are taken in order.
    return std::apply([&](const auto&... x) { return T{Tree<std::decay_t<decltype(x)>>::rebuild(x, next)...}; },
                      like);
  }
  static void describe(const T& t, std::string& out) {
    out += "(";
    std::apply([&](const auto&... x) { (Tree<std::decay_t<decltype(x)>>::describe(x, out), ...); }, t);
    out += ")";
  }
};

template <class A, class B>
struct Tree<std::pair<A, B>> {
  using T = std::pair<A, B>;
  static void leaves(const T& t, std::vector<Array>& out) {
    Tree<A>::leaves(t.first, out);
    Tree<B>::leaves(t.second, out);
  }
  static T rebuild(const T& like, const Array*& next) {
    A a = Tree<A>::rebuild(like.first, next);
    B b = Tree<B>::rebuild(like.second, next);
    return T{std::move(a), std::move(b)};
  }
  static void describe(const T& t, std::string& out) {
    out += "(";
    Tree<A>::describe(t.first, out);
    Tree<B>::describe(t.second, out);
    out += ")";
  }
};

// A struct with KILN_TREE: its fields as a tuple of references.
template <class T>
struct Tree<T, std::void_t<decltype(std::declval<const T&>().kiln_tree_fields())>> {
  static void leaves(const T& t, std::vector<Array>& out) {
    std::apply([&](const auto&... x) { (Tree<std::decay_t<decltype(x)>>::leaves(x, out), ...); },
               t.kiln_tree_fields());
  }
  static T rebuild(const T& like, const Array*& next) {
    T t = like;
    auto fields = t.kiln_tree_fields();
    std::apply([&](auto&... x) { ((x = Tree<std::decay_t<decltype(x)>>::rebuild(x, next)), ...); }, fields);
    return t;
  }
  static void describe(const T& t, std::string& out) {
    out += "<";
    std::apply([&](const auto&... x) { (Tree<std::decay_t<decltype(x)>>::describe(x, out), ...); },
               t.kiln_tree_fields());
    out += ">";
  }
};

// The leaves of a tree, in order.
template <class T>
std::vector<Array> tree_leaves(const T& tree) {
  std::vector<Array> out;
  Tree<T>::leaves(tree, out);
  return out;
}

// A tree shaped like `like` holding `leaves` (as many as like has); throws "usage" when
// the count differs.
template <class T>
T tree_unflatten(const T& like, const std::vector<Array>& leaves) {
  size_t expected = tree_leaves(like).size();
  if (leaves.size() != expected)
    throw ApiError("usage", "tree_unflatten: " + std::to_string(leaves.size()) + " leaves for a tree of " +
                                std::to_string(expected));
  const Array* next = leaves.data();
  return Tree<T>::rebuild(like, next);
}

namespace detail {
template <class F, size_t N, size_t... K>
Array applyToLeaf(F& f, const Array& x, [[maybe_unused]] const std::array<std::vector<Array>, N>& rest,
                  [[maybe_unused]] size_t i,
                  std::index_sequence<K...>) {
  return f(x, rest[K][i]...);
}
}  // namespace detail

// f applied to the leaves of `tree` (and the matching leaves of `others`, trees of the
// same structure), in a tree of the same structure: jax.tree.map.
template <class F, class T, class... Rest>
T tree_map(F f, const T& tree, const Rest&... others) {
  std::vector<Array> leaves = tree_leaves(tree);
  std::array<std::vector<Array>, sizeof...(Rest)> rest{tree_leaves(others)...};
  for (const std::vector<Array>& r : rest)
    if (r.size() != leaves.size())
      throw ApiError("usage", "tree_map: trees of " + std::to_string(leaves.size()) + " and " +
                                  std::to_string(r.size()) + " leaves");
  std::vector<Array> mapped;
  mapped.reserve(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i)
    mapped.push_back(detail::applyToLeaf(f, leaves[i], rest, i, std::index_sequence_for<Rest...>{}));
  return tree_unflatten(tree, mapped);
}

}  // namespace kiln
