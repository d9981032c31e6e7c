// Ops whose region is an elementwise computation, decomposed by applying it to whole
// tensors: stablehlo.map (the computation once, on the operands), and reduce_window (a
// fold over the window's positions, each a strided slice of the padded inputs). The
// transforms differentiate and batch these through them (the registry's DecomposeFn).
#pragma once

#include <vector>

#include "ir/op_registry.h"

namespace kiln {

// The computation's ops rebuilt on tensors of the result's shape: scalar constants
// become splats, elementwise ops take the full tensors; nothing (the op stays) when the
// computation holds anything else or the map does not cover every dimension.
std::vector<Value*> decomposeMap(Builder& b, const Op& op);

// The spec's meaning of reduce_window spelled out: the inputs padded with their init
// values (edges and base dilation holes), then for each position of the window, in
// order, the body applied to the accumulators and that position's strided slice. The
// order of a reduction is the implementation's to choose, so this is reduce_window for
// any body; it is the transforms' route for bodies without rules of their own
// (cumlogsumexp, complex cummax). Nothing when the body is not elementwise or the window
// has more than kMaxUnrolledWindow positions (each is a slice of the result's size).
inline constexpr int64_t kMaxUnrolledWindow = 4096;
std::vector<Value*> decomposeReduceWindow(Builder& b, const Op& op);

}  // namespace kiln
