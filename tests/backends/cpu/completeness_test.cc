// Every op of the registry, whatever its category, runs natively on the cpu backend or is
// listed here with the reason it does not (docs/ops.md: the completeness tests). Native
// means shown: the op's sample program (op_samples.cc, or one made here for a plain
// elementwise op) compiles for the cpu with no op declined and no function left to the
// interpreter, and agrees with the interpreter. A listed op's sample must still fall
// back, so that the list only shrinks: an op that gains native code fails here until its
// entry goes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/op_samples.h"
#include "passes/pass_test_util.h"
#include "testing/differential.h"

namespace kiln::cpu {
namespace {

// The ops the cpu backend leaves to the interpreter, and why.
const std::map<std::string_view, std::string_view> kInterpreted = {
    {"func.call", "a call the inliner keeps (a recursive one) has no native step"},
    {"stablehlo.cholesky", "no native code yet (JAX's cholesky is a LAPACK custom call, which is native)"},
    {"stablehlo.triangular_solve", "no native code yet (JAX's is a LAPACK custom call, which is native)"},
    {"stablehlo.fft", "no native code yet"},
    {"stablehlo.rng", "no native code yet (JAX draws with rng_bit_generator, which is native)"},
    {"stablehlo.map", "no native code yet; its decomposition serves only the transforms"},
    {"stablehlo.torch_index_select", "no native code yet; its decomposition serves only the transforms"},
    {"stablehlo.dynamic_broadcast_in_dim", "no native code yet, even with constant shape operands"},
    {"stablehlo.dynamic_conv", "no native code yet, even with constant shape operands"},
    {"stablehlo.dynamic_gather", "no native code yet, even with constant shape operands"},
    {"stablehlo.dynamic_iota", "no native code yet, even with constant shape operands"},
    {"stablehlo.dynamic_pad", "no native code yet, even with constant shape operands"},
    {"stablehlo.dynamic_reshape", "no native code yet, even with constant shape operands"},
    {"stablehlo.batch_norm_grad", "no native code yet (exporters lower batch norm before StableHLO)"},
    {"stablehlo.batch_norm_inference", "no native code yet (exporters lower batch norm before StableHLO)"},
    {"stablehlo.batch_norm_training", "no native code yet (exporters lower batch norm before StableHLO)"},
    {"stablehlo.composite", "no native code yet: the cpu pipeline does not inline its decomposition"},
    {"stablehlo.get_dimension_size", "no native code yet: not folded for static shapes"},
    {"stablehlo.optimization_barrier", "no native code yet"},
    {"stablehlo.tuple", "tuples are not tensors: a function holding one runs through the interpreter"},
    {"stablehlo.get_tuple_element", "tuples are not tensors: a function holding one runs through the interpreter"},
    {"stablehlo.after_all", "tokens are not tensors: I/O runs on the interpreter's host side"},
    {"stablehlo.infeed", "tokens are not tensors: I/O runs on the interpreter's host side"},
    {"stablehlo.outfeed", "tokens are not tensors: I/O runs on the interpreter's host side"},
    {"stablehlo.send", "tokens are not tensors: I/O runs on the interpreter's host side"},
    {"stablehlo.recv", "tokens are not tensors: I/O runs on the interpreter's host side"},
    {"stablehlo.all_gather", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.all_reduce", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.all_to_all", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.collective_broadcast", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.collective_permute", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.collective_reduce", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.reduce_scatter", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.replica_id", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.partition_id", "a host step: the interpreter's kernel, as this device's process of the grid"},
    {"stablehlo.async_start", "no executor runs async computations"},
    {"stablehlo.async_done", "no executor runs async computations"},
    {"stablehlo.uniform_quantize", "no executor runs quantized types"},
    {"stablehlo.uniform_dequantize", "no executor runs quantized types"},
    {"kiln.custom_lin", "exists only inside vjp, whose transpose replaces it"},
};

// Why an op needs neither a sample nor an entry above: a fact of its category, or none.
const char* exemption(const OpInfo& info) {
  if (info.isTerminator()) return "ends a region";
  if (info.category == OpCategory::Check || info.category == OpCategory::Interpreter)
    return "the test harness: the interpreter's harness runs it";
  const bool lowered = info.category == OpCategory::Chlo || info.category == OpCategory::Composite;
  if (lowered && info.decompose && !info.has(kElementwise))
    return "lower-chlo replaces it by StableHLO before codegen (lower_chlo_test checks each)";
  return nullptr;
}

// A program of one plain elementwise op (operands and result of one type), or nothing
// for an op that is not one. CHLO's elementwise ops count: lower-chlo lowers them first.
std::optional<std::string> elementwiseSample(const OpInfo& info) {
  const bool elementwise = info.category == OpCategory::ElementwiseUnary ||
                           info.category == OpCategory::ElementwiseBinary || info.category == OpCategory::Chlo ||
                           info.category == OpCategory::Composite;
  const bool requiresAttributes =
      std::any_of(info.attrs.begin(), info.attrs.end(), [](const AttrSpec& a) { return a.required; });
  if (!elementwise || !info.has(kElementwise) || requiresAttributes || info.operands.min != info.operands.max)
    return std::nullopt;
  std::string type;
  for (const char* t : {"f32", "i32", "i1"})
    if (acceptsElement(info.elements, *parseDType(t))) {
      type = std::string("tensor<4x3x") + t + ">";
      break;
    }
  std::string params, operands, types;
  for (int i = 0; i < info.operands.min; ++i) {
    params += (i ? ", %x" : "%x") + std::to_string(i) + ": " + type;
    operands += (i ? ", %x" : "%x") + std::to_string(i);
    types += (i ? ", " : "") + type;
  }
  return "func.func @main(" + params + ") -> " + type + " {\n  %r = \"" + std::string(info.name) + "\"(" + operands +
         ") : (" + types + ") -> " + type + "\n  return %r : " + type + "\n}\n";
}

// Why `c` is not all native code: the ops it declined and the functions it left to the
// interpreter; empty when everything runs natively.
std::string fallbacks(const test_util::Compiled& c) {
  std::string why;
  for (const auto& [reason, n] : c.exe->declinedReasons()) why += "declined: " + reason + "\n";
  for (const std::string& line : c.exe->fallbacks()) why += line + "\n";
  return why;
}

TEST(CpuCompletenessTest, EveryOpRunsNativelyOrIsListedWithItsReason) {
  int native = 0, listed = 0, exempt = 0;
  for (const OpInfo& info : allOps()) {
    SCOPED_TRACE(std::string(info.name));
    const auto reason = kInterpreted.find(info.name);
    std::optional<std::string> sample = elementwiseSample(info);
    if (auto it = test_util::opSamples().find(info.name); it != test_util::opSamples().end()) sample = it->second;
    if (!sample) {
      if (reason != kInterpreted.end()) {
        ++listed;
        ADD_FAILURE() << info.name << " is listed but has no sample to show it falls back";
      } else if (exemption(info)) {
        ++exempt;
      } else {
        ADD_FAILURE() << info.name << " has no sample program (op_samples.cc) and no reason to run on the interpreter";
      }
      continue;
    }
    test_util::Compiled c = test_util::compile(*sample);
    const std::string why = fallbacks(c);
    if (reason != kInterpreted.end()) {
      ++listed;
      EXPECT_FALSE(why.empty()) << info.name << " now runs natively: remove its entry (" << reason->second << ")";
      continue;
    }
    if (!why.empty()) {
      ADD_FAILURE() << info.name << " runs on the interpreter and is not listed:\n" << why;
      continue;
    }
    ++native;
    const Function& fn = *c.reference->lookup("main");
    interp::HostValues args;
    for (size_t i = 0; i < fn.numParams(); ++i)
      args.push_back(passes::test_util::ordinaryValues(fn.param(i)->type(), i));
    const interp::HostValues expected = interp::Interpreter(*c.reference).call("main", args);
    const interp::HostValues got = c.exe->call(*c.module->lookup("main"), args);
    if (auto difference = testing::firstDifference(expected, got, testing::tolerance(*c.reference)))
      ADD_FAILURE() << info.name << " disagrees with the interpreter: " << *difference;
  }
  std::printf("[ measured ] %d ops run natively on cpu, %d listed with their reasons, %d exempt by category\n",
              native, listed, exempt);
}

// The check itself: an op that falls back is found, with the line kiln run prints.
TEST(CpuCompletenessTest, AFallbackNamesTheOpItsLineAndTheFunction) {
  test_util::Compiled c = test_util::compile(test_util::opSamples().at("stablehlo.fft"));
  const std::vector<std::string> lines = c.exe->fallbacks();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("@main runs on the interpreter: stablehlo.fft at "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("no native code"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace kiln::cpu
