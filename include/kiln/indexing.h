// NumPy-style indexing of kiln::Array, with jax.numpy's semantics, and JAX's functional
// index updates:
//
//   a[2]                      the row 2 (a negative index counts from the end)
//   a[{1, s(2, 8, 2)}]        a[1, 2:8:2]
//   a[{ellipsis, newaxis}]    a[..., None]
//   a[{idx, all, idx2}]       integer arrays: a gather (NumPy's advanced indexing)
//   a.at({i, all}).add(v)     a.at[i, :].add(v): a copy of `a` with the update applied
//
// Integers, slices, newaxis, one ellipsis and integer arrays mix freely. Integer arrays
// (and integers beside them) broadcast together; their dimensions take the place of the
// first of them when they are adjacent, and come first otherwise, as in NumPy.
// Out-of-range integers are an error ("shape"); out-of-range entries of index arrays are
// clamped when reading and dropped when updating, as JAX does (its sharp bits). Boolean
// masks are not indices (their result's shape would depend on the values: use where).
// This header needs nothing but the standard library.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

#include "kiln/array.h"

namespace kiln {

// start:stop:step. A missing bound is the end the step starts from or runs to; negative
// bounds count from the end; bounds past the ends are clamped (as in Python).
struct Slice {
  std::optional<int64_t> start, stop;
  int64_t step = 1;
};
inline Slice s(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
               int64_t step = 1) {
  return Slice{start, stop, step};
}
inline const Slice all{};  // `:`
struct NewAxis {};
inline constexpr NewAxis newaxis{};  // None: a new axis of size 1
struct Ellipsis {};
inline constexpr Ellipsis ellipsis{};  // `...`: as many whole axes as the others leave

// One entry of an index expression. Each keeps the caller's source position (the op's
// location in a traced program).
class Index {
 public:
  enum class Kind { Integer, Slice, NewAxis, Ellipsis, Array };
  Index(int64_t i, std::source_location site = std::source_location::current())
      : kind(Kind::Integer), integer(i), site(site) {}
  Index(int i, std::source_location site = std::source_location::current())
      : kind(Kind::Integer), integer(i), site(site) {}
  Index(Slice s, std::source_location site = std::source_location::current())
      : kind(Kind::Slice), slice(s), site(site) {}
  Index(NewAxis, std::source_location site = std::source_location::current()) : kind(Kind::NewAxis), site(site) {}
  Index(Ellipsis, std::source_location site = std::source_location::current()) : kind(Kind::Ellipsis), site(site) {}
  // An array of integers: each element picks one position along its axis.
  Index(const kiln::Array& a, std::source_location site = std::source_location::current())
      : kind(Kind::Array), array(a), site(site) {}

  Kind kind;
  int64_t integer = 0;
  Slice slice;
  kiln::Array array;
  std::source_location site;
};

// a.at(index): what JAX spells a.at[index]. Each method returns a new array: `a` with
// the update applied where the index points (v broadcast to the shape of a[index] and
// converted to a's dtype). Where an index array names a position twice, add and multiply
// apply every update; set keeps one of them (which is unspecified, as in JAX).
class IndexUpdate {
 public:
  IndexUpdate(kiln::Array array, std::vector<Index> index) : array_(std::move(array)), index_(std::move(index)) {}
  kiln::Array get() const;
  kiln::Array set(const kiln::Array& v) const;
  kiln::Array add(const kiln::Array& v) const;
  kiln::Array multiply(const kiln::Array& v) const;
  kiln::Array min(const kiln::Array& v) const;
  kiln::Array max(const kiln::Array& v) const;

 private:
  kiln::Array array_;
  std::vector<Index> index_;
};

}  // namespace kiln
