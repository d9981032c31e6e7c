// What the runtime tests share: the programs they run, a client per plugin, and a slow
// program whose length the tests choose (for the asynchronous behaviour).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "passes/buffer_assignment.h"
#include "runtime/client.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"

namespace kiln::runtime::testing {

// Runs `f`, which must throw kiln::Error of `kind` whose message contains `part`.
template <class F>
void expectError(F&& f, ErrorKind kind, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// `program` with parameters `donated` of @main marked donated (jax.buffer_donor), as JAX
// marks the arguments of jit(donate_argnums=...): its executions take them over.
inline std::string donating(const std::string& program, const std::vector<size_t>& donated) {
  auto module = stablehlo::parseModule(SourceBuffer::fromString("<donating>", program));
  Function& main = *module->lookup("main");
  for (size_t i : donated) passes::markDonation(main, i);
  return stablehlo::printModule(*module);
}

// ExecuteOptions that keep the parameters `kept` this once.
inline ExecuteOptions keeping(std::vector<int64_t> kept) {
  ExecuteOptions options;
  options.keep = std::move(kept);
  return options;
}

// The plugins every test runs on.
inline const char* const kPlugins[] = {"cpu", "interp"};

// sin(y) applied `n` times to `x` (n is the first argument): as slow as a test needs.
inline constexpr const char* kSlowProgram = R"(
func.func @main(%n: tensor<i64>, %x: tensor<256xf32>) -> tensor<256xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %y = %x) : tensor<i64>, tensor<256xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    %s = stablehlo.sine %y : tensor<256xf32>
    stablehlo.return %next, %s : tensor<i64>, tensor<256xf32>
  }
  return %r#1 : tensor<256xf32>
})";

// x + 1 on f32[4] (quick).
inline constexpr const char* kAddOne = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %y = stablehlo.add %x, %one : tensor<4xf32>
  return %y : tensor<4xf32>
})";

inline Literal f32(Shape dims, const std::vector<float>& values) {
  Literal lit(Type::tensor(DType::F32, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) lit.setFloat(static_cast<int64_t>(i), values[i]);
  return lit;
}

inline Literal i64Scalar(int64_t v) {
  Literal lit(Type::scalar(DType::I64));
  lit.setInt(0, v);
  return lit;
}

inline Literal ramp256() {
  Literal lit(Type::tensor(DType::F32, {256}));
  for (int64_t i = 0; i < 256; ++i) lit.setFloat(i, 0.01 * static_cast<double>(i));
  return lit;
}

// The iteration count that makes kSlowProgram run for about `seconds` on `client`.
inline int64_t slowIterations(const Client& client, const Executable& slow, double seconds) {
  Device d = client.devices()[0];
  Buffer x = client.bufferFromHost(ramp256(), d);
  Buffer n = client.bufferFromHost(i64Scalar(2000), d);
  auto start = std::chrono::steady_clock::now();
  slow.execute({&n, &x}, d).done.await();
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::max<int64_t>(2000, static_cast<int64_t>(2000 * seconds / std::max(took, 1e-6)));
}

}  // namespace kiln::runtime::testing
