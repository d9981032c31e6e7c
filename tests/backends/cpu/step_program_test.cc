// Step programs: functions whose ops all run natively execute as steps over one arena
// from the buffer assignment. Checked against the interpreter bit for bit, with values
// that share arena bytes (so a wrong offset or a missed in-place hazard changes results),
// returned parameters, constants and duplicates, splat arguments, executions from several
// threads at once, while / if / case as nested steps, deadlines, and the interpreter path
// for what has no native step.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/executable.h"
#include "backends/cpu/profile.h"
#include "interp/interpreter.h"
#include "passes/pass_manager.h"
#include "passes/pass_test_util.h"
#include "stablehlo/parser.h"

namespace kiln::cpu {
namespace {

using passes::test_util::ordinaryValues;

// A chain of kernels whose intermediates die early (the arena reuses their bytes, in
// place where an op reads its dying operand elementwise), a GEMM, a reduction, and
// results that are a parameter, a constant, a value returned twice and a fused result.
// The inputs are multiples of 1/8 and every op exact on them, so BLAS's sums agree with
// the interpreter's bit for bit.
constexpr const char* kStepsProgram = R"(
func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> (tensor<64x16xf32>, tensor<64xf32>,
    tensor<64x32xf32>, tensor<3xf32>, tensor<64xf32>) {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %half = stablehlo.constant dense<0.5> : tensor<64x32xf32>
  %a = stablehlo.multiply %x, %half : tensor<64x32xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %b = stablehlo.abs %t : tensor<32x64xf32>
  %u = stablehlo.transpose %b, dims = [1, 0] : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %s = stablehlo.subtract %u, %x : tensor<64x32xf32>
  %ha = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %hs = stablehlo.dot_general %s, %w, contracting_dims = [1] x [0] : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %h = stablehlo.subtract %ha, %hs : tensor<64x16xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64xf32>
  return %h, %r, %x, %c, %r : tensor<64x16xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<3xf32>, tensor<64xf32>
})";

using test_util::Compiled;
using test_util::compile;

void expectExactBits(const interp::HostValues& a, const interp::HostValues& b) {
  passes::test_util::expectBitIdentical(a, b, "");
}

interp::HostValues argsFor(const Function& fn, int seed) {
  interp::HostValues args;
  for (size_t i = 0; i < fn.numParams(); ++i)
    args.push_back(ordinaryValues(fn.param(i)->type(), static_cast<int>(i) + seed));
  return args;
}

TEST(StepProgramTest, StraightLineFunctionsRunAsStepsOverOneArena) {
  Compiled c = compile(kStepsProgram);
  const std::string report = c.exe->report();
  EXPECT_NE(report.find("@main: "), std::string::npos) << report;
  EXPECT_NE(report.find(" steps over an arena of "), std::string::npos) << report;
  const Function& fn = *c.module->lookup("main");
  for (int seed : {0, 7, 0}) {  // again after another input: the arena comes back dirty
    interp::HostValues args = argsFor(fn, seed);
    interp::HostValues expected = interp::Interpreter(*c.reference).call("main", args);
    uint64_t before = c.exe->nativeRuns();
    interp::HostValues got = c.exe->call(fn, args);
    expectExactBits(expected, got);
    EXPECT_GE(c.exe->nativeRuns() - before, 2u);  // kernels and the GEMM ran natively
    // The returned parameter is the caller's own buffer, not a copy.
    EXPECT_EQ(got[2].tensor().storage(), args[0].tensor().storage());
  }
}

TEST(StepProgramTest, ResultsHandedOutStayTheCallersAndSplatArgumentsWork) {
  Compiled c = compile(kStepsProgram);
  const Function& fn = *c.module->lookup("main");
  interp::HostValues first = c.exe->call(fn, argsFor(fn, 1));
  interp::HostValues kept = first;  // shares the result buffers
  auto splatOf = [](Shape shape, float v) {
    return Literal::splat(Type::tensor(DType::F32, std::move(shape)), reinterpret_cast<const uint8_t*>(&v));
  };
  interp::HostValues splat = {splatOf({64, 32}, 0.25f), splatOf({32, 16}, -1.5f)};
  ASSERT_TRUE(splat[0].tensor().isSplat());
  interp::HostValues second = c.exe->call(fn, splat);
  expectExactBits(interp::Interpreter(*c.reference).call("main", splat), second);
  expectExactBits(interp::Interpreter(*c.reference).call("main", argsFor(fn, 1)), kept);
}

// A parameter marked as a donor in the text (as JAX exports donate_argnums) is still the
// caller's: the program's values do not move into it (they once landed at arena offsets
// that other values held), and only a call that donates it may have a result written into it.
TEST(StepProgramTest, DonorAttributesMoveNoValuesAndOnlyADonatingCallIsWrittenInto) {
  Compiled c = compile(R"(
func.func @main(%p: tensor<16x16xf32> {jax.buffer_donor = true}, %x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = stablehlo.dot %x, %x : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = stablehlo.add %p, %x : tensor<16x16xf32>
  %d = stablehlo.dot %b, %a : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = stablehlo.add %d, %a : tensor<16x16xf32>
  return %e : tensor<16x16xf32>
})");
  const Function& fn = *c.module->lookup("main");
  interp::HostValues args = argsFor(fn, 3);
  const Literal p = args[0].tensor();  // shares the storage: this call may not write it
  const interp::HostValues expected = interp::Interpreter(*c.reference).call("main", args);
  const std::vector<bool> donated = {true, false};
  expectExactBits(expected, c.exe->call(fn, args, {}, nullptr, &donated));
  EXPECT_EQ(c.exe->resultsInDonatedBuffers(), 0u);
  EXPECT_TRUE(args[0].tensor() == p);
  expectExactBits(expected, c.exe->call(fn, argsFor(fn, 3), {}, nullptr, &donated));
  // Held by the call alone, and read only by the kernel that makes the result, where it
  // writes: the result is written into it.
  Compiled scale = compile(R"(
func.func @main(%p: tensor<16x16xf32>, %x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<16x16xf32>
  %d = stablehlo.multiply %p, %two : tensor<16x16xf32>
  %e = stablehlo.add %d, %x : tensor<16x16xf32>
  return %e : tensor<16x16xf32>
})");
  const Function& main = *scale.module->lookup("main");
  interp::HostValues own = argsFor(main, 3);
  const interp::HostValues want = interp::Interpreter(*scale.reference).call("main", own);
  const uint8_t* storage = own[0].tensor().storage();
  interp::HostValues got = scale.exe->call(main, std::move(own), {}, nullptr, &donated);
  expectExactBits(want, got);
  EXPECT_EQ(scale.exe->resultsInDonatedBuffers(), 1u);
  EXPECT_EQ(got[0].tensor().storage(), storage);
  // Its kernel was compiled for that (a row at a time through a tile), not for
  // operands and results apart, whose vector loop falls back to scalar code when
  // they meet: in every call, since donation is known only when a call runs.
  EXPECT_NE(scale.exe->report().find("kernel 0: kiln.fusion (loop) at line 5, may write its results over operands "
                                     "it reads"),
            std::string::npos)
      << scale.exe->report();
}

// A loop fusion that reads a parameter through a permuting broadcast reads it at
// another index than it writes: never in place (into the parameter or over an operand).
TEST(StepProgramTest, APermutingBroadcastIsNotReadAtTheWrittenIndex) {
  Compiled c = compile(R"(
func.func @main(%p: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %n = stablehlo.negate %p : tensor<8x8xf32>
  %t = stablehlo.broadcast_in_dim %n, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = stablehlo.add %t, %y : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
})");
  const Function& fn = *c.module->lookup("main");
  interp::HostValues own = argsFor(fn, 5);
  const interp::HostValues expected = interp::Interpreter(*c.reference).call("main", own);
  const std::vector<bool> donated = {true, false};
  expectExactBits(expected, c.exe->call(fn, own, {}, nullptr, &donated));
  EXPECT_EQ(c.exe->resultsInDonatedBuffers(), 0u);
}

TEST(StepProgramTest, ConcurrentExecutionsEachGetTheirOwnArena) {
  Compiled c = compile(kStepsProgram);
  const Function& fn = *c.module->lookup("main");
  std::vector<interp::HostValues> expected;
  for (int t = 0; t < 4; ++t) expected.push_back(interp::Interpreter(*c.reference).call("main", argsFor(fn, t)));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      interp::HostValues args = argsFor(fn, t);
      for (int i = 0; i < 25; ++i) {
        interp::HostValues got = c.exe->call(fn, args);
        for (size_t r = 0; r < got.size(); ++r)
          for (int64_t e = 0; e < got[r].tensor().numElements(); ++e)
            mismatches[static_cast<size_t>(t)] += got[r].tensor().bitsAt(e) != expected[static_cast<size_t>(t)][r].tensor().bitsAt(e);
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[static_cast<size_t>(t)], 0) << "thread " << t;
}

// while, if and case as steps with nested step lists: a loop whose body swaps two of
// its carries (they pass through staging slots), reads a value from outside, and holds
// an if and a case; the case index out of range picks the last branch.
constexpr const char* kControlFlow = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %k: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %five = stablehlo.constant dense<5> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %scale = stablehlo.constant dense<0.5> : tensor<4xf32>
  %r:3 = stablehlo.while(%i = %zero, %a = %x, %b = %y) : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %five : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %n = stablehlo.add %i, %one : tensor<i32>
      %m = stablehlo.remainder %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %even = stablehlo.compare EQ, %m, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c = "stablehlo.if"(%even) ({
        %s = stablehlo.multiply %a, %scale : tensor<4xf32>
        stablehlo.return %s : tensor<4xf32>
      }, {
        %s = stablehlo.add %a, %b : tensor<4xf32>
        stablehlo.return %s : tensor<4xf32>
      }) : (tensor<i1>) -> tensor<4xf32>
      %sel = stablehlo.add %i, %k : tensor<i32>
      %d = "stablehlo.case"(%sel) ({
        stablehlo.return %c : tensor<4xf32>
      }, {
        %s = stablehlo.negate %c : tensor<4xf32>
        stablehlo.return %s : tensor<4xf32>
      }, {
        %s = stablehlo.subtract %c, %scale : tensor<4xf32>
        stablehlo.return %s : tensor<4xf32>
      }) : (tensor<i32>) -> tensor<4xf32>
      stablehlo.return %n, %b, %d : tensor<i32>, tensor<4xf32>, tensor<4xf32>
    }
  return %r#1, %r#2, %r#0 : tensor<4xf32>, tensor<4xf32>, tensor<i32>
})";

