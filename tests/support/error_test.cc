// Diagnostics: file:line:col, the source line and a caret.
#include "support/error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace kiln {
namespace {

TEST(ErrorTest, FormatsPositionLineAndCaret) {
  auto src = SourceBuffer::fromString("f.mlir", "first\n  second line\nthird");
  Error e(ErrorKind::Parse, "bad thing", src, src->posOf(8));  // 's' of "second"
  EXPECT_EQ(e.format(), "f.mlir:2:3: error: bad thing\n  second line\n  ^");
}

TEST(ErrorTest, WithoutPositionIsJustTheMessage) {
  Error e(ErrorKind::Io, "cannot open 'x'");
  EXPECT_EQ(e.format(), "error: cannot open 'x'");
}

// Every kind has its own name (reports and the C API key on it); usage errors are not
// I/O errors.
TEST(ErrorTest, EveryKindHasItsOwnName) {
  const ErrorKind kinds[] = {ErrorKind::Parse,   ErrorKind::Verify,      ErrorKind::Shape,
                             ErrorKind::Type,    ErrorKind::Unsupported, ErrorKind::Io,
                             ErrorKind::Usage,   ErrorKind::Runtime,     ErrorKind::Internal};
  std::set<std::string> names;
  for (ErrorKind k : kinds) {
    std::string name = errorKindName(k);
    EXPECT_NE(name, "unknown");
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(kinds));
  EXPECT_STREQ(errorKindName(ErrorKind::Usage), "usage");
  EXPECT_STREQ(errorKindName(ErrorKind::Io), "io");
  Error e(ErrorKind::Usage, "unknown pass 'x'");
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_EQ(e.format(), "error: unknown pass 'x'");
}

TEST(ErrorTest, LongLinesAreCutAroundTheColumn) {
  std::string line(500, 'a');
  line[300] = 'X';
  auto src = SourceBuffer::fromString("f", line);
  Error e(ErrorKind::Parse, "here", src, src->posOf(300));
  std::string out = e.format();
  EXPECT_NE(out.find("..."), std::string::npos);
  // The caret sits under the X.
  size_t lineStart = out.find('\n') + 1;
  size_t caretLine = out.find('\n', lineStart) + 1;
  size_t xCol = out.find('X', lineStart) - lineStart;
  EXPECT_EQ(out.find('^', caretLine) - caretLine, xCol);
}

TEST(SourceTest, PositionsAndLines) {
  auto src = SourceBuffer::fromString("f", "ab\ncd\n\nef");
  EXPECT_EQ(src->posOf(0), (SourcePos{1, 1}));
  EXPECT_EQ(src->posOf(4), (SourcePos{2, 2}));
  EXPECT_EQ(src->posOf(6), (SourcePos{3, 1}));
  EXPECT_EQ(src->lineText(2), "cd");
  EXPECT_EQ(src->lineText(3), "");
  EXPECT_EQ(src->lineText(4), "ef");
  EXPECT_EQ(src->lineText(5), "");
}

}  // namespace
}  // namespace kiln
