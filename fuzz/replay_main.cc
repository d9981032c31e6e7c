// The fuzz targets without libFuzzer (built with any compiler): runs the target on each
// file given, and on the regular files of each folder given (in name order; with
// `--every N`, on every Nth of those in the folders after it), the way libFuzzer
// replays a corpus. CTest runs
// them on seed corpora, so every input a fuzzer once broke on stays a regression test.
// Prints how many inputs ran; a bug aborts (or is a sanitizer report) as under libFuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  size_t every = 1;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--every" && i + 1 < argc) {
      every = std::max<size_t>(1, std::strtoul(argv[++i], nullptr, 10));
      continue;
    }
    if (!fs::is_directory(arg)) {
      inputs.emplace_back(arg);
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(arg))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (size_t k = 0; k < files.size(); k += every) inputs.push_back(files[k]);
  }
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs ran\n", inputs.size());
  return 0;
}