TEST(StepProgramTest, WhileIfAndCaseRunAsNestedSteps) {
  Compiled c = compile(kControlFlow);
  EXPECT_NE(c.exe->report().find("@main: "), std::string::npos);
  EXPECT_EQ(c.exe->report().find("through the interpreter"), std::string::npos) << c.exe->report();
  const Function& fn = *c.module->lookup("main");
  for (int32_t k : {-7, 0, 1, 2, 40}) {
    interp::HostValues args = argsFor(fn, 2);
    args[2] = Literal::fromStorage(Type::tensor(DType::I32, {}),
                                   std::vector<uint8_t>(reinterpret_cast<uint8_t*>(&k), reinterpret_cast<uint8_t*>(&k) + 4));
    SCOPED_TRACE("k = " + std::to_string(k));
    expectExactBits(interp::Interpreter(*c.reference).call("main", args), c.exe->call(fn, args));
  }
}

// A profile holds one slice per executed step, the loop's steps nested in its slice
// (five iterations: each step of the body five times per run), as a Chrome trace that
// parses as JSON, and the slowest steps with their share of the runs.
TEST(StepProgramTest, AProfileHasASlicePerExecutedStep) {
  Compiled c = compile(kControlFlow);
  const Function& fn = *c.module->lookup("main");
  Profile profile(*c.module);
  interp::HostValues args = argsFor(fn, 2);
  const interp::HostValues plain = c.exe->call(fn, args);
  for (int run = 0; run < 2; ++run) {
    const double start = profile.now();
    expectExactBits(plain, c.exe->call(fn, args, {}, &profile));
    profile.run(start, profile.now());
  }
  const nlohmann::json trace = nlohmann::json::parse(profile.chromeTrace());
  std::map<std::string, int> byKind;
  std::vector<std::pair<double, double>> loops;  // [start, end] of each while slice
  for (const auto& e : trace["traceEvents"]) {
    ++byKind[e["cat"].get<std::string>()];
    EXPECT_EQ(e["ph"], "X");
    EXPECT_GE(e["dur"].get<double>(), 0);
    if (e["cat"] == "while") {
      loops.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
      EXPECT_NE(e["args"]["source"].get<std::string>().find("line"), std::string::npos);
    }
  }
  EXPECT_EQ(byKind["while"], 2);
  // The cond runs six times and the body five per run: many kernel slices, each inside
  // a loop's (the program's only steps are in its loop).
  EXPECT_GE(byKind["kernel"], 2 * 11);
  for (const auto& e : trace["traceEvents"]) {
    if (e["cat"] != "kernel") continue;
    const double start = e["ts"].get<double>(), end = start + e["dur"].get<double>();
    bool inside = false;
    for (auto [from, to] : loops) inside = inside || (from <= start && end <= to + 1e-3);
    EXPECT_TRUE(inside) << e.dump();
  }
  const std::string slowest = profile.slowestSteps(3);
  EXPECT_NE(slowest.find("the 3 steps that took longest"), std::string::npos) << slowest;
  EXPECT_NE(slowest.find("while stablehlo.while"), std::string::npos) << slowest;
  EXPECT_NE(slowest.find("%"), std::string::npos) << slowest;
}

