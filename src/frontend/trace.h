// Tracing: running C++ code with tracers in place of arrays, so that every op it calls
// adds itself to a function being built (JAX's tracing with omnistaging: while a trace
// is open on a thread, every op is staged into the innermost one, even ops on concrete
// arrays). Traces nest (grad inside jit); a value from outside the innermost trace (a
// concrete array, or a tracer of an enclosing trace) is captured as an extra parameter
// of the function, which its caller passes in.
#pragma once

#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/array_impl.h"
#include "ir/builder.h"
#include "ir/module.h"

namespace kiln::detail {

struct TraceState : std::enable_shared_from_this<TraceState> {
  int level = 0;          // 1 for the outermost trace on its thread
  std::string name;       // what messages call it ("jit", "grad", ...)
  Module* module = nullptr;
  Function* function = nullptr;
  std::unique_ptr<Builder> builder;  // appends to the function's body
  bool alive = true;                 // false once the trace has ended
  size_t numInputs = 0;              // the explicit parameters; captures follow
  std::vector<Array> captures;       // the outside arrays behind the later parameters
  std::unordered_map<const ArrayImpl*, Value*> captured;  // the parameter of each capture

  // The value `a` has in this trace: its own, a constant for a C scalar, or a new
  // parameter capturing an outside array. Throws Usage for a tracer of a trace that
  // has ended or is not enclosing this one (a leaked tracer).
  Value* valueOf(const Array& a);
  // The values of `arrays` in this trace, and tracers of it for `values`.
  std::vector<Value*> valuesOf(const std::vector<Array>& arrays);
  std::vector<Array> tracersOf(const std::vector<Value*>& values);
};

// `count` values of `v` from `from` on, and `a` then `b`: the operand lists of the ops
// that control flow and custom derivatives build from traced pieces.
std::vector<Value*> slice(const std::vector<Value*>& v, size_t from, size_t count);
std::vector<Value*> joined(std::vector<Value*> a, const std::vector<Value*>& b);

// The error for using a tracer outside the trace it belongs to.
Error leakedTracerError(const ArrayImpl& impl);

// The innermost open trace on this thread, or null.
TraceState* currentTrace();

// What a trace's parameter is like: a type, and whether it is a weak scalar.
struct ParamSpec {
  Type type;
  bool weak = false;
};
std::vector<ParamSpec> specsOf(const std::vector<Array>& arrays);

// Opens a trace: a new function in `module` (named `name`, or name_N when that is
// taken) with parameters like `params`, and makes it the innermost. Closing it (the
// destructor) ends it: its tracers can no longer be used.
class TraceScope {
 public:
  TraceScope(Module& module, const std::string& name, const std::vector<ParamSpec>& params,
             Visibility visibility = Visibility::Public);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

  const std::vector<Array>& inputs() const { return inputs_; }
  TraceState& state() { return *state_; }
  // Returns `outputs` from the function (each must be an Array; concrete ones are
  // captured), which is then complete: its parameters are the inputs, then captures().
  Function& finish(const std::vector<Array>& outputs);
  const std::vector<Array>& captures() const { return state_->captures; }
  Function& function() const { return *state_->function; }

 private:
  std::shared_ptr<TraceState> state_;
  std::vector<Array> inputs_;
};

// A function name not yet taken in `module`: `base`, else base_1, base_2, ...
std::string freshName(const Module& module, const std::string& base);

// The IR location of a C++ call site.
Location locationOf(const std::source_location& site);

// The IR type of `a`'s value.
inline const Type& typeOf(const Array& a) { return implOf(a).type; }

}  // namespace kiln::detail
