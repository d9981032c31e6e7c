// Shardy's attributes in MLIR bytecode (Shardy's bytecode.td: a code, then the fields),
// written as the text Shardy prints for them, which kiln's parser reads (sdy_import.cc,
// ir/sharding_text.cc): meshes, axis references, dimension and tensor shardings, manual
// axes. Each attribute has two texts: its own (`#sdy.sharding<@mesh, [{"x"}, {}]>`) and
// the form it takes inside another Shardy attribute or op (`<@mesh, [{"x"}, {}]>`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "stablehlo/bytecode_container.h"

namespace kiln::stablehlo::bytecode {

struct SdyText {
  std::string text;   // its own text
  std::string inner;  // inside other Shardy attributes and ops
};

// A string as MLIR's text writes it: quoted, quotes and backslashes escaped.
std::string quotedText(const std::string& s);

// Decodes the Shardy attribute whose bytes `r` reads. `nested(i)` gives attribute i's
// texts (a mesh reference's `@mesh` as both), `string(i)` entry i of the string table.
// Throws Parse for bad bytes and Unsupported for the attributes kiln does not read
// (sharding rules, collective parameters, reduction kinds), naming them.
SdyText readSdyAttribute(ByteReader& r, const std::function<SdyText(uint64_t)>& nested,
                         const std::function<const std::string&(uint64_t)>& string);

}  // namespace kiln::stablehlo::bytecode
