// Reading StableHLO MLIR text (as JAX, stablehlo-opt and kiln print it) into IR.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/module.h"
#include "support/source.h"

namespace kiln::stablehlo {

struct ParseOptions {
  // Run the verifier on each parsed module (errors point at the op's text).
  bool verify = true;
};

// Parses a whole file; MLIR bytecode (a StableHLO portable artifact, stablehlo/bytecode.h)
// is read as one module. A file split by `// -----` lines (the MLIR test convention)
// yields one module per part. Throws kiln::Error (Parse, Verify or Unsupported) with the
// position of the first problem.
std::vector<std::unique_ptr<Module>> parseFile(const SourceRef& source, const ParseOptions& options = {});

// Parses text that must hold exactly one module (no `// -----` parts), or bytecode.
std::unique_ptr<Module> parseModule(const SourceRef& source, const ParseOptions& options = {});
std::unique_ptr<Module> parseModule(std::string text, const ParseOptions& options = {});

// The parts of a file split at `// -----` lines: [begin, end) byte ranges.
std::vector<std::pair<size_t, size_t>> splitInputFile(std::string_view text);

}  // namespace kiln::stablehlo
