// The compile cache: the same program (even with other SSA names and source lines)
// compiles once per options, other programs and options compile apart, a failed compile
// leaves nothing behind, concurrent requests for one program compile it once, and the
// cached executable computes what the interpreter does.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <thread>

#include "backends/cpu/compile_cache.h"
#include "interp/interpreter.h"
#include "passes/pass_manager.h"
#include "passes/pass_test_util.h"
#include "stablehlo/parser.h"

namespace kiln::cpu {
namespace {

constexpr const char* kProgram = R"(
func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %s = stablehlo.add %x, %y : tensor<64xf32>
  %r = stablehlo.multiply %s, %x : tensor<64xf32>
  return %r : tensor<64xf32>
})";

// The same program with other names, on other lines.
constexpr const char* kRenamed = R"(

func.func @main(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %0 = stablehlo.add %a, %b : tensor<64xf32>
  %1 = stablehlo.multiply %0, %a : tensor<64xf32>
  return %1 : tensor<64xf32>
})";

TEST(CompileCacheTest, TheSameProgramCompilesOnce) {
  CompileCache cache;
  bool hit = true;
  auto first = cache.get(stablehlo::parseModule(kProgram), {}, &hit);
  EXPECT_FALSE(hit);
  auto again = cache.get(stablehlo::parseModule(kRenamed), {}, &hit);
  EXPECT_TRUE(hit);
  EXPECT_EQ(first.get(), again.get());
  EXPECT_EQ(cache.size(), 1u);
  // Another program, or other options: compiled apart.
  std::string other = kProgram;
  other.replace(other.find("multiply"), 8, "subtract");
  auto different = cache.get(stablehlo::parseModule(other), {}, &hit);
  EXPECT_FALSE(hit);
  EXPECT_NE(different.get(), first.get());
  std::string dir = ::testing::TempDir() + "/kiln_cache_dump";
  std::filesystem::create_directories(dir);
  auto dumped = cache.get(stablehlo::parseModule(kProgram), CompileOptions{dir}, &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(cache.size(), 3u);
  // The cached executable computes the program.
  auto reference = stablehlo::parseModule(kProgram);
  const Function& fn = *again->module->lookup("main");
  interp::HostValues args = {passes::test_util::ordinaryValues(fn.param(0)->type(), 0),
                             passes::test_util::ordinaryValues(fn.param(1)->type(), 1)};
  passes::test_util::expectBitIdentical(interp::Interpreter(*reference).call("main", args),
                                        again->executable->call(fn, args), "");
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
}

TEST(CompileCacheTest, ConcurrentRequestsCompileOnceAndFailuresAreNotKept) {
  CompileCache cache;
  std::vector<std::shared_ptr<const CompiledProgram>> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = cache.get(stablehlo::parseModule(kProgram)); });
  for (std::thread& t : threads) t.join();
  for (const auto& p : got) EXPECT_EQ(p.get(), got[0].get());
  EXPECT_EQ(cache.size(), 1u);
  // A compile that fails (its dump directory cannot be written) throws, every time:
  // nothing stays behind for it.
  const CompileOptions unwritable{"/nonexistent/kiln/dump"};
  for (int attempt = 0; attempt < 2; ++attempt)
    EXPECT_THROW(cache.get(stablehlo::parseModule(kProgram), unwritable), Error);
  EXPECT_EQ(cache.size(), 1u);
  // The process's cache is one cache: a second request anywhere finds the first's.
  CompileCache::process().clear();
  bool hit = true;
  auto viaProcess = CompileCache::process().get(stablehlo::parseModule(kProgram), {}, &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(CompileCache::process().get(stablehlo::parseModule(kRenamed), {}, &hit).get(), viaProcess.get());
  EXPECT_TRUE(hit);
  CompileCache::process().clear();
}

// A program compiled for the cpu backend, its kernels counted by their machine code, and
// its results on ordinary inputs beside the interpreter's.
struct SharedCode {
  std::unique_ptr<Module> module;
  std::unique_ptr<Executable> exe;
  size_t codes = 0;  // distinct kernel functions
  interp::HostValues expected, got;
};

SharedCode compileAndRun(const std::string& program) {
  SharedCode c;
  auto reference = stablehlo::parseModule(program);
  c.module = stablehlo::parseModule(program);
  passes::PassContext context;
  passes::runPipeline(*c.module, cpuPipeline(), context);
  c.exe = std::make_unique<Executable>(*c.module);
  std::map<KernelFn, int> byCode;
  for (const auto& [op, kernel] : c.exe->native().kernels) ++byCode[kernel.fn()];
  c.codes = byCode.size();
  const Function& fn = *c.module->lookup("main");
  interp::HostValues args;
  for (size_t i = 0; i < fn.numParams(); ++i) args.push_back(passes::test_util::ordinaryValues(fn.param(i)->type(), i));
  c.expected = interp::Interpreter(*reference).call("main", args);
  c.got = c.exe->call(fn, args);
  return c;
}

