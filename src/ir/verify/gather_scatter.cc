// Type rules: gather, dynamic_gather and scatter, whose dimension numbers carry most
// of the spec's constraints (gather C1-C23, scatter C1-C25). The index-vector and
// batching rules are shared; the result shape (gather) is built from the dimension
// numbers, and the update shape (scatter) is checked against them.
#include "ir/verify/rules.h"

#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln {
namespace {

void checkUniqueSorted(const InferContext& v, const std::string& what,
                       const std::vector<int64_t>& dims, bool sorted) {
  v.check(allUnique(dims), [&] { return what + " " + shapeStr(dims) + " repeats a dimension"; });
  if (sorted)
    v.check(isSorted(dims), [&] { return what + " " + shapeStr(dims) + " must be sorted"; });
}

// The index tensor: index_vector_dim in [0, rank] (C2/C22), the index map sized by it
// (C3/C19), and the batching dimensions of the indices (C13-C16 / C14-C17).
// Returns the batch shape of the indices (their shape without index_vector_dim).
Shape checkIndices(const InferContext& v, const Type& indices, int64_t indexVectorDim,
                   const std::vector<int64_t>& indexMap, const std::string& indexMapName,
                   const std::vector<int64_t>& indicesBatching,
                   const std::string& indicesBatchingName, size_t operandBatchingCount) {
  v.check(isInteger(indices.dtype()),
          [&] { return "indices must be an integer tensor, got " + indices.str(); });
  v.check(indexVectorDim >= 0 && indexVectorDim <= indices.rank(), [&] {
    return "index_vector_dim " + std::to_string(indexVectorDim) + " is outside [0, " + std::to_string(indices.rank()) +
           "] for indices " + indices.str();
  });
  int64_t indexSize = indexVectorDim < indices.rank() ? indices.dim(indexVectorDim) : 1;
  v.check(static_cast<int64_t>(indexMap.size()) == indexSize, [&] {
    return indexMapName + " " + shapeStr(indexMap) + " must have " + std::to_string(indexSize) +
           " entries, the size of index_vector_dim " + std::to_string(indexVectorDim) + " of indices " +
           indices.str();
  });
  checkDimensions(v, indicesBatchingName, indicesBatching, indices.rank(), "indices");
  v.check(!contains(indicesBatching, indexVectorDim), [&] {
    return indicesBatchingName + " " + shapeStr(indicesBatching) +
           " must not hold index_vector_dim " + std::to_string(indexVectorDim);
  });
  v.check(indicesBatching.size() == operandBatchingCount, [&] {
    return indicesBatchingName + " " + shapeStr(indicesBatching) +
           " must have as many entries as the operand's "
           "batching dimensions (" +
           std::to_string(static_cast<int64_t>(operandBatchingCount)) + ")";
  });
  Shape batch;
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != indexVectorDim) batch.push_back(indices.dim(d));
  return batch;
}

// Operand batching dimensions pair up with index batching dimensions (gather C17, scatter C18).
void checkBatchingSizes(const InferContext& v, const Type& operand,
                        const std::vector<int64_t>& operandBatching, const Type& indices,
                        const std::vector<int64_t>& indicesBatching) {
  for (size_t i = 0; i < operandBatching.size(); ++i) {
    int64_t a = operand.dim(operandBatching[i]);
    int64_t b = indices.dim(indicesBatching[i]);
    v.check(a == b, [&] {
      return "batching dimension " + std::to_string(operandBatching[i]) + " of the operand has size " +
             std::to_string(a) + " but batching dimension " + std::to_string(indicesBatching[i]) +
             " of the indices has size " + std::to_string(b);
    });
  }
}

// `combine` of the spec: `windowSizes` at the positions `windowDims`, `batchSizes` at the others.
Shape combine(const Shape& batchSizes, const Shape& windowSizes,
              const std::vector<int64_t>& windowDims) {
  Shape out;
  size_t b = 0;
  size_t w = 0;
  for (size_t d = 0; d < batchSizes.size() + windowSizes.size(); ++d) {
    if (contains(windowDims, static_cast<int64_t>(d)))
      out.push_back(w < windowSizes.size() ? windowSizes[w++] : -1);
    else
      out.push_back(b < batchSizes.size() ? batchSizes[b++] : -1);
  }
  return out;
}

