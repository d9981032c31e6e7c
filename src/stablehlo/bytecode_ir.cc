// The IR section (bytecode_ir.h), read as MLIR's reader reads it (BytecodeReader.cpp,
// whose format mlir/docs/BytecodeFormat.md describes): an op is its name, a mask of
// what follows, its location, then attributes, properties, results, operands,
// successors, use-list orders and regions, each present when the mask says.
#include "stablehlo/bytecode_ir.h"

#include <string>

namespace kiln::stablehlo::bytecode {

namespace {

// The op mask's bits (MLIR's OpEncodingMask).
constexpr uint8_t kHasAttrs = 1, kHasResults = 2, kHasOperands = 4, kHasSuccessors = 8, kHasInlineRegions = 16,
                  kHasUseListOrders = 32, kHasProperties = 64;
constexpr uint64_t kUseListOrdering = 3, kElideUnknownBlockArgLocation = 4, kLazyLoading = 2;

// The value numbers of one isolated-from-above scope: how many are reserved, and where
// each open region's next definition goes.
struct Scope {
  uint64_t reserved = 0;
  std::vector<uint64_t> next;
  std::vector<uint64_t> limit;
};

class IrReader {
 public:
  IrReader(const Container& c, const std::string& name) : c_(c), name_(name) {}

  std::vector<IrOp> readTop() {
    ByteReader r(c_.ir, c_.irOffset, name_);
    properties();
    scopes_.emplace_back();
    IrRegion top;
    top.blocks.emplace_back();
    // The top-level block: its header, then its ops, in a scope of its own numbers
    // (reserved as its ops define them).
    bool hasArgs = false;
    const uint64_t numOps = r.varintWithFlag(hasArgs, "the top block's op count");
    if (hasArgs) r.fail("the top-level block has arguments");
    scopes_.back().next.push_back(0);
    scopes_.back().limit.push_back(UINT64_MAX);
    std::vector<IrOp> ops;
    for (uint64_t i = 0; i < numOps; ++i) ops.push_back(op(r, 0));
    return ops;
  }

 private:
  // The properties section: a count, then each op's properties (a size and its bytes).
  void properties() {
    if (c_.properties.empty()) return;
    ByteReader r(c_.properties, c_.propertiesOffset, name_);
    const uint64_t count = r.varint("the properties count");
    if (count > c_.properties.size()) r.fail("the properties section claims " + std::to_string(count) + " entries");
    for (uint64_t i = 0; i < count; ++i) properties_.push_back(r.bytes(r.varint("a properties size"), "properties"));
    if (!r.done()) r.fail("bytes after the properties");
  }

  uint64_t index(ByteReader& r, size_t size, const char* what) {
    const uint64_t i = r.varint(what);
    if (i >= size) r.fail(std::string(what) + " " + std::to_string(i) + " of " + std::to_string(size));
    return i;
  }

  // Takes `count` value numbers for definitions in the current region.
  uint64_t define(ByteReader& r, uint64_t count) {
    Scope& s = scopes_.back();
    const uint64_t first = s.next.back();
    if (count > s.limit.back() - first) r.fail("more values defined than the region reserves");
    s.next.back() += count;
    return first;
  }

  uint64_t count(ByteReader& r, const char* what) {
    const uint64_t n = r.varint(what);
    if (n > c_.ir.size()) r.fail(std::string(what) + ": " + std::to_string(n));
    return n;
  }

  void useListOrders(ByteReader& r, uint64_t numValues) {
    uint64_t entries = 1;
    if (numValues > 1) entries = count(r, "use-list order entries");
    for (uint64_t i = 0; i < entries; ++i) {
      if (numValues > 1) r.varint("a use-list order's value");
      bool pairs = false;
      const uint64_t n = r.varintWithFlag(pairs, "a use-list order's size");
      if (n > c_.ir.size()) r.fail("a use-list order of " + std::to_string(n));
      for (uint64_t k = 0; k < n; ++k) r.varint("a use-list order's index");
    }
  }