// Kernels that are the same code up to names and lines compile once: two normalizations
// (x² over the sum of its row's x²) of one shape share their kernels; ones with other
// constants do not. The shared
// kernels compute each op's own values (bit for bit the interpreter's).
TEST(CompileCacheTest, KernelsOfTheSameCodeCompileOnce) {
  const std::string program = R"(
func.func @main(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>,
                                                               tensor<8x32xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ex = stablehlo.multiply %x, %x : tensor<8x32xf32>
  %sx = stablehlo.reduce(%ex init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
  %bx = stablehlo.broadcast_in_dim %sx, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
  %a = stablehlo.divide %ex, %bx : tensor<8x32xf32>
  %ey = stablehlo.multiply %y, %y : tensor<8x32xf32>
  %sy = stablehlo.reduce(%ey init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
  %by = stablehlo.broadcast_in_dim %sy, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
  %b = stablehlo.divide %ey, %by : tensor<8x32xf32>
  %two = stablehlo.constant dense<2.0> : tensor<8x32xf32>
  %y2 = stablehlo.add %y, %two : tensor<8x32xf32>
  %e2 = stablehlo.multiply %y2, %y2 : tensor<8x32xf32>
  %s2 = stablehlo.reduce(%e2 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
  %b2 = stablehlo.broadcast_in_dim %s2, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
  %c = stablehlo.divide %e2, %b2 : tensor<8x32xf32>
  %three = stablehlo.constant dense<3.0> : tensor<8x32xf32>
  %y3 = stablehlo.add %y, %three : tensor<8x32xf32>
  %e3 = stablehlo.multiply %y3, %y3 : tensor<8x32xf32>
  %s3 = stablehlo.reduce(%e3 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
  %b3 = stablehlo.broadcast_in_dim %s3, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
  %d = stablehlo.divide %e3, %b3 : tensor<8x32xf32>
  return %a, %b, %c, %d : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>
})";
  SharedCode c = compileAndRun(program);
  // The kernels of %a and %b are one piece of code; %c's and %d's differ from them and
  // from each other in their constant.
  EXPECT_EQ(static_cast<size_t>(c.exe->native().sharedKernels), c.exe->numKernels() - c.codes);
  EXPECT_GE(c.exe->native().sharedKernels, 1);
  EXPECT_LT(c.codes, c.exe->numKernels());
  EXPECT_NE(c.exe->report().find("the same code as another, compiled once"), std::string::npos) << c.exe->report();
  passes::test_util::expectBitIdentical(c.expected, c.got, "");
  // The four normalizations are not all one code: %c and %d would be %b's if the constants
  // (immediates in the kernels) were left out of the comparison.
  EXPECT_NE(c.expected[1].tensor().floatAt(0), c.expected[2].tensor().floatAt(0));
}

// Two GEMM epilogues of dots with different inner sizes: BLAS computes the dots, and the
// epilogue kernels, which never read the dots' operands, are one piece of code. (The
// inputs are multiples of 1/8: every sum is exact, in BLAS's order too.)
TEST(CompileCacheTest, EpiloguesOfDifferentGemmsCompileOnce) {
  const std::string program = R"(
func.func @main(%a1: tensor<64x128xf32>, %w1: tensor<128x64xf32>, %a2: tensor<64x256xf32>, %w2: tensor<256x64xf32>,
                %b: tensor<64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<64x64xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<64xf32>) -> tensor<64x64xf32>
  %d1 = stablehlo.dot_general %a1, %w1, contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>
  %s1 = stablehlo.add %d1, %bb : tensor<64x64xf32>
  %r1 = stablehlo.maximum %s1, %zero : tensor<64x64xf32>
  %d2 = stablehlo.dot_general %a2, %w2, contracting_dims = [1] x [0] : (tensor<64x256xf32>, tensor<256x64xf32>) -> tensor<64x64xf32>
  %s2 = stablehlo.add %d2, %bb : tensor<64x64xf32>
  %r2 = stablehlo.maximum %s2, %zero : tensor<64x64xf32>
  return %r1, %r2 : tensor<64x64xf32>, tensor<64x64xf32>
})";
  SharedCode c = compileAndRun(program);
  EXPECT_EQ(c.exe->numKernels(), 2u) << c.exe->report();
  EXPECT_EQ(c.codes, 1u) << c.exe->report();
  EXPECT_EQ(c.exe->native().sharedKernels, 1) << c.exe->report();
  passes::test_util::expectBitIdentical(c.expected, c.got, "");
}

// A program with reductions (lanes and chunks), inline math, a GEMM epilogue, a sort and
// a gather: what the compile tiers must all compute alike.
constexpr const char* kTierProgram = R"(
func.func @main(%x: tensor<64x300xf32>, %w: tensor<300x16xf32>, %i: tensor<5x1xi32>) -> (tensor<64x300xf32>, tensor<64x16xf32>, tensor<5x300xf32>, tensor<64x300xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<64x300xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x300xf32>, tensor<f32>) -> tensor<64xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x300xf32>
  %soft = stablehlo.divide %e, %b : tensor<64x300xf32>
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x300xf32>, tensor<300x16xf32>) -> tensor<64x16xf32>
  %t = stablehlo.tanh %d : tensor<64x16xf32>
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 300>} : (tensor<64x300xf32>, tensor<5x1xi32>) -> tensor<5x300xf32>
  %sorted = "stablehlo.sort"(%x) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %lt = stablehlo.compare LT, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<64x300xf32>) -> tensor<64x300xf32>
  return %soft, %t, %g, %sorted : tensor<64x300xf32>, tensor<64x16xf32>, tensor<5x300xf32>, tensor<64x300xf32>
})";

