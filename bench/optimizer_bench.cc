// Figures of the optimizing pipeline.
//  1. For the programs in bench/programs/ (d = a*b + c, softmax, layernorm, an MLP
//     forward pass and its gradient program): kernels before and after fusion, the sum of
//     all value sizes, and peak live bytes without and with fusion (side by side: the
//     same pipeline minus the fusion pass is the reference).
//  2. Pipeline time on generated modules of about 1k, 10k, 100k and 200k ops, with the
//     time per op, to show how it grows; and the passes' share at 10k.
// Run: build/bench/optimizer_bench (make bench).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "support/error.h"

namespace {

namespace fs = std::filesystem;
using namespace kiln;

struct Figures {
  int64_t kernelsBefore = 0, kernelsAfter = 0;
  int64_t valueBytes = 0, peakBytes = 0, arenaBytes = 0;
};

Figures optimize(const std::string& text, const std::vector<std::string>& passNames) {
  std::unique_ptr<Module> module = stablehlo::parseModule(text);
  passes::PassContext context;
  context.options.verifyEachPass = true;
  passes::runPipeline(*module, passNames, context);
  Figures f;
  f.kernelsBefore = context.fusionPlan.kernelsBefore;
  f.kernelsAfter = context.fusionPlan.kernelsAfter;
  for (const passes::BufferAssignment& b : context.buffers) {
    f.valueBytes += b.totalValueBytes;
    f.peakBytes += b.peakLiveBytes;
    f.arenaBytes += b.arenaBytes;
  }
  return f;
}

std::string readFile(const fs::path& path) {
  return std::string(SourceBuffer::fromFile(path.string())->text());
}

std::string mib(int64_t bytes) { return fmt::format("{:.2f} MiB", bytes / double(1 << 20)); }

void programFigures() {
  std::vector<std::string> unfused;
  for (const std::string& p : passes::defaultPipeline())
    if (p != "fusion") unfused.push_back(p);
  fmt::print("{:<16} {:>8} {:>8} {:>12} {:>14} {:>14} {:>12}\n", "program", "kernels", "fused", "sum values",
             "peak unfused", "peak fused", "arena fused");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "bench" / "programs"))
    if (e.path().extension() == ".mlir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::string text = readFile(file);
    Figures reference = optimize(text, unfused);
    Figures fused = optimize(text, passes::defaultPipeline());
    fmt::print("{:<16} {:>8} {:>8} {:>12} {:>14} {:>14} {:>12}\n", file.stem().string(), fused.kernelsBefore,
               fused.kernelsAfter, mib(fused.valueBytes), mib(reference.peakBytes), mib(fused.peakBytes),
               mib(fused.arenaBytes));
  }
}