  IrOp op(ByteReader& r, int depth) {
    IrOp o;
    o.name = index(r, c_.opNames.size(), "an op name");
    const uint8_t mask = r.byte("an op's mask");
    if (mask & 0x80) r.fail("an op mask with bit 7 set");
    o.location = index(r, c_.attributes.size(), "an op's location");
    if (mask & kHasAttrs) o.attributes = index(r, c_.attributes.size(), "an op's attributes");
    if (mask & kHasProperties) {
      const std::optional<bool>& registered = c_.opNames[o.name].registered;
      if (!registered) r.fail("properties before bytecode version 5");
      if (*registered) o.properties = properties_[index(r, properties_.size(), "an op's properties")];
      else o.propertiesAttribute = index(r, c_.attributes.size(), "an op's properties");
    }
    if (mask & kHasResults)
      for (uint64_t i = 0, n = count(r, "an op's result count"); i < n; ++i)
        o.resultTypes.push_back(index(r, c_.types.size(), "a result type"));
    if (mask & kHasOperands)
      for (uint64_t i = 0, n = count(r, "an op's operand count"); i < n; ++i)
        o.operands.push_back(index(r, scopes_.back().reserved, "an operand's value"));
    if (mask & kHasSuccessors)
      for (uint64_t i = 0, n = count(r, "an op's successor count"); i < n; ++i) o.successors.push_back(r.varint("a successor"));
    if (c_.version >= kUseListOrdering && (mask & kHasUseListOrders)) useListOrders(r, o.resultTypes.size());
    uint64_t numRegions = 0;
    if (mask & kHasInlineRegions) numRegions = r.varintWithFlag(o.isolated, "an op's region count");
    if (numRegions > c_.ir.size()) r.fail("an op of " + std::to_string(numRegions) + " regions");
    o.firstResult = define(r, o.resultTypes.size());
    if (numRegions == 0) return o;
    if (depth >= kMaxDepth) r.fail("regions nested deeper than " + std::to_string(kMaxDepth));
    if (o.isolated) scopes_.emplace_back();
    if (o.isolated && c_.version >= kLazyLoading) {
      // The regions of an op isolated from above are in a section of their own.
      const uint8_t idAndAligned = r.byte("a region's section");
      if ((idAndAligned & 0x7f) != static_cast<uint8_t>(SectionId::IR)) r.fail("regions in a section not of IR");
      const uint64_t length = r.varint("a region section's length");
      if (idAndAligned & 0x80) r.align(r.varint("a section alignment"));
      const size_t offset = r.offset();
      ByteReader section(r.bytes(length, "a region's section"), offset, name_);
      for (uint64_t i = 0; i < numRegions; ++i) o.regions.push_back(region(section, depth + 1));
      if (!section.done()) section.fail("bytes after an op's regions");
    } else {
      for (uint64_t i = 0; i < numRegions; ++i) o.regions.push_back(region(r, depth + 1));
    }
    if (o.isolated) scopes_.pop_back();
    return o;
  }

  IrRegion region(ByteReader& r, int depth) {
    IrRegion g;
    const uint64_t numBlocks = count(r, "a region's block count");
    if (numBlocks == 0) return g;
    g.numValues = count(r, "a region's value count");
    Scope& s = scopes_.back();
    const uint64_t start = s.reserved;
    s.reserved += g.numValues;
    s.next.push_back(start);
    s.limit.push_back(start + g.numValues);
    for (uint64_t b = 0; b < numBlocks; ++b) {
      IrBlock block;
      bool hasArgs = false;
      const uint64_t numOps = r.varintWithFlag(hasArgs, "a block's op count");
      if (numOps > c_.ir.size()) r.fail("a block of " + std::to_string(numOps) + " ops");
      if (hasArgs) {
        for (uint64_t i = 0, n = count(r, "a block's argument count"); i < n; ++i) {
          IrArgument a;
          if (c_.version >= kElideUnknownBlockArgLocation) {
            bool hasLocation = false;
            a.type = r.varintWithFlag(hasLocation, "an argument's type");
            if (a.type >= c_.types.size()) r.fail("an argument's type " + std::to_string(a.type));
            if (hasLocation) a.location = index(r, c_.attributes.size(), "an argument's location");
          } else {
            a.type = index(r, c_.types.size(), "an argument's type");
            a.location = index(r, c_.attributes.size(), "an argument's location");
          }
          block.arguments.push_back(a);
        }
        if (c_.version >= kUseListOrdering && r.byte("a block's use-list flag") != 0)
          useListOrders(r, block.arguments.size());
      }
      block.firstArgument = define(r, block.arguments.size());
      for (uint64_t i = 0; i < numOps; ++i) block.ops.push_back(op(r, depth));
      g.blocks.push_back(std::move(block));
    }
    // The region's numbers are released: a later sibling reuses them.
    Scope& after = scopes_.back();
    after.next.pop_back();
    after.limit.pop_back();
    after.reserved = start;
    return g;
  }

  const Container& c_;
  const std::string& name_;
  std::vector<std::string_view> properties_;
  std::vector<Scope> scopes_;
};

}  // namespace

std::vector<IrOp> readIr(const Container& container, const std::string& name) {
  return IrReader(container, name).readTop();
}

}  // namespace kiln::stablehlo::bytecode
