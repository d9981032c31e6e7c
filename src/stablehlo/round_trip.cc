// The parse/print fixed-point check.
#include "stablehlo/round_trip.h"

#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/error.h"

namespace kiln::stablehlo {

namespace {

std::string printAll(const std::vector<std::unique_ptr<Module>>& modules) {
  std::string text;
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i) text += "\n// -----\n\n";
    text += printModule(*modules[i]);
  }
  return text;
}

// The first line where two texts differ, for the report.
std::string firstDifference(const std::string& a, const std::string& b) {
  size_t line = 1, start = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) {
      auto lineOf = [&](const std::string& s) { return s.substr(start, s.find('\n', start) - start); };
      return "line " + std::to_string(line) + " differs:\n  first:  " + lineOf(a) + "\n  second: " + lineOf(b);
    }
    if (a[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  return "the outputs differ in length";
}

}  // namespace

RoundTripResult checkRoundTrip(const SourceRef& source) {
  RoundTripResult result;
  std::string printed;
  try {
    auto first = parseFile(source);
    result.modules = first.size();
    printed = printAll(first);
  } catch (const Error& e) {
    result.status = e.kind() == ErrorKind::Unsupported ? RoundTripResult::Status::Unsupported
                                                       : RoundTripResult::Status::Error;
    result.message = e.format();
    return result;
  }
  // From here on any failure is a bug in kiln: its own output must read back to itself.
  try {
    auto second = parseFile(SourceBuffer::fromString(source->name() + " (printed)", printed));
    std::string reprinted = printAll(second);
    if (printed != reprinted) {
      result.status = RoundTripResult::Status::Mismatch;
      result.message = source->name() + ": printing is not a fixed point; " + firstDifference(printed, reprinted);
    }
  } catch (const Error& e) {
    result.status = RoundTripResult::Status::Mismatch;
    result.message = source->name() + ": the printed text does not read back: " + e.format();
  }
  return result;
}

}  // namespace kiln::stablehlo
