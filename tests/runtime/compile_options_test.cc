// What API 0.5 added to compiling and executing, on both plugins: named compile options
// (fill_elided_seed, memory_limit, probe_dir; unknown names refused), a time limit on an execution, and the host's
// compilation cache of serialized executables (runtime/compilation_cache.h), a module
// entered at several functions, and the plugin's statistics of an executable.
#include <chrono>
#include <filesystem>
#include <map>

#include "runtime/compilation_cache.h"
#include "runtime_test_util.h"
#include "support/disk_cache.h"

namespace kiln::runtime::testing {
namespace {

using Clock = std::chrono::steady_clock;

// A program whose constant the exporter left out: its value comes from the seed.
constexpr const char* kElided = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
  %y = stablehlo.add %x, %w : tensor<4xf32>
  return %y : tensor<4xf32>
}
)";

// Needs at least 2 x 64 MiB at its peak (its parameter and its result).
constexpr const char* kBig = R"(
func.func @main(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %y = stablehlo.sine %x : tensor<16777216xf32>
  %z = stablehlo.cosine %y : tensor<16777216xf32>
  return %z : tensor<16777216xf32>
}
)";

class CompileOptionsTest : public ::testing::TestWithParam<const char*> {
 protected:
  Client client(int64_t memoryLimit = 0) const { return Client(Plugin::load(GetParam()), ClientOptions{1, memoryLimit}); }
  static std::vector<float> run(const Client& client, const Executable& executable, const Literal& x) {
    Device d = client.devices()[0];
    Buffer arg = client.bufferFromHost(x, d);
    Executable::Execution e = executable.execute({&arg}, d);
    Literal out = e.outputs[0].toLiteral();
    std::vector<float> values;
    for (int64_t i = 0; i < out.numElements(); ++i) values.push_back(static_cast<float>(out.floatAt(i)));
    return values;
  }
  static std::string freshDir(const std::string& name) {
    std::string dir = (std::filesystem::temp_directory_path() / ("kiln_compilation_cache_" + name + "_" + GetParam()))
                          .string();
    std::filesystem::remove_all(dir);
    return dir;
  }
};

TEST_P(CompileOptionsTest, FillElidedSeedDecidesTheMissingConstant) {
  Client c = client();
  auto compileWith = [&](const std::string& seed) {
    CompileOptions options;
    options.namedOptions = {{"fill_elided_seed", seed}};
    return c.compile(kElided, options);
  };
  const Literal zeros = f32({4}, {0, 0, 0, 0});
  const std::vector<float> one = run(c, compileWith("7"), zeros);
  EXPECT_EQ(run(c, compileWith("7"), zeros), one);
  EXPECT_NE(run(c, compileWith("8"), zeros), one);
  expectError([&] { compileWith("seven"); }, ErrorKind::Usage, "fill_elided_seed is 'seven', not a decimal seed");
  expectError([&] { compileWith("-1"); }, ErrorKind::Usage, "not a decimal seed");
}

TEST_P(CompileOptionsTest, AnUnknownOptionIsRefusedNamingTheKnownOnes) {
  CompileOptions options;
  options.namedOptions = {{"unroll_everything", "yes"}};
  expectError([&] { client().compile(kAddOne, options); }, ErrorKind::Usage,
              "No such compile option: 'unroll_everything' (this plugin knows: fill_elided_seed, memory_limit, "
              "probe_dir, profile, kernel_cache_dir, and takes XLA's xla_* options without using them)");
  // XLA's own debug options are taken (a framework passes them to any XLA backend).
  options.namedOptions = {{"xla_embed_ir_in_executable", "true"}};
  EXPECT_NO_THROW(client().compile(kAddOne, options));
}

