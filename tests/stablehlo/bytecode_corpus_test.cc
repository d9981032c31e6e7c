// Every program of ../shared that jaxlib's serializer takes, as a portable artifact at
// kiln's StableHLO version (tests/stablehlo/serialize_corpus.py writes them into
// $KILN_BYTECODE_CORPUS, beside their text): each reads into the module its text reads
// into (the same fingerprint). ctest's bytecode_corpus runs this after serializing;
// skipped without the folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "ir/fingerprint.h"
#include "stablehlo/bytecode.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

TEST(BytecodeCorpusTest, EachArtifactReadsAsItsText) {
  const char* dir = std::getenv("KILN_BYTECODE_CORPUS");
  if (!dir || !std::filesystem::is_directory(dir)) GTEST_SKIP() << "no KILN_BYTECODE_CORPUS folder";
  size_t same = 0, total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".mlirbc") continue;
    ++total;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    std::filesystem::path text = entry.path();
    text.replace_extension(".mlir");
    try {
      const Fingerprint fromBytecode = fingerprint(*parseBytecode(bytes, entry.path().string()));
      const Fingerprint fromText = fingerprint(*parseModule(SourceBuffer::fromFile(text.string())));
      EXPECT_EQ(fromBytecode, fromText) << entry.path().filename();
      same += fromBytecode == fromText;
    } catch (const Error& e) {
      ADD_FAILURE() << entry.path().filename() << ": " << e.what();
    }
  }
  EXPECT_GT(total, 0u);
  std::printf("%zu of %zu artifacts read into their text's module\n", same, total);
}

}  // namespace
}  // namespace kiln::stablehlo
