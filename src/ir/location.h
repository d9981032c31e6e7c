// Source locations as MLIR writes them in `loc(...)`: where an op came from in the
// user's program. They travel with ops through every pass so that errors and reports
// can name the user's line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

class Location {
 public:
  enum class Kind : uint8_t {
    Unknown,   // loc(unknown)
    File,      // loc("file.py":12:3)
    Name,      // loc("name") or loc("name"(child))
    CallSite,  // loc(callsite(callee at caller))
    Fused,     // loc(fused[a, b]) or loc(fused<"metadata">[a, b])
  };

  Location() = default;  // unknown
  static Location file(std::string file, uint32_t line, uint32_t col);
  static Location name(std::string name, Location child = {});
  static Location callSite(Location callee, Location caller);
  static Location fused(std::vector<Location> parts, std::string metadata = {});

  Kind kind() const { return node_ ? node_->kind : Kind::Unknown; }
  bool isUnknown() const { return kind() == Kind::Unknown; }

  // File: the file name; Name: the name; Fused: the metadata text (may be empty).
  const std::string& text() const;
  uint32_t line() const { return node_ ? node_->line : 0; }
  uint32_t col() const { return node_ ? node_->col : 0; }
  // Name: {child}; CallSite: {callee, caller}; Fused: the parts.
  const std::vector<Location>& children() const;

  // The first file:line:col found inside (the user's line), or unknown.
  Location fileLocation() const;

  bool operator==(const Location& other) const;
  bool operator!=(const Location& other) const { return !(*this == other); }

  // The MLIR spelling without the surrounding `loc(...)`: "f.py":1:2, unknown, ...
  std::string str() const;

 private:
  struct Node {
    Kind kind;
    std::string text;
    uint32_t line = 0, col = 0;
    std::vector<Location> children;
  };
  explicit Location(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;  // null: unknown
};

// The location of something built from several ops (a fusion, a rewrite): fused when
// they differ, the one location when they agree, unknown parts dropped.
Location mergeLocations(const std::vector<Location>& locations);

}  // namespace kiln