// gather and dynamic_gather; `sliceSizes` is empty for dynamic_gather with a
// non-constant slice_sizes operand, when only the batch part of the result is known.
void checkGather(InferContext& v, std::optional<std::vector<int64_t>> sliceSizes) {
  const Type& operand = v.tensorOperand(0);
  const Type& indices = v.tensorOperand(1);
  GatherDims dn = GatherDims::fromAttr(v.attr("dimension_numbers"));

  int64_t implied =
      static_cast<int64_t>(dn.offsetDims.size() + dn.collapsedSliceDims.size() + dn.operandBatchingDims.size());
  v.check(operand.rank() == implied, [&] {
    return "operand rank " + std::to_string(operand.rank()) + " must equal the sizes of offset_dims " +
           shapeStr(dn.offsetDims) + " + collapsed_slice_dims " + shapeStr(dn.collapsedSliceDims) +
           " + operand_batching_dims " + shapeStr(dn.operandBatchingDims);
  });
  Shape batch =
      checkIndices(v, indices, dn.indexVectorDim, dn.startIndexMap, "start_index_map", dn.startIndicesBatchingDims,
                   "start_indices_batching_dims", dn.operandBatchingDims.size());
  checkUniqueSorted(v, "offset_dims", dn.offsetDims, true);
  checkDimensions(v, "collapsed_slice_dims + operand_batching_dims",
                  concat(dn.collapsedSliceDims, dn.operandBatchingDims), operand.rank());
  checkUniqueSorted(v, "collapsed_slice_dims", dn.collapsedSliceDims, true);
  checkUniqueSorted(v, "operand_batching_dims", dn.operandBatchingDims, true);
  checkBatchingSizes(v, operand, dn.operandBatchingDims, indices, dn.startIndicesBatchingDims);
  checkDimensions(v, "start_index_map + operand_batching_dims",
                  concat(dn.startIndexMap, dn.operandBatchingDims), operand.rank());

  int64_t resultRank = static_cast<int64_t>(batch.size() + dn.offsetDims.size());
  checkDimensions(v, "offset_dims", dn.offsetDims, resultRank, "result");

  if (!sliceSizes) {
    // Only the element type, the rank and the batch dimensions are known; the batch
    // dimensions sit where offset_dims are not.
    v.inferDType(0, operand.dtype(), [] { return "the operand element type"; });
    const Type& result = v.givenTensor(0);
    v.check(result.rank() == resultRank, [&] {
      return "result rank " + std::to_string(result.rank()) + " must be " + std::to_string(resultRank) +
             " (the batch dimensions " + shapeStr(batch) + " of the indices plus " +
             std::to_string(static_cast<int64_t>(dn.offsetDims.size())) + " offset_dims)";
    });
    Shape got;
    for (int64_t d = 0; d < result.rank(); ++d)
      if (!contains(dn.offsetDims, d)) got.push_back(result.dim(d));
    v.check(got == batch, [&] {
      return "result batch dimensions " + shapeStr(got) + " do not match the indices' " +
             shapeStr(batch);
    });
    return;
  }
  const std::vector<int64_t>& sizes = *sliceSizes;
  v.check(static_cast<int64_t>(sizes.size()) == operand.rank(), [&] {
    return "slice_sizes " + shapeStr(sizes) + " must have one entry per operand dimension (rank " +
           std::to_string(operand.rank()) + ")";
  });
  for (int64_t d = 0; d < operand.rank(); ++d) {
    int64_t s = sizes[static_cast<size_t>(d)];
    v.check(s >= 0 && s <= operand.dim(d), [&] {
      return "slice_sizes " + shapeStr(sizes) + " must lie within the operand shape " +
             shapeStr(operand.shape());
    });
    if (contains(dn.collapsedSliceDims, d) || contains(dn.operandBatchingDims, d))
      v.check(s <= 1, [&] {
        return "slice_sizes[" + std::to_string(d) + "] is " + std::to_string(s) + ", but dimension " + std::to_string(d) +
               " is collapsed or batching and so must be sliced at size 0 or 1";
      });
  }
  Shape offsets;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (!contains(dn.collapsedSliceDims, d) && !contains(dn.operandBatchingDims, d))
      offsets.push_back(sizes[static_cast<size_t>(d)]);
  Shape expected = combine(batch, offsets, dn.offsetDims);
  v.infer(0, Type::tensor(operand.dtype(), expected), [&] {
    return "index batch dimensions " + shapeStr(batch) + ", slice dimensions " +
           shapeStr(offsets) + " at offset_dims " + shapeStr(dn.offsetDims);
  });
}

void gatherRule(InferContext& v) {
  checkGather(v, v.ints("slice_sizes"));
}

void dynamicGatherRule(InferContext& v) {
  const Type& sizes = v.tensorOperand(2);
  v.check(sizes.rank() == 1 && isInteger(sizes.dtype()),
          [&] { return "slice_sizes must be a 1-D integer tensor, got " + sizes.str(); });
  checkGather(v, constantInts(v.operand(2)));
}

