// MLIR bytecode, the form jaxlib sends programs in (a StableHLO portable artifact:
// the VHLO dialect, written by MLIR's bytecode writer): its container, read from the
// published format (mlir/docs/BytecodeFormat.md). The header (magic, version, producer),
// the sections, the string table, the dialects with their versions and op names, and the
// attribute/type table, each entry's bytes with whether it is a dialect's own encoding or
// the textual fallback. The IR, properties and resource sections are kept as bytes for
// the readers of what is inside them. Bad bytes (truncated, wrong magic, a section or
// varint that runs past the end, an index out of range) are a Parse error naming the
// offset, never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::stablehlo::bytecode {

// The bytecode versions this reader takes (MLIR's kVersion as jaxlib 0.10.2 writes it is 6).
inline constexpr uint64_t kMinVersion = 1, kMaxVersion = 6;

enum class SectionId : uint8_t {
  String = 0,
  Dialect = 1,
  AttrType = 2,
  AttrTypeOffset = 3,
  IR = 4,
  Resource = 5,
  ResourceOffset = 6,
  DialectVersions = 7,
  Properties = 8,
};
inline constexpr int kNumSections = 9;

struct Dialect {
  std::string name;
  std::optional<std::string_view> version;  // the dialect's own encoding of its version
};

struct OpName {
  size_t dialect = 0;  // index into Container::dialects
  std::string name;    // without the dialect ("add_v1" of vhlo)
  std::optional<bool> registered;  // written from version 5 on
};

// An attribute or type: its dialect, its bytes, and whether they are the dialect's own
// encoding (else the textual form, NUL-terminated).
struct Entry {
  size_t dialect = 0;
  std::string_view bytes;
  bool custom = false;
  size_t offset = 0;  // of `bytes` in the file, for messages
};

struct Container {
  uint64_t version = 0;
  std::string producer;  // e.g. "StableHLO_v1.15.0"
  std::vector<std::string> strings;
  std::vector<Dialect> dialects;
  std::vector<OpName> opNames;
  std::vector<Entry> attributes, types;
  // The sections read by what understands their contents (empty when absent), and
  // their offsets in the file.
  std::string_view ir, properties, resources, resourceOffsets;
  size_t irOffset = 0, propertiesOffset = 0;
};

// Whether `bytes` start with MLIR bytecode's magic number.
bool isBytecode(std::string_view bytes);

// Reads the container of `bytes` (which it points into: they must outlive it); `name`
// names the file in errors.
Container readContainer(std::string_view bytes, const std::string& name);

// Reads MLIR's values from bytes: varints (a prefix-length LEB128: the count of trailing
// zero bits of the first byte is the count of bytes that follow), signed varints
// (zigzag), single bytes and NUL-terminated strings. Every read past the end is a Parse
// error naming the offset (in the file: `base` is the offset of the bytes' start).
class ByteReader {
 public:
  ByteReader(std::string_view bytes, size_t base, const std::string& name)
      : bytes_(bytes), base_(base), name_(name) {}
  bool done() const { return at_ == bytes_.size(); }
  size_t offset() const { return base_ + at_; }
  uint8_t byte(const char* what);
  uint64_t varint(const char* what);
  int64_t signedVarint(const char* what);
  // A varint whose low bit is a flag.
  uint64_t varintWithFlag(bool& flag, const char* what);
  std::string_view bytes(uint64_t size, const char* what);
  std::string_view nulTerminated(const char* what);
  // Skips padding (0xCB bytes) to the next multiple of `alignment` (a power of two) of
  // the file offset.
  void align(uint64_t alignment);
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string_view bytes_;
  size_t base_;
  const std::string& name_;
  size_t at_ = 0;
};

}  // namespace kiln::stablehlo::bytecode
