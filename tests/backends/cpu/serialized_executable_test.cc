// Serialized executables and the warm start built on them: a deserialized executable
// computes the same bits as the one serialized, compiles nothing, keeps the source
// positions its reports and errors name; damaged, truncated or foreign bytes are an
// error, never loaded; compileSource's second call with the same text comes from the
// disk cache, and a damaged entry there is compiled again and replaced.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/disk_cache.h"
#include "backends/cpu/executable.h"
#include "backends/cpu/program_cache.h"
#include "passes/pass_manager.h"
#include "passes/pass_test_util.h"
#include "stablehlo/parser.h"

namespace kiln::cpu {
namespace {

// Kernels (two of the same code), a GEMM on BLAS, a two-phase column reduction, a loop,
// and a function that runs through the interpreter (fft has no kernel).
constexpr const char* kMixedProgram = R"(
func.func @main(%x: tensor<4096x64xf32>, %w: tensor<64x64xf32>, %n: tensor<i32>) -> (tensor<64xf32>, tensor<4096x64xf32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<4096x64xf32>
  %cols = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<4096x64xf32>, tensor<f32>) -> tensor<64xf32>
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4096x64xf32>, tensor<64x64xf32>) -> tensor<4096x64xf32>
  %t = stablehlo.tanh %d : tensor<4096x64xf32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %c0) : tensor<i32>, tensor<i32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %a1 = stablehlo.add %acc, %i : tensor<i32>
      stablehlo.return %i1, %a1 : tensor<i32>, tensor<i32>
    }
  return %cols, %t, %r#1 : tensor<64xf32>, tensor<4096x64xf32>, tensor<i32>
}

func.func @other(%x: tensor<64xf32>, %z: tensor<8xcomplex<f32>>) -> (tensor<64xf32>, tensor<8xcomplex<f32>>) {
  %e = stablehlo.exponential %x : tensor<64xf32>
  %f = stablehlo.fft %z, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  return %e, %f : tensor<64xf32>, tensor<8xcomplex<f32>>
})";

std::unique_ptr<Module> optimized(const char* text) {
  auto module = stablehlo::parseModule(SourceBuffer::fromString("program.mlir", text));
  passes::PassContext context;
  passes::runPipeline(*module, cpuPipeline(), context);
  return module;
}

interp::HostValues argsOf(const Function& fn) {
  interp::HostValues args;
  for (size_t i = 0; i < fn.numParams(); ++i)
    args.push_back(passes::test_util::ordinaryValues(fn.param(i)->type(), static_cast<int>(i)));
  return args;
}

// What a function computes on `executable`, on the ordinary values of its parameters.
interp::HostValues runOn(const Executable& executable, const std::string& name) {
  const Function& fn = *executable.module().lookup(name);
  return executable.call(fn, argsOf(fn));
}

// The report without its first line (compile times, and how the code was made).
std::string reportBody(const Executable& e) {
  std::string report = e.report();
  return report.substr(report.find('\n') + 1);
}

TEST(SerializedExecutableTest, RunsTheSameBitsWithoutCompiling) {
  auto module = optimized(kMixedProgram);
  Executable compiled(*module);
  ASSERT_GT(compiled.numKernels(), 2u);
  ASSERT_NE(compiled.report().find("BLAS, then kernel"), std::string::npos) << compiled.report();
  ASSERT_FALSE(compiled.declinedReasons().empty());  // @other's fft
  const std::string bytes = compiled.serialize();
  std::unique_ptr<Executable> loaded = Executable::deserialize(bytes, module->source);
  EXPECT_TRUE(loaded->native().deserialized);
  EXPECT_EQ(loaded->native().optimizeSeconds + loaded->native().codegenSeconds, 0);
  EXPECT_EQ(loaded->numKernels(), compiled.numKernels());
  EXPECT_NE(loaded->report().find("loaded from a serialized executable"), std::string::npos);
  // Kernels, BLAS, row groups, fallbacks and their source lines as before.
  EXPECT_EQ(reportBody(*loaded), reportBody(compiled));
  for (const char* fn : {"main", "other"})
    passes::test_util::expectBitIdentical(runOn(compiled, fn), runOn(*loaded, fn), fn);
  EXPECT_GT(loaded->nativeRuns(), 0u);
  // A loaded executable serializes to the same bytes.
  EXPECT_EQ(loaded->serialize(), bytes);
}