void scatterRule(InferContext& v) {
  size_t numOperands = v.numOperands();
  v.check(numOperands % 2 == 1, [&] {
    return "takes N inputs, the indices and N updates, but has " + std::to_string(numOperands) + " operands";
  });
  size_t n = (numOperands - 1) / 2;
  const Type& input = v.tensorOperand(0);
  const Type& indices = v.tensorOperand(n);
  const Type& update = v.tensorOperand(n + 1);
  std::vector<DType> inputTypes;
  for (size_t i = 0; i < n; ++i) {
    const Type& in = v.tensorOperand(i);
    const Type& up = v.tensorOperand(n + 1 + i);
    v.check(in.shape() == input.shape(), [&] {
      return "input " + std::to_string(i) + " shape " + shapeStr(in.shape()) + " differs from input 0 shape " +
             shapeStr(input.shape());
    });
    v.check(up.shape() == update.shape(), [&] {
      return "update " + std::to_string(i) + " shape " + shapeStr(up.shape()) +
             " differs from update 0 shape " + shapeStr(update.shape());
    });
    v.check(up.dtype() == in.dtype(), [&] {
      return "update " + std::to_string(i) + " element type " + std::string(name(up.dtype())) +
             " differs from input " + std::to_string(i) + "'s " + std::string(name(in.dtype()));
    });
    inputTypes.push_back(in.dtype());
  }

  ScatterDims dn = ScatterDims::fromAttr(v.attr("scatter_dimension_numbers"));

  int64_t implied =
      static_cast<int64_t>(dn.updateWindowDims.size() + dn.insertedWindowDims.size() + dn.inputBatchingDims.size());
  v.check(input.rank() == implied, [&] {
    return "input rank " + std::to_string(input.rank()) + " must equal the sizes of update_window_dims " +
           shapeStr(dn.updateWindowDims) + " + inserted_window_dims " + shapeStr(dn.insertedWindowDims) +
           " + input_batching_dims " + shapeStr(dn.inputBatchingDims);
  });
  Shape scatterSizes =
      checkIndices(v, indices, dn.indexVectorDim, dn.scatterDimsToOperandDims, "scatter_dims_to_operand_dims",
                   dn.scatterIndicesBatchingDims, "scatter_indices_batching_dims", dn.inputBatchingDims.size());
  checkUniqueSorted(v, "update_window_dims", dn.updateWindowDims, true);
  checkDimensions(v, "update_window_dims", dn.updateWindowDims, update.rank(), "updates");
  checkDimensions(v, "inserted_window_dims + input_batching_dims", concat(dn.insertedWindowDims, dn.inputBatchingDims),
                  input.rank(), "inputs");
  checkUniqueSorted(v, "inserted_window_dims", dn.insertedWindowDims, true);
  checkUniqueSorted(v, "input_batching_dims", dn.inputBatchingDims, true);
  checkBatchingSizes(v, input, dn.inputBatchingDims, indices, dn.scatterIndicesBatchingDims);
  checkDimensions(v, "scatter_dims_to_operand_dims + input_batching_dims",
                  concat(dn.scatterDimsToOperandDims, dn.inputBatchingDims), input.rank(), "inputs");

  // C4: the scatter dimensions of the updates are the indices' batch dimensions, and
  // the window dimensions fit in the input without its dn.insertedWindowDims and batching dimensions.
  int64_t updateRank = static_cast<int64_t>(scatterSizes.size() + dn.updateWindowDims.size());
  v.check(update.rank() == updateRank, [&] {
    return "updates rank " + std::to_string(update.rank()) + " must be " + std::to_string(updateRank) +
           " (the batch dimensions " + shapeStr(scatterSizes) + " of the indices plus " +
           std::to_string(static_cast<int64_t>(dn.updateWindowDims.size())) + " update_window_dims)";
  });
  Shape windowBounds;
  for (int64_t d = 0; d < input.rank(); ++d)
    if (!contains(dn.insertedWindowDims, d) && !contains(dn.inputBatchingDims, d)) windowBounds.push_back(input.dim(d));
  Shape scatterGot;
  size_t w = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (!contains(dn.updateWindowDims, d)) {
      scatterGot.push_back(update.dim(d));
      continue;
    }
    v.check(update.dim(d) <= windowBounds[w], [&] {
      return "update window dimension " + std::to_string(d) + " has size " + std::to_string(update.dim(d)) +
             ", larger than the input's " + std::to_string(windowBounds[w]) + " (window bounds " +
             shapeStr(windowBounds) + ")";
    });
    ++w;
  }
  v.check(scatterGot == scatterSizes, [&] {
    return "update scatter dimensions " + shapeStr(scatterGot) +
           " do not match the indices' batch dimensions " + shapeStr(scatterSizes) + " (updates " +
           shapeStr(update.shape()) + ", update_window_dims " + shapeStr(dn.updateWindowDims) + ")";
  });

  std::vector<DType> accumulators = checkReducer(v, 0, inputTypes);
  for (size_t i = 0; i < n; ++i)
    v.infer(i, Type::tensor(accumulators[i], input.shape()),
            [] { return "the input shape with the update_computation's element type"; });
}

}  // namespace

void addGatherScatterRules(RuleTable& table) {
  table.set(ops::Gather, &gatherRule);
  table.set(ops::DynamicGather, &dynamicGatherRule);
  table.set(ops::Scatter, &scatterRule);
}

}  // namespace kiln
