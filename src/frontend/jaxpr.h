// A traced function as JAX prints a jaxpr (make_jaxpr in kiln/transforms.h).
#pragma once

#include <string>

#include "ir/module.h"

namespace kiln::detail {

// `fn` of `module`, its last `numConsts` parameters shown as the jaxpr's constants (the
// arrays the traced function closed over).
std::string jaxprText(const Module& module, const Function& fn, size_t numConsts);

}  // namespace kiln::detail
