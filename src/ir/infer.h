// Result-type inference: the result types of any op of the registry from its operands,
// attributes and regions, by the spec's shape functions (../shared/reference/
// stablehlo-spec.md). The verifier compares declared types with these; the builder
// creates ops with them, so no caller writes a shape rule again.
//
// Where the result type is itself a parameter of the op (reshape's shape, convert's
// element type, custom_call's results, ...), the caller gives it and inference checks
// every constraint the spec puts on it.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ir/module.h"

namespace kiln {

// The parts of an op, which need not exist yet.
struct OpParts {
  OpCode code;
  std::span<Value* const> operands;
  const NamedAttrList& attrs;
  std::vector<const Region*> regions;  // built before the op (bodies decide result types)
  // The result types that are parameters of the op; the declared types when verifying.
  // Null when the op determines all of its results.
  const TypeList* given = nullptr;
  // For symbol references (func.call, composite); may be null, then a call's results
  // must be given.
  const Module* module = nullptr;
  // Where errors point.
  Location loc;
  SourcePos pos;
  SourceRef source;
};

// One inferred result: its type, and which of its halves the op determines (the rest was
// a parameter). The type_inference_corpus test mutates exactly the determined halves.
struct InferredType {
  Type type;
  bool shapeDetermined = false;
  bool dtypeDetermined = false;
};

// Infers the result types of `parts`, after checking the registry's facts (operand and
// region counts, attribute kinds) and the op's constraints. Throws kiln::Error (kind
// Verify) naming the op and what is wrong.
std::vector<InferredType> inferResults(const OpParts& parts);
TypeList inferResultTypes(const OpParts& parts);

// The parts of an existing op, its declared result types given.
std::vector<InferredType> inferResults(const Op& op, const Module* module);

// Verifies one op's types: inference with the declared types compared as they are
// inferred, so a mismatch says why the inferred type is right.
void checkResultTypes(const Op& op, const Module* module);

// Whether `code` has a type rule (a test asserts every op of the registry has one).
bool hasTypeRule(OpCode code);

}  // namespace kiln
