// Reading and writing NumPy .npy files as Literals (format versions 1.0-3.0, C order,
// little- or big-endian; Fortran order and pickled objects are refused clearly).
#pragma once

#include <optional>
#include <string>

#include "ir/literal.h"

namespace kiln::stablehlo {

// Throws kiln::Error naming the file: Io when it cannot be opened or read, Parse when
// its bytes are not a valid .npy file (a bad header, truncated data), Unsupported for
// Fortran order, object arrays and dtypes kiln lacks.
// NumPy's own dtypes and ml_dtypes' names ('bfloat16', 'float8_e4m3fn', 'int4', ...) are
// read as they say. Raw elements ('<V2', '|V1': what np.save writes for an ml_dtypes
// array) are read as `rawAs` (the parameter's type) when its elements are that wide.
Literal readNpy(const std::string& path, std::optional<DType> rawAs = std::nullopt);
Literal parseNpy(const std::string& bytes, const std::string& name = "<npy>",
                 std::optional<DType> rawAs = std::nullopt);

// bf16, the f8/f6/f4 floats and the 2- and 4-bit integers are written under their
// ml_dtypes names ('bfloat16'; np.load reads them once ml_dtypes is imported). Throws
// Unsupported for tf32, which neither names.
void writeNpy(const std::string& path, const Literal& value);
std::string serializeNpy(const Literal& value);

}  // namespace kiln::stablehlo
