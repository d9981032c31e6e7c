// Source text and positions in it: what every error message points at.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// A 1-based line and column in a source buffer; line 0 means "no position".
struct SourcePos {
  uint32_t line = 0;
  uint32_t col = 0;
  bool known() const { return line != 0; }
  bool operator==(const SourcePos&) const = default;
};

// A named text buffer (a file or stdin). Shared so that errors and IR can refer to it
// after the parser is gone, and cheap to pass around.
class SourceBuffer {
 public:
  SourceBuffer(std::string name, std::string text);

  // Reads a whole file; throws kiln::Error (kind Io) when it cannot.
  static std::shared_ptr<const SourceBuffer> fromFile(const std::string& path);
  static std::shared_ptr<const SourceBuffer> fromString(std::string name, std::string text);

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // The position of byte `offset` (counting lines from 1, columns in bytes from 1).
  SourcePos posOf(size_t offset) const;
  // The text of line `line` without its newline; empty when out of range.
  std::string_view lineText(uint32_t line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> lineStarts_;  // byte offset of each line's first character
};

using SourceRef = std::shared_ptr<const SourceBuffer>;

}  // namespace kiln