// A module of `blocks` blocks of 13 ops in one chain, with what each pass has to find in
// real programs: duplicates (CSE), dead ops (DCE), constant arithmetic (folding),
// transpose pairs and x*1 (simplification), and elementwise/broadcast/reduce mixes
// (fusion).
std::string generateModule(int blocks) {
  std::string s;
  s.reserve(static_cast<size_t>(blocks) * 1400);
  s += "func.func @main(%p: tensor<64x128xf32>, %bias: tensor<128xf32>) -> tensor<64x128xf32> {\n";
  s += "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n";
  s += "  %one = stablehlo.constant dense<1.0> : tensor<64x128xf32>\n";
  std::string x = "%p";
  for (int i = 0; i < blocks; ++i) {
    auto v = [&](const char* name) { return fmt::format("%{}_{}", name, i); };
    const char* T = "tensor<64x128xf32>";
    s += fmt::format("  {} = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<128xf32>) -> {}\n", v("b"), T);
    s += fmt::format("  {} = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<128xf32>) -> {}\n", v("bb"), T);
    s += fmt::format("  {} = stablehlo.add {}, {} : {}\n", v("a"), x, v("b"), T);
    s += fmt::format("  {} = stablehlo.multiply {}, {} : {}\n", v("c"), v("a"), v("bb"), T);
    s += fmt::format("  {} = stablehlo.multiply {}, %one : {}\n", v("c1"), v("c"), T);
    s += fmt::format("  {} = stablehlo.exponential {} : {}\n", v("d"), v("c1"), T);
    s += fmt::format("  {} = stablehlo.transpose {}, dims = [1, 0] : ({}) -> tensor<128x64xf32>\n", v("t"), v("d"), T);
    s += fmt::format("  {} = stablehlo.transpose {}, dims = [1, 0] : (tensor<128x64xf32>) -> {}\n", v("u"), v("t"), T);
    s += fmt::format("  {} = stablehlo.reduce({} init: %zero) applies stablehlo.add across dimensions = [1] : "
                     "({}, tensor<f32>) -> tensor<64xf32>\n", v("r"), v("u"), T);
    s += fmt::format("  {} = stablehlo.broadcast_in_dim {}, dims = [0] : (tensor<64xf32>) -> {}\n", v("rb"), v("r"), T);
    s += fmt::format("  {} = stablehlo.negate {} : {}\n", v("dead"), v("a"), T);
    s += fmt::format("  {} = stablehlo.constant dense<{}.0> : tensor<64xf32>\n", v("k"), i % 7 + 1);
    s += fmt::format("  {} = stablehlo.add {}, {} : tensor<64xf32>\n", v("kk"), v("k"), v("k"));
    s += fmt::format("  {} = stablehlo.broadcast_in_dim {}, dims = [0] : (tensor<64xf32>) -> {}\n", v("kb"), v("kk"), T);
    s += fmt::format("  {} = stablehlo.subtract {}, {} : {}\n", v("s"), v("u"), v("rb"), T);
    s += fmt::format("  {} = stablehlo.divide {}, {} : {}\n", v("x"), v("s"), v("kb"), T);
    x = v("x");
  }
  s += fmt::format("  return {} : tensor<64x128xf32>\n}}\n", x);
  return s;
}

void pipelineTimes() {
  fmt::print("\n{:>8} {:>10} {:>12} {:>10}\n", "blocks", "ops", "pipeline", "per op");
  passes::PipelineResult at10k;
  // 200k too: from 100k to 200k the time should double (past the cache, every size
  // pays the same memory latency per op).
  for (int blocks : {62, 625, 6250, 12500}) {
    std::string text = generateModule(blocks);
    double best = 1e9;
    int64_t ops = 0;
    int runs = blocks > 10000 ? 1 : blocks > 1000 ? 2 : 5;
    for (int r = 0; r < runs; ++r) {
      std::unique_ptr<Module> module = stablehlo::parseModule(text);
      ops = passes::countOps(*module);
      passes::PassContext context;
      passes::PipelineResult result = passes::runPipeline(*module, passes::defaultPipeline(), context);
      if (result.seconds < best) {
        best = result.seconds;
        if (blocks == 625) at10k = result;
      }
    }
    fmt::print("{:>8} {:>10} {:>9.1f} ms {:>7.2f} us\n", blocks, ops, best * 1e3, best * 1e6 / ops);
  }
  fmt::print("\npasses on the {}-op module:\n", at10k.passes.empty() ? 0 : at10k.passes.front().opsBefore);
  for (const passes::PassStats& p : at10k.passes)
    fmt::print("  {:<10} {:7.2f} ms  ops {} -> {}\n", p.name, p.seconds * 1e3, p.opsBefore, p.opsAfter);
}

}  // namespace

int main(int argc, char** argv) {
  // `optimizer_bench --emit BLOCKS` prints a generated module (to look at with kiln compile).
  if (argc == 3 && std::string(argv[1]) == "--emit") {
    fmt::print("{}", generateModule(std::stoi(argv[2])));
    return 0;
  }
  try {
    programFigures();
    pipelineTimes();
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "%s\n", e.format().c_str());
    return 1;
  }
  return 0;
}
