// Reading MLIR bytecode: what jaxlib sends a plugin's PJRT_Client_Compile, a StableHLO
// portable artifact (the VHLO dialect, StableHLO's versioned form). The reader is in
// layers: bytecode_container (header, sections, tables), bytecode_types and
// bytecode_attributes (the table's entries), bytecode_ir (the ops as a tree), then
// vhlo_text, which writes the tree as StableHLO text in MLIR's generic op form, VHLO's ops
// renamed through the op table's VHLO column and their attributes brought to StableHLO's.
// The text parser then reads that text into a Module, so every check and import the
// parser makes (custom calls that stand for ops, MHLO and Shardy attributes, CHLO
// composites) serves both forms.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/module.h"
#include "stablehlo/parser.h"
#include "stablehlo/stablehlo_version.h"

namespace kiln::stablehlo {

// Whether `bytes` start with MLIR bytecode's magic number.
bool isBytecode(std::string_view bytes);

// The StableHLO text (MLIR's generic op form, locations as #loc aliases) of the portable
// artifact `bytes`; `name` names it in errors. Throws Parse for bad bytes and
// Unsupported for what kiln does not read (naming it).
std::string bytecodeToText(std::string_view bytes, const std::string& name);

// The artifact read into a module, as parseModule reads text.
std::unique_ptr<Module> parseBytecode(std::string_view bytes, const std::string& name,
                                      const ParseOptions& options = {});

}  // namespace kiln::stablehlo