TEST(SerializedExecutableTest, DamagedTruncatedOrForeignBytesAreErrors) {
  auto module = optimized(kMixedProgram);
  const std::string bytes = Executable(*module).serialize();
  auto expectError = [](const std::string& b, ErrorKind kind, const std::string& says) {
    try {
      Executable::deserialize(b);
      ADD_FAILURE() << "loaded bytes that should be refused: " << says;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  for (size_t at : {size_t{30}, bytes.size() / 2, bytes.size() - 1}) {
    std::string damaged = bytes;
    damaged[at] ^= 0x20;
    expectError(damaged, ErrorKind::Io, "damaged or truncated");
  }
  expectError(bytes.substr(0, bytes.size() / 3), ErrorKind::Io, "damaged or truncated");
  expectError(bytes.substr(0, 10), ErrorKind::Io, "not a serialized executable");
  expectError("", ErrorKind::Io, "not a serialized executable");
  expectError(std::string(1000, 'x'), ErrorKind::Io, "not a serialized executable");
}

TEST(SerializedExecutableTest, AWarmStartComesFromTheDiskCacheAndADamagedEntryIsReplaced) {
  const std::string dir = ::testing::TempDir() + "/kiln_warm_start";
  std::filesystem::remove_all(dir);
  const SourceRef source = SourceBuffer::fromString("program.mlir", kMixedProgram);
  SourceCompile how{CompileOptions{"", dir}, {}, ""};
  CompiledSource cold = compileSource(source, how);
  EXPECT_FALSE(cold.warm);
  CompiledSource warm = compileSource(source, how);
  EXPECT_TRUE(warm.warm);
  EXPECT_TRUE(warm.executable->native().deserialized);
  for (const char* fn : {"main", "other"})
    passes::test_util::expectBitIdentical(runOn(*cold.executable, fn), runOn(*warm.executable, fn), fn);
  // The source's own text is what errors and reports quote.
  EXPECT_EQ(warm.executable->module().source, source);

  // Another preparation of the same text is another program.
  SourceCompile prepared = how;
  prepared.prepare = [](Module&) {};
  prepared.prepareKey = "nothing";
  EXPECT_FALSE(compileSource(source, prepared).warm);
  EXPECT_TRUE(compileSource(source, prepared).warm);

  // A damaged entry: compiled again, then warm.
  const std::string entry = DiskCache(dir).pathOf(programKey(source, how));
  ASSERT_TRUE(std::filesystem::exists(entry));
  std::filesystem::resize_file(entry, std::filesystem::file_size(entry) - 7);
  EXPECT_FALSE(compileSource(source, how).warm);
  CompiledSource again = compileSource(source, how);
  EXPECT_TRUE(again.warm);
  passes::test_util::expectBitIdentical(runOn(*cold.executable, "main"), runOn(*again.executable, "main"), "main");

  // No disk cache, no warm start.
  EXPECT_FALSE(compileSource(source, SourceCompile{}).warm);
  EXPECT_FALSE(compileSource(source, SourceCompile{}).warm);
}

TEST(SerializedExecutableTest, AFileOfSeveralModulesIsRefused) {
  const SourceRef source = SourceBuffer::fromString("two.mlir", std::string(kMixedProgram) + "\n// -----\n" + kMixedProgram);
  try {
    compileSource(source, SourceCompile{});
    ADD_FAILURE() << "compiled a file of two modules";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("two.mlir has 2 parts"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::cpu
