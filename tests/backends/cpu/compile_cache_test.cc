// The compile cache: the same program (even with other SSA names and source lines)
// compiles once per options, other programs and options compile apart, a failed compile
// leaves nothing behind, concurrent requests for one program compile it once, and the
// cached executable computes what the interpreter does.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "backends/cpu/compile_cache.h"
#include "interp/interpreter.h"
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

}  // namespace
}  // namespace kiln::cpu
