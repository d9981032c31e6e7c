// Reading and writing NumPy .npy files as Literals (format versions 1.0-3.0, C order,
// little- or big-endian; Fortran order and pickled objects are refused clearly).
#pragma once

#include <string>

#include "ir/literal.h"

namespace kiln::stablehlo {

// Throws kiln::Error naming the file: Io when it cannot be opened or read, Parse when
// its bytes are not a valid .npy file (a bad header, truncated data), Unsupported for
// Fortran order, object arrays and dtypes kiln lacks.
Literal readNpy(const std::string& path);
Literal parseNpy(const std::string& bytes, const std::string& name = "<npy>");

// Throws Unsupported for element types NumPy has no standard dtype for (bf16, fp8).
void writeNpy(const std::string& path, const Literal& value);
std::string serializeNpy(const Literal& value);

}  // namespace kiln::stablehlo