TEST_P(CompileOptionsTest, AMemoryLimitRefusesAProgramWhenItCompiles) {
  auto compileUnder = [&](const std::string& limit) {
    CompileOptions options;
    options.namedOptions = {{"memory_limit", limit}};
    return client().compile(kBig, options);
  };
  // 100 MiB cannot hold two 64 MiB buffers; 1 GiB can.
  expectError([&] { compileUnder(std::to_string(100 << 20)); }, ErrorKind::ResourceExhausted, "@main needs");
  EXPECT_NO_THROW(compileUnder(std::to_string(1 << 30)));
  expectError([&] { compileUnder("1G"); }, ErrorKind::Usage, "memory_limit is '1G', not a decimal number of bytes");
}

TEST_P(CompileOptionsTest, ATimeLimitStopsAnEndlessExecution) {
  Client c = client();
  Executable slow = c.compile(kSlowProgram);
  Device d = c.devices()[0];
  Buffer n = c.bufferFromHost(i64Scalar(int64_t{1} << 40), d);  // hours of work
  Buffer x = c.bufferFromHost(ramp256(), d);
  ExecuteOptions options;
  options.timeLimit = std::chrono::milliseconds(200);
  Clock::time_point start = Clock::now();
  Executable::Execution e = slow.execute({&n, &x}, d, options);
  expectError([&] { e.done.await(); }, ErrorKind::Runtime, "time limit exceeded");
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 20);
  // An execution within its limit is unaffected.
  Buffer few = c.bufferFromHost(i64Scalar(3), d);
  options.timeLimit = std::chrono::seconds(60);
  EXPECT_NO_THROW(slow.execute({&few, &x}, d, options).done.await());
}

TEST_P(CompileOptionsTest, TheCacheTurnsASecondCompileIntoADeserialize) {
  Client c = client();
  const std::string dir = freshDir("warm");
  const Literal x = f32({4}, {1, 2, 3, 4});
  CachedCompile cold = compileCached(c, kAddOne, {}, dir);
  EXPECT_FALSE(cold.warm);
  CachedCompile warm = compileCached(c, kAddOne, {}, dir);
  EXPECT_TRUE(warm.warm);
  EXPECT_EQ(run(c, warm.executable, x), run(c, cold.executable, x));
  // Another option or another text is another entry.
  CompileOptions seeded;
  seeded.namedOptions = {{"fill_elided_seed", "3"}};
  EXPECT_FALSE(compileCached(c, kAddOne, seeded, dir).warm);
  EXPECT_TRUE(compileCached(c, kAddOne, seeded, dir).warm);
  EXPECT_FALSE(compileCached(c, kElided, seeded, dir).warm);
}

TEST_P(CompileOptionsTest, ADamagedEntryIsCompiledAgainAndReplaced) {
  Client c = client();
  const std::string dir = freshDir("damaged");
  compileCached(c, kAddOne, {}, dir);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) std::filesystem::resize_file(entry.path(), 40);
  EXPECT_FALSE(compileCached(c, kAddOne, {}, dir).warm);
  EXPECT_TRUE(compileCached(c, kAddOne, {}, dir).warm);
}

TEST_P(CompileOptionsTest, FastCompilesReadTheOptimizedEntryAndStoreNothing) {
  Client c = client();
  const std::string dir = freshDir("tiers");
  CompileOptions fast;
  fast.optimization = Optimization::Fast;
  EXPECT_FALSE(compileCached(c, kAddOne, fast, dir).warm);
  EXPECT_FALSE(compileCached(c, kAddOne, fast, dir).warm);  // nothing was stored
  EXPECT_FALSE(compileCached(c, kAddOne, {}, dir).warm);
  EXPECT_TRUE(compileCached(c, kAddOne, fast, dir).warm);
}

