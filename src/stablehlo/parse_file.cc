// Reading a file (parser.h): MLIR bytecode as one module, or text split at `// -----`
// lines into parts, each parsed into a module and verified.
#include "stablehlo/parser.h"

#include "ir/verifier.h"
#include "stablehlo/bytecode.h"
#include "stablehlo/parser_impl.h"

namespace kiln::stablehlo {

std::vector<std::pair<size_t, size_t>> splitInputFile(std::string_view text) {
  std::vector<std::pair<size_t, size_t>> parts;
  size_t partStart = 0;
  size_t lineStart = 0;
  while (lineStart <= text.size()) {
    size_t lineEnd = text.find('\n', lineStart);
    if (lineEnd == std::string_view::npos) lineEnd = text.size();
    std::string_view line = text.substr(lineStart, lineEnd - lineStart);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t'))
      line.remove_suffix(1);
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first) == "// -----") {
      parts.emplace_back(partStart, lineStart);
      partStart = lineEnd;
    }
    if (lineEnd == text.size()) break;
    lineStart = lineEnd + 1;
  }
  parts.emplace_back(partStart, text.size());
  return parts;
}

std::vector<std::unique_ptr<Module>> parseFile(const SourceRef& source, const ParseOptions& options) {
  std::vector<std::unique_ptr<Module>> modules;
  if (isBytecode(source->text())) {
    modules.push_back(parseBytecode(source->text(), source->name(), options));
    return modules;
  }
  for (auto [begin, end] : splitInputFile(source->text())) {
    Parser parser(source, begin, end);
    std::unique_ptr<Module> module = parser.parseModule();
    if (options.verify) verifyModule(*module);
    modules.push_back(std::move(module));
  }
  return modules;
}

std::unique_ptr<Module> parseModule(const SourceRef& source, const ParseOptions& options) {
  if (isBytecode(source->text())) return parseBytecode(source->text(), source->name(), options);
  Parser parser(source, 0, source->text().size());
  std::unique_ptr<Module> module = parser.parseModule();
  if (options.verify) verifyModule(*module);
  return module;
}

std::unique_ptr<Module> parseModule(std::string text, const ParseOptions& options) {
  return parseModule(SourceBuffer::fromString("<string>", std::move(text)), options);
}

}  // namespace kiln::stablehlo
