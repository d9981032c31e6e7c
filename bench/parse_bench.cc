// Parse + verify throughput on the largest conformance file and on an op-dense model,
// side by side with a reference in the same run: one pass of summing the bytes of the
// same text (the least any reader of the text must do). Prints MB/s and the ratio.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace {

namespace fs = std::filesystem;

fs::path shared() { return fs::path(KILN_SOURCE_DIR) / ".." / "shared"; }

// The inputs: the largest .mlir file of the conformance suites, and BERT (many ops).
const std::map<std::string, kiln::SourceRef>& inputs() {
  static const std::map<std::string, kiln::SourceRef> kInputs = [] {
    std::map<std::string, kiln::SourceRef> m;
    fs::path largest;
    uintmax_t size = 0;
    if (fs::exists(shared() / "conformance")) {
      for (const auto& e : fs::recursive_directory_iterator(shared() / "conformance")) {
        if (e.is_regular_file() && e.path().extension() == ".mlir" && e.file_size() > size) {
          size = e.file_size();
          largest = e.path();
        }
      }
    }
    if (!largest.empty()) m["largest:" + largest.filename().string()] = kiln::SourceBuffer::fromFile(largest.string());
    fs::path bert = shared() / "models/enzyme-jax/pt_bert.mlir";
    if (fs::exists(bert)) m["model:pt_bert.mlir"] = kiln::SourceBuffer::fromFile(bert.string());
    return m;
  }();
  return kInputs;
}

void BM_ReadBytes(benchmark::State& state, kiln::SourceRef src) {
  std::string_view text = src->text();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (char c : text) sum += static_cast<unsigned char>(c);
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_ParseVerify(benchmark::State& state, kiln::SourceRef src) {
  for (auto _ : state) {
    auto modules = kiln::stablehlo::parseFile(src);  // verifies too
    benchmark::DoNotOptimize(modules);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src->text().size()));
}

void BM_Print(benchmark::State& state, kiln::SourceRef src) {
  auto modules = kiln::stablehlo::parseFile(src);
  for (auto _ : state) {
    for (const auto& m : modules) benchmark::DoNotOptimize(kiln::stablehlo::printModule(*m));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src->text().size()));
}

// Collects bytes/s of each run to print the ratios at the end.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> rates;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      auto it = r.counters.find("bytes_per_second");
      if (it != r.counters.end()) rates[r.benchmark_name()] = it->second;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (inputs().empty()) {
    std::printf("../shared is absent: nothing to benchmark\n");
    return 0;
  }
  for (const auto& [name, src] : inputs()) {
    benchmark::RegisterBenchmark(("read_bytes/" + name).c_str(), BM_ReadBytes, src)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("parse_verify/" + name).c_str(), BM_ParseVerify, src)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("print/" + name).c_str(), BM_Print, src)->Unit(benchmark::kMillisecond);
  }
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\n%-48s %10s %10s %8s\n", "input", "MB/s", "read MB/s", "ratio");
  for (const auto& [name, src] : inputs()) {
    double read = reporter.rates["read_bytes/" + name];
    for (const char* what : {"parse_verify/", "print/"}) {
      double rate = reporter.rates[what + name];
      if (rate == 0 || read == 0) continue;
      std::printf("%-48s %10.1f %10.1f %8.3f\n", (what + name).c_str(), rate / 1e6, read / 1e6, rate / read);
    }
  }
  return 0;
}
