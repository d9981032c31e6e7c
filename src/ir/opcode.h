// OpCode: which op an Op is, as a number into the op registry (ir/op_registry.h). The
// named opcodes (ops::Add, ops::ChloErf, ops::Fusion, ...) are declared by the headers of
// ir/ops/, one per table of ops, so that a file sees the names of the tables it uses
// and adding an op rebuilds only the files that name ops of that table. Most files need
// only this type: they read an op's facts from the registry, not its name.
#pragma once

#include <cstdint>

namespace kiln {

enum class OpCode : uint16_t {};

}  // namespace kiln
