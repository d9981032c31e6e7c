// Location construction, comparison and MLIR spelling.
#include "ir/location.h"

namespace kiln {

namespace {
const std::string kEmpty;
const std::vector<Location> kNoChildren;

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}
}  // namespace

Location Location::file(std::string file, uint32_t line, uint32_t col) {
  return Location(std::make_shared<const Node>(Node{Kind::File, std::move(file), line, col, {}}));
}

Location Location::name(std::string name, Location child) {
  std::vector<Location> children;
  if (!child.isUnknown()) children.push_back(std::move(child));
  return Location(
      std::make_shared<const Node>(Node{Kind::Name, std::move(name), 0, 0, std::move(children)}));
}

Location Location::callSite(Location callee, Location caller) {
  return Location(std::make_shared<const Node>(
      Node{Kind::CallSite, {}, 0, 0, {std::move(callee), std::move(caller)}}));
}

Location Location::fused(std::vector<Location> parts, std::string metadata) {
  return Location(
      std::make_shared<const Node>(Node{Kind::Fused, std::move(metadata), 0, 0, std::move(parts)}));
}

const std::string& Location::text() const { return node_ ? node_->text : kEmpty; }
const std::vector<Location>& Location::children() const {
  return node_ ? node_->children : kNoChildren;
}

Location Location::fileLocation() const {
  if (kind() == Kind::File) return *this;
  for (const Location& child : children()) {
    Location found = child.fileLocation();
    if (!found.isUnknown()) return found;
  }
  return {};
}

bool Location::operator==(const Location& other) const {
  if (node_ == other.node_) return true;
  if (kind() != other.kind()) return false;
  return text() == other.text() && line() == other.line() && col() == other.col() &&
         children() == other.children();
}

std::string Location::str() const {
  switch (kind()) {
    case Kind::Unknown: return "unknown";
    case Kind::File:
      return quoted(text()) + ":" + std::to_string(line()) + ":" + std::to_string(col());
    case Kind::Name:
      return children().empty() ? quoted(text()) : quoted(text()) + "(" + children()[0].str() + ")";
    case Kind::CallSite: return "callsite(" + children()[0].str() + " at " + children()[1].str() + ")";
    case Kind::Fused: {
      std::string s = "fused";
      if (!text().empty()) s += "<" + text() + ">";
      s += "[";
      for (size_t i = 0; i < children().size(); ++i) s += (i ? ", " : "") + children()[i].str();
      return s + "]";
    }
  }
  return "unknown";
}

Location mergeLocations(const std::vector<Location>& locations) {
  std::vector<Location> parts;
  auto add = [&](const Location& loc) {
    if (loc.isUnknown()) return;
    for (const Location& p : parts)
      if (p == loc) return;
    parts.push_back(loc);
  };
  for (const Location& loc : locations) {
    // Merging merged locations keeps one flat list (a fusion of fusions names lines).
    if (loc.kind() == Location::Kind::Fused && loc.text().empty()) {
      for (const Location& part : loc.children()) add(part);
    } else {
      add(loc);
    }
  }
  if (parts.empty()) return {};
  if (parts.size() == 1) return parts[0];
  return Location::fused(std::move(parts));
}

}  // namespace kiln