TEST_P(CompileOptionsTest, NothingIsCachedWithAProbeFolderOrWithoutAFolder) {
  Client c = client();
  const std::string dir = freshDir("probe");
  CompileOptions probing;
  probing.namedOptions = {{"probe_dir", dir + "/probes"}};
  compileCached(c, kAddOne, probing, dir);
  EXPECT_FALSE(compileCached(c, kAddOne, probing, dir).warm);
  EXPECT_FALSE(compileCached(c, kAddOne, {}, "").warm);
  EXPECT_FALSE(compileCached(c, kAddOne, {}, "").warm);
}

TEST_P(CompileOptionsTest, ADeserializedProgramsErrorsPointIntoItsOriginalText) {
  Client c = client();
  const std::string dir = freshDir("positions");
  CompileOptions named;
  named.name = "loop.mlir";
  compileCached(c, kSlowProgram, named, dir);
  CachedCompile warm = compileCached(c, kSlowProgram, named, dir);
  ASSERT_TRUE(warm.warm);
  Device d = c.devices()[0];
  Buffer n = c.bufferFromHost(i64Scalar(int64_t{1} << 40), d);
  Buffer x = c.bufferFromHost(ramp256(), d);
  ExecuteOptions options;
  options.timeLimit = std::chrono::milliseconds(100);
  expectError([&] { warm.executable.execute({&n, &x}, d, options).done.await(); }, ErrorKind::Runtime,
              "time limit exceeded");
  if (std::string(GetParam()) == "interp")  // the interpreter stops at the loop, at its line in the text
    expectError([&] { warm.executable.execute({&n, &x}, d, options).done.await(); }, ErrorKind::Runtime,
                "loop.mlir:5:");
}