// The work a profile counts per run (what bench/models.sh puts against the GEMM rate and
// the triad): a GEMM's flops, and the bytes of the kernel after it (its operands and
// results; the epilogue's too, but not the operands only its dot reads).
TEST(StepProgramTest, AProfileCountsTheWorkOfItsRuns) {
  Compiled c = compile(R"(
func.func @main(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %t = stablehlo.tanh %d : tensor<64x16xf32>
  %r = stablehlo.multiply %t, %x : tensor<64x16xf32>
  return %r : tensor<64x16xf32>
})");
  const Function& fn = *c.module->lookup("main");
  Profile profile(*c.module);
  interp::HostValues args = argsFor(fn, 3);
  for (int run = 0; run < 3; ++run) {
    const double start = profile.now();
    c.exe->call(fn, args, {}, &profile);
    profile.run(start, profile.now());
  }
  const Profile::Work work = profile.workPerRun();
  EXPECT_DOUBLE_EQ(work.contractionFlops, 2.0 * 64 * 16 * 32);
  // A dot_epilogue fusion: its kernel reads %x and writes the result (the dot's
  // operands are the GEMM's to move).
  ASSERT_NE(c.exe->report().find("BLAS, then kernel"), std::string::npos) << c.exe->report();
  EXPECT_DOUBLE_EQ(work.otherBytes, 2.0 * 64 * 16 * 4);
}

