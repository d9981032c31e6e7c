// The order of a kernel's ops: fusion builds each kernel's body, and numbers its inputs
// and outputs, in this order, so that groups that compute the same thing from operands
// the program happened to define in another order become the same kernel, and the cpu
// backend compiles its code once (ir/fingerprint.h: codeFingerprint). In the GPT training
// step, 204 of 276 kernels share another's code this way (189 in program order); in the
// VAE stack 8 of 22 (4).
#pragma once

#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

// `group`, ops of `region` in program order, in an order that depends only on what they
// compute: depth first from each op that no other member reads (in program order),
// through its operands in operand order, then the values its regions read; each op comes
// after the members it reads.
std::vector<Op*> computeOrder(const Region& region, const std::vector<Op*>& group);

}  // namespace kiln::passes
