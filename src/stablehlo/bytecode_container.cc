// The MLIR bytecode container (bytecode_container.h).
#include "stablehlo/bytecode_container.h"

#include <array>

#include "support/error.h"

namespace kiln::stablehlo::bytecode {

namespace {

constexpr std::string_view kMagic("ML\xefR", 4);
constexpr uint8_t kPadding = 0xCB;

const char* sectionName(int id) {
  static const char* const names[kNumSections] = {"string",  "dialect",  "attribute/type", "attribute/type offset",
                                                  "IR",      "resource", "resource offset", "dialect versions",
                                                  "properties"};
  return id >= 0 && id < kNumSections ? names[id] : "unknown";
}

struct RawSection {
  std::string_view bytes;
  size_t offset = 0;
  bool present = false;
};

// The string table: each string's size (with its NUL) in reverse order, then the strings
// laid out forward, ending at the section's end.
std::vector<std::string> readStrings(const RawSection& section, const std::string& name) {
  ByteReader r(section.bytes, section.offset, name);
  const uint64_t count = r.varint("the string count");
  if (count > section.bytes.size()) r.fail("the string section claims " + std::to_string(count) + " strings");
  std::vector<std::string> strings(count);
  std::vector<uint64_t> sizes(count);
  for (uint64_t i = count; i-- > 0;) sizes[i] = r.varint("a string size");
  const size_t start = r.offset() - section.offset;
  size_t end = section.bytes.size();
  for (uint64_t i = count; i-- > 0;) {
    if (sizes[i] == 0 || sizes[i] > end - start)
      r.fail("string " + std::to_string(i) + " of " + std::to_string(sizes[i]) + " bytes runs past its section");
    const size_t begin = end - sizes[i];
    if (section.bytes[end - 1] != '\0') r.fail("string " + std::to_string(i) + " does not end in NUL");
    strings[i] = std::string(section.bytes.substr(begin, sizes[i] - 1));
    end = begin;
  }
  return strings;
}

const std::string& stringAt(const std::vector<std::string>& strings, uint64_t index, const ByteReader& r,
                            const char* what) {
  if (index >= strings.size())
    r.fail(std::string(what) + " names string " + std::to_string(index) + " of " + std::to_string(strings.size()));
  return strings[index];
}

void readDialects(const RawSection& section, Container& c, const std::string& name) {
  ByteReader r(section.bytes, section.offset, name);
  const uint64_t count = r.varint("the dialect count");
  if (count > section.bytes.size()) r.fail("the dialect section claims " + std::to_string(count) + " dialects");
  for (uint64_t i = 0; i < count; ++i) {
    bool versioned = false;
    const uint64_t index = r.varintWithFlag(versioned, "a dialect name");
    Dialect dialect{stringAt(c.strings, index, r, "a dialect"), std::nullopt};
    if (versioned) {
      const uint8_t idAndAligned = r.byte("a dialect version section");
      const int id = idAndAligned & 0x7f;
      if (id != static_cast<int>(SectionId::DialectVersions))
        r.fail("dialect '" + dialect.name + "' has a version in a " + sectionName(id) + " section");
      const uint64_t length = r.varint("a dialect version's size");
      if (idAndAligned & 0x80) r.align(r.varint("a section alignment"));
      dialect.version = r.bytes(length, "a dialect version");
    }
    c.dialects.push_back(std::move(dialect));
  }
  if (c.version >= 4) r.varint("the op name count");  // (a size hint)
  while (!r.done()) {
    const uint64_t dialect = r.varint("an op name group's dialect");
    if (dialect >= c.dialects.size()) r.fail("an op name group names dialect " + std::to_string(dialect));
    const uint64_t names = r.varint("an op name group's size");
    for (uint64_t i = 0; i < names; ++i) {
      OpName op;
      op.dialect = dialect;
      if (c.version >= 5) {
        bool registered = false;
        op.name = stringAt(c.strings, r.varintWithFlag(registered, "an op name"), r, "an op name");
        op.registered = registered;
      } else {
        op.name = stringAt(c.strings, r.varint("an op name"), r, "an op name");
      }
      c.opNames.push_back(std::move(op));
    }
  }
}

// The attribute/type table: counts, then groups of entries by dialect, each entry's size
// and whether it is a custom encoding; the entries lie one after another in the
// attribute/type section.
void readAttrTypes(const RawSection& offsets, const RawSection& data, Container& c, const std::string& name) {
  ByteReader r(offsets.bytes, offsets.offset, name);
  const uint64_t numAttrs = r.varint("the attribute count"), numTypes = r.varint("the type count");
  if (numAttrs > data.bytes.size() + 1 || numTypes > data.bytes.size() + 1)
    r.fail("the attribute/type section cannot hold " + std::to_string(numAttrs) + " attributes and " +
           std::to_string(numTypes) + " types");
  size_t at = 0;
  auto readGroups = [&](std::vector<Entry>& entries, uint64_t count) {
    while (entries.size() < count) {
      const uint64_t dialect = r.varint("an attribute/type group's dialect");
      if (dialect >= c.dialects.size()) r.fail("an attribute/type group names dialect " + std::to_string(dialect));
      const uint64_t size = r.varint("an attribute/type group's size");
      if (size > count - entries.size()) r.fail("an attribute/type group holds more entries than the table");
      for (uint64_t i = 0; i < size; ++i) {
        Entry e;
        e.dialect = dialect;
        const uint64_t bytes = r.varintWithFlag(e.custom, "an attribute/type size");
        if (bytes > data.bytes.size() - at) r.fail("an attribute/type entry runs past its section");
        e.bytes = data.bytes.substr(at, bytes);
        e.offset = data.offset + at;
        at += bytes;
        entries.push_back(e);
      }
    }
  };
  readGroups(c.attributes, numAttrs);
  readGroups(c.types, numTypes);
  if (!r.done()) r.fail("bytes after the attribute/type table");
}

}  // namespace

[[noreturn]] void ByteReader::fail(const std::string& message) const {
  throw Error(ErrorKind::Parse, name_ + ": bytecode offset " + std::to_string(offset()) + ": " + message);
}

uint8_t ByteReader::byte(const char* what) {
  if (at_ == bytes_.size()) fail(std::string("the bytes end before ") + what);
  return static_cast<uint8_t>(bytes_[at_++]);
}

uint64_t ByteReader::varint(const char* what) {
  const uint8_t first = byte(what);
  // The low bits: a run of zeros (one per byte that follows), then a one.
  if (first & 1) return first >> 1;
  if (first == 0) {  // eight more bytes: all 64 bits
    const std::string_view rest = bytes(8, what);
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(rest[static_cast<size_t>(i)]);
    return value;
  }
  const int more = __builtin_ctz(first);
  const std::string_view rest = bytes(static_cast<uint64_t>(more), what);
  uint64_t value = first;
  for (int i = 0; i < more; ++i) value |= static_cast<uint64_t>(static_cast<uint8_t>(rest[static_cast<size_t>(i)])) << (8 * (i + 1));
  return value >> (more + 1);
}

int64_t ByteReader::signedVarint(const char* what) {
  const uint64_t zigzag = varint(what);
  return static_cast<int64_t>((zigzag >> 1) ^ (~(zigzag & 1) + 1));
}

uint64_t ByteReader::varintWithFlag(bool& flag, const char* what) {
  const uint64_t value = varint(what);
  flag = value & 1;
  return value >> 1;
}

std::string_view ByteReader::bytes(uint64_t size, const char* what) {
  if (size > bytes_.size() - at_)
    fail(std::string(what) + " of " + std::to_string(size) + " bytes runs past the end (" +
         std::to_string(bytes_.size() - at_) + " left)");
  const std::string_view out = bytes_.substr(at_, size);
  at_ += size;
  return out;
}

std::string_view ByteReader::nulTerminated(const char* what) {
  const size_t end = bytes_.find('\0', at_);
  if (end == std::string_view::npos) fail(std::string(what) + " has no terminating NUL");
  const std::string_view out = bytes_.substr(at_, end - at_);
  at_ = end + 1;
  return out;
}

void ByteReader::align(uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    fail("a section alignment of " + std::to_string(alignment) + ", not a power of two");
  while (offset() % alignment != 0)
    if (byte("alignment padding") != kPadding) fail("alignment padding that is not 0xCB");
}

bool isBytecode(std::string_view bytes) { return bytes.substr(0, kMagic.size()) == kMagic; }

Container readContainer(std::string_view bytes, const std::string& name) {
  ByteReader r(bytes, 0, name);
  if (!isBytecode(bytes)) r.fail("not MLIR bytecode (it does not start with the magic number ML\\xefR)");
  r.bytes(kMagic.size(), "the magic number");
  Container c;
  c.version = r.varint("the bytecode version");
  if (c.version < kMinVersion || c.version > kMaxVersion)
    r.fail("unsupported: bytecode version " + std::to_string(c.version) + " (kiln reads " +
           std::to_string(kMinVersion) + " to " + std::to_string(kMaxVersion) + ")");
  c.producer = std::string(r.nulTerminated("the producer"));
  std::array<RawSection, kNumSections> sections;
  while (!r.done()) {
    const uint8_t idAndAligned = r.byte("a section id");
    const int id = idAndAligned & 0x7f;
    if (id >= kNumSections) r.fail("section id " + std::to_string(id) + " (MLIR's are 0 to " + std::to_string(kNumSections - 1) + ")");
    if (sections[static_cast<size_t>(id)].present) r.fail(std::string("a second ") + sectionName(id) + " section");
    const uint64_t length = r.varint("a section length");
    if (idAndAligned & 0x80) r.align(r.varint("a section alignment"));
    RawSection& s = sections[static_cast<size_t>(id)];
    s.offset = r.offset();
    s.bytes = r.bytes(length, (std::string("the ") + sectionName(id) + " section").c_str());
    s.present = true;
  }
  auto need = [&](SectionId id) -> const RawSection& {
    const RawSection& s = sections[static_cast<size_t>(id)];
    if (!s.present) r.fail(std::string("no ") + sectionName(static_cast<int>(id)) + " section");
    return s;
  };
  c.strings = readStrings(need(SectionId::String), name);
  readDialects(need(SectionId::Dialect), c, name);
  readAttrTypes(need(SectionId::AttrTypeOffset), need(SectionId::AttrType), c, name);
  const RawSection& ir = need(SectionId::IR);
  c.ir = ir.bytes;
  c.irOffset = ir.offset;
  const RawSection& properties = sections[static_cast<size_t>(SectionId::Properties)];
  c.properties = properties.bytes;
  c.propertiesOffset = properties.offset;
  const RawSection& resources = sections[static_cast<size_t>(SectionId::Resource)];
  const RawSection& resourceOffsets = sections[static_cast<size_t>(SectionId::ResourceOffset)];
  if (resources.present != resourceOffsets.present)
    r.fail("a resource section without its offset section, or the other way round");
  c.resources = resources.bytes;
  c.resourceOffsets = resourceOffsets.bytes;
  return c;
}

}  // namespace kiln::stablehlo::bytecode