// Every tier computes the same bits: unoptimized code (no fast-math at any level) and
// optimized code differ in speed only. A tiered compile runs the fast tier's code, then
// swaps in the optimized code its background thread compiled (and kept in the disk
// cache, where the next compile finds it and needs no fast tier).
TEST(CompileCacheTest, EveryCompileTierComputesTheSameBits) {
  auto reference = stablehlo::parseModule(kTierProgram);
  const Function& ref = *reference->lookup("main");
  interp::HostValues args;
  for (size_t i = 0; i < ref.numParams(); ++i)
    args.push_back(passes::test_util::ordinaryValues(ref.param(i)->type(), static_cast<int>(i)));
  const std::string cacheDir = ::testing::TempDir() + "/kiln_tier_cache";
  std::filesystem::remove_all(cacheDir);
  auto compiled = [&](CompileTier tier, std::string dir) {
    auto module = stablehlo::parseModule(kTierProgram);
    passes::PassContext context;
    passes::runPipeline(*module, cpuPipeline(), context);
    auto exe = std::make_unique<Executable>(*module, CompileOptions{"", std::move(dir), tier});
    return std::make_pair(std::move(module), std::move(exe));
  };
  auto [optimizedModule, optimized] = compiled(CompileTier::Optimized, "");
  const interp::HostValues expected = optimized->call(*optimizedModule->lookup("main"), args);
  EXPECT_GE(optimized->numKernels(), 3u);
  {
    auto [module, fast] = compiled(CompileTier::Fast, "");
    EXPECT_EQ(fast->waitForOptimizedCode(), 0);
    passes::test_util::expectBitIdentical(expected, fast->call(*module->lookup("main"), args), "fast tier");
  }
  auto [module, tiered] = compiled(CompileTier::Tiered, cacheDir);
  std::map<const Op*, KernelFn> before;
  for (const auto& [op, kernel] : tiered->native().kernels) before[op] = kernel.fn();
  passes::test_util::expectBitIdentical(expected, tiered->call(*module->lookup("main"), args), "tiered, first code");
  EXPECT_GT(tiered->waitForOptimizedCode(), 0);
  size_t swapped = 0;
  for (const auto& [op, kernel] : tiered->native().kernels) swapped += kernel.fn() != before.at(op);
  EXPECT_EQ(swapped, tiered->numKernels());
  passes::test_util::expectBitIdentical(expected, tiered->call(*module->lookup("main"), args), "tiered, optimized");
  // The optimized code went to the disk cache: the next tiered compile starts with it.
  auto [again, warm] = compiled(CompileTier::Tiered, cacheDir);
  EXPECT_EQ(warm->native().cachedModules, warm->native().threads);
  EXPECT_EQ(warm->native().background, nullptr);
  passes::test_util::expectBitIdentical(expected, warm->call(*again->lookup("main"), args), "tiered, from the cache");
  std::filesystem::remove_all(cacheDir);
}

}  // namespace
}  // namespace kiln::cpu
