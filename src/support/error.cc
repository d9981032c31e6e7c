// Formatting of kiln::Error as compiler-style diagnostics.
#include "support/error.h"

#include <algorithm>

namespace kiln {

const char* errorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Parse: return "parse";
    case ErrorKind::Verify: return "verify";
    case ErrorKind::Shape: return "shape";
    case ErrorKind::Type: return "type";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Io: return "io";
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Runtime: return "runtime";
    case ErrorKind::ResourceExhausted: return "resource exhausted";
    case ErrorKind::Internal: return "internal";
  }
  return "unknown";
}

Error& Error::at(SourceRef source, SourcePos pos) {
  if (!pos_.known() && pos.known()) {
    source_ = std::move(source);
    pos_ = pos;
  }
  return *this;
}

bool isLocatedDiagnostic(std::string_view message) {
  // name:digits:digits: error: on the first line
  const std::string_view first = message.substr(0, message.find('\n'));
  const size_t tag = first.find(": error: ");
  if (tag == std::string_view::npos) return false;
  std::string_view head = first.substr(0, tag);
  for (int field = 0; field < 2; ++field) {
    const size_t colon = head.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == head.size()) return false;
    for (char c : head.substr(colon + 1))
      if (c < '0' || c > '9') return false;
    head = head.substr(0, colon);
  }
  return !head.empty();
}

std::string Error::format() const {
  std::string out;
  bool located = source_ && pos_.known();
  if (!located && isLocatedDiagnostic(what())) return what();
  if (located) {
    out = source_->name() + ":" + std::to_string(pos_.line) + ":" + std::to_string(pos_.col) + ": ";
  }
  out += "error: ";
  out += what();
  if (!located) return out;

  // Very long lines (hex constants) are cut around the column so the caret stays readable.
  constexpr size_t kContext = 100;
  std::string_view line = source_->lineText(pos_.line);
  size_t col = std::min<size_t>(pos_.col - 1, line.size());
  size_t start = col > kContext ? col - kContext : 0;
  std::string_view shown = line.substr(start, 2 * kContext);
  std::string prefix = start > 0 ? "..." : "";
  out += "\n" + prefix;
  out.append(shown);
  if (start + shown.size() < line.size()) out += "...";
  out += "\n" + std::string(prefix.size(), ' ');
  // Keep tabs so the caret lines up under tab-indented text.
  for (size_t i = 0; i < col - start; ++i) out += shown[i] == '\t' ? '\t' : ' ';
  out += "^";
  return out;
}

void throwUnsupported(const std::string& what) {
  throw Error(ErrorKind::Unsupported, "unsupported: " + what);
}

}  // namespace kiln
