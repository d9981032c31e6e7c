// The IR section of an MLIR bytecode file (bytecode_container.h) as a tree: each op's
// name, location, attributes, properties, result types and operands, and its regions of
// blocks. Values are numbered as MLIR's writer numbers them: from the start of the
// closest region isolated from above, block arguments and results in order of
// definition, a nested region's numbers reserved when it starts and released when it
// ends. The reader of ops replays that numbering to connect operands to definitions.
// Bad bytes (an index out of range, a value number outside its region, a count that
// overruns its section, nesting deeper than kMaxDepth) are Parse errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "stablehlo/bytecode_container.h"

namespace kiln::stablehlo::bytecode {

inline constexpr int kMaxDepth = 256;

struct IrRegion;

struct IrOp {
  size_t name = 0;       // index into Container::opNames
  uint64_t location = 0;  // attribute index
  std::optional<uint64_t> attributes;  // a dictionary's attribute index
  // A registered op's properties, as its dialect wrote them; an unregistered op's as an
  // attribute.
  std::optional<std::string_view> properties;
  std::optional<uint64_t> propertiesAttribute;
  std::vector<uint64_t> resultTypes;  // type indices
  uint64_t firstResult = 0;           // the number of its first result
  std::vector<uint64_t> operands;     // value numbers
  std::vector<uint64_t> successors;   // block indices in the parent region
  bool isolated = false;              // its regions are isolated from above
  std::vector<IrRegion> regions;
};

struct IrArgument {
  uint64_t type = 0;
  std::optional<uint64_t> location;  // none: unknown
};

struct IrBlock {
  std::vector<IrArgument> arguments;
  uint64_t firstArgument = 0;
  std::vector<IrOp> ops;
};

struct IrRegion {
  uint64_t numValues = 0;  // the value numbers the region reserves
  std::vector<IrBlock> blocks;
};

// The ops of the top-level block (a builtin.module, for a portable artifact).
std::vector<IrOp> readIr(const Container& container, const std::string& name);

}  // namespace kiln::stablehlo::bytecode
