// Source buffers: reading files and turning byte offsets into line:column.
#include "support/source.h"

#include <algorithm>
#include <fstream>

#include "support/error.h"

namespace kiln {

std::shared_ptr<const SourceBuffer> SourceBuffer::fromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(ErrorKind::Io, "cannot open '" + path + "'");
  std::streamoff size = in.tellg();
  if (size < 0) throw Error(ErrorKind::Io, "cannot read '" + path + "' (not a regular file?)");
  std::string text(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(text.data(), size);
  if (!in) throw Error(ErrorKind::Io, "cannot read '" + path + "'");
  return std::make_shared<const SourceBuffer>(path, std::move(text));
}

std::shared_ptr<const SourceBuffer> SourceBuffer::fromString(std::string name, std::string text) {
  return std::make_shared<const SourceBuffer>(std::move(name), std::move(text));
}

SourceBuffer::SourceBuffer(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

SourcePos SourceBuffer::posOf(size_t offset) const {
  if (offset > text_.size()) offset = text_.size();
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  size_t line = static_cast<size_t>(it - lineStarts_.begin());  // 1-based
  return SourcePos{static_cast<uint32_t>(line), static_cast<uint32_t>(offset - lineStarts_[line - 1] + 1)};
}

std::string_view SourceBuffer::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  size_t start = lineStarts_[line - 1];
  size_t end = line < lineStarts_.size() ? lineStarts_[line] - 1 : text_.size();
  std::string_view view = std::string_view(text_).substr(start, end - start);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

}  // namespace kiln