TEST(StepProgramTest, LoopsStopAtTheDeadline) {
  Compiled c = compile(R"(
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %r = stablehlo.while(%v = %x) : tensor<f32>
    cond {
      %t = stablehlo.compare EQ, %v, %v : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      stablehlo.return %v : tensor<f32>
    }
  return %r : tensor<f32>
})");
  interp::InterpOptions options;
  options.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  float one = 1;
  Literal x = Literal::fromStorage(Type::tensor(DType::F32, {}),
                                   std::vector<uint8_t>(reinterpret_cast<uint8_t*>(&one), reinterpret_cast<uint8_t*>(&one) + 4));
  try {
    c.exe->call(*c.module->lookup("main"), {x}, options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "time limit exceeded");
  }
}

TEST(StepProgramTest, OpsWithoutANativeStepRunThroughTheInterpreterAndArgumentsAreChecked) {
  Compiled c = compile(R"(
func.func @main(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %r = stablehlo.fft %x, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  return %r : tensor<8xcomplex<f32>>
})");
  EXPECT_NE(c.exe->report().find("@main: through the interpreter (stablehlo.fft at line 3 has no native step)"),
            std::string::npos)
      << c.exe->report();
  const Function& fn = *c.module->lookup("main");
  interp::HostValues args = argsFor(fn, 3);
  expectExactBits(interp::Interpreter(*c.reference).call("main", args), c.exe->call(fn, args));
  // Step programs check their arguments as the interpreter does.
  Compiled s = compile(kStepsProgram);
  try {
    s.exe->call(*s.module->lookup("main"), {ordinaryValues(Type::tensor(DType::F32, {64, 32}), 0)});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "@main takes 2 arguments, got 1");
  }
}

}  // namespace
}  // namespace kiln::cpu