// A module compiled once and entered at each of its functions (executable_with_entry),
// and the plugin's statistics of it (the cpu plugin's kernels and their runs).
TEST_P(CompileOptionsTest, OneModuleRunsAtSeveralEntries) {
  Client c = client();
  // kAddOne's @main (x + 1), and x * x beside it.
  Executable plusOne = c.compile(std::string(kAddOne) + R"(
func.func @square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.multiply %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
})");
  Executable square = plusOne.withEntry("square");
  const Literal x = f32({4}, {1, 2, 3, 4});
  EXPECT_EQ(run(c, plusOne, x), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(run(c, square, x), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(square.info().name, "square");
  expectError([&] { plusOne.withEntry("cube"); }, ErrorKind::Usage, "no function @cube");
  std::map<std::string, double> stats;
  for (const auto& [name, value] : square.statistics()) stats[name] = value;
  if (std::string(GetParam()) == "cpu") {
    EXPECT_GE(stats["native_kernels"], 2);  // both functions' adds, compiled once
    EXPECT_GE(stats["kernel_runs"], 2);
    EXPECT_EQ(stats.count("interpreted_ops"), 1u);
  } else {
    EXPECT_TRUE(stats.empty());
  }
}

// API 0.7: texts about an executable by name (executable_text), and profiles of its runs.
TEST_P(CompileOptionsTest, AnExecutableSaysWhatItRunsAndWhatItDid) {
  Client c = client();
  Executable plusOne = c.compile(kAddOne);
  const std::string program = plusOne.text("program");
  EXPECT_NE(program.find("func.func @main"), std::string::npos) << program;
  EXPECT_NE(program.find("stablehlo.add"), std::string::npos) << program;
  if (std::string(GetParam()) == "cpu") {
    // The pipeline's passes and figures, then how @main runs.
    const std::string report = plusOne.text("report");
    EXPECT_NE(report.find("fusion:"), std::string::npos) << report;
    EXPECT_NE(report.find("@main: "), std::string::npos) << report;
    expectError([&] { plusOne.text("profile"); }, ErrorKind::Usage,
                "no text 'profile' of this executable (it has: program, report, fallbacks)");
    // Every op of it runs natively; an op without native code sends its function to the
    // interpreter, which the statistics count and "fallbacks" names with its line.
    EXPECT_EQ(plusOne.text("fallbacks"), "");
    auto interpretedFunctions = [](const Executable& e) {
      for (const auto& [name, value] : e.statistics())
        if (name == "interpreted_functions") return value;
      return -1.0;
    };
    EXPECT_EQ(interpretedFunctions(plusOne), 0);
    Executable fft = c.compile(R"(
func.func @main(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %r = stablehlo.fft %x, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  return %r : tensor<8xcomplex<f32>>
})");
    EXPECT_EQ(interpretedFunctions(fft), 1);
    EXPECT_NE(fft.text("fallbacks").find("@main runs on the interpreter: stablehlo.fft at "), std::string::npos)
        << fft.text("fallbacks");
  } else {
    expectError([&] { plusOne.text("report"); }, ErrorKind::Usage, "no text 'report' of this executable (it has: program)");
  }
}

TEST_P(CompileOptionsTest, AProfiledExecutableRecordsItsRuns) {
  Client c = client();
  CompileOptions profiled;
  profiled.namedOptions = {{"profile", "1"}};
  if (std::string(GetParam()) != "cpu") {
    EXPECT_FALSE(c.plugin().says("kiln_profiles"));
    expectError([&] { c.compile(kAddOne, profiled); }, ErrorKind::Unsupported, "the interp plugin records no profiles");
    return;
  }
  EXPECT_TRUE(c.plugin().says("kiln_profiles"));
  Executable recording = c.compile(kAddOne, profiled);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(run(c, recording, f32({4}, {1, 2, 3, 4})), (std::vector<float>{2, 3, 4, 5}));
  const std::string trace = recording.text("profile");
  EXPECT_NE(trace.find("\"traceEvents\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("stablehlo.add"), std::string::npos) << trace;  // the step's op
  const std::string summary = recording.text("profile_summary");
  EXPECT_NE(summary.find("steps that took longest"), std::string::npos) << summary;
  EXPECT_NE(summary.find("per run: "), std::string::npos) << summary;
  profiled.namedOptions = {{"profile", "yes"}};
  expectError([&] { c.compile(kAddOne, profiled); }, ErrorKind::Usage, "profile is 'yes' (1 or 0)");
  // The processes of a profiled execution on two devices meet in their all_reduce (runs
  // are recorded side by side: one waiting for the other to finish would never end).
  Client two(Plugin::load(GetParam()), ClientOptions{2, 0});
  profiled.namedOptions = {{"profile", "1"}};
  profiled.replicas = 2;
  Executable both = two.compile(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
})", profiled);
  std::vector<Device> ds = two.devices();
  Buffer x0 = two.bufferFromHost(f32({4}, {1, 2, 3, 4}), ds[0]), x1 = two.bufferFromHost(f32({4}, {10, 20, 30, 40}), ds[1]);
  std::vector<Executable::Execution> runs = both.execute({{&x0}, {&x1}}, ds);
  for (auto& r : runs) EXPECT_EQ(r.outputs[0].toLiteral(), f32({4}, {11, 22, 33, 44}));
  EXPECT_NE(both.text("profile").find("\"traceEvents\""), std::string::npos);
}

// The cpu plugin keeps the kernels' machine code in kernel_cache_dir: a second process
// (here: client) compiling the same kernels takes them from there.
TEST_P(CompileOptionsTest, KernelsComeFromTheKernelCacheTheSecondTime) {
  if (std::string(GetParam()) != "cpu") GTEST_SKIP() << "the interp plugin compiles no kernels";
  const std::string dir = freshDir("kernels");
  CompileOptions cached;
  cached.namedOptions = {{"kernel_cache_dir", dir}};
  const std::string cold = client().compile(kAddOne, cached).text("report");
  EXPECT_EQ(cold.find("from the disk cache"), std::string::npos) << cold;
  const std::string warm = client().compile(kAddOne, cached).text("report");
  EXPECT_NE(warm.find("from the disk cache"), std::string::npos) << warm;
}

INSTANTIATE_TEST_SUITE_P(Plugins, CompileOptionsTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
