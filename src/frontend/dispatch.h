// How an op runs: inside a trace it adds IR to the innermost one; outside any trace it
// is traced on its own into a small program that the session compiles (once per
// signature: the cache is keyed by the program's fingerprint) and runs now, as JAX runs
// an op outside jit. Ops made of other ops (softmax, mean, ...) run as one program
// outside a trace, not op by op.
#pragma once

#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "frontend/trace.h"

namespace kiln::detail {

// The values of the inputs in the current trace (its builder, at the caller's site).
using EmitFn = std::function<std::vector<Value*>(Builder& b, const std::vector<Value*>& inputs)>;
// A primitive: `emit` builds its IR; the results are weak when `weak` (an op on weak
// scalars only). `key`, when given, says everything the IR depends on besides the
// inputs' types (the op and its parameters): outside a trace the program is then found
// by it and the inputs' signature without tracing `emit` again.
std::vector<Array> emit(const std::vector<Array>& inputs, const std::source_location& site, const EmitFn& emit,
                        bool weak = false, const std::string& key = "");
Array emit1(const std::vector<Array>& inputs, const std::source_location& site, const EmitFn& emit,
            bool weak = false, const std::string& key = "");

// A value computed on the host: outside a trace it is copied to the device, inside one
// it becomes a constant of the program (a splat stays one element).
Array constantArray(Literal value, const std::source_location& site);

// An op made of other ops: `body` calls them on its arguments (tracers of the current
// trace, or of a trace of its own outside one). A frontend composite: the first kind of
// op to reach for (docs/ops.md says when another kind is needed).
using OpBody = std::function<std::vector<Array>(const std::vector<Array>& inputs)>;
// `label` names it in a failure of its run (default: `name`).
std::vector<Array> composite(const std::vector<Array>& inputs, const std::string& name, const OpBody& body,
                             const std::string& label = "");
Array composite1(const std::vector<Array>& inputs, const std::string& name,
                 const std::function<Array(const std::vector<Array>&)>& body);

}  // namespace kiln::detail
