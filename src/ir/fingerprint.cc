// The fingerprint: the byte digest (support/digest.h) of a canonical serialization of the module, which depends only on what the program
// computes: op names, value numbers, types, attribute contents.
#include "ir/fingerprint.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/attr_records.h"

namespace kiln {
namespace {

class ModuleHasher {
 public:
  explicit ModuleHasher(Hasher& h) : h_(h) {}

  void module(const Module& m) {
    attrs(m.attrs);
    h_.u64(m.functions().size());
    for (const auto& fn : m.functions()) function(*fn);
  }

  // An op on its own: values from outside it are numbered in the order it first uses
  // them (so an operand used twice hashes differently from two operands), then the op.
  // Returns false when the op's regions read values from outside it.
  bool standaloneOp(const Op& o, const std::vector<const Value*>& marked) {
    for (const Value* v : marked)
      if (const Op* d = v->definingOp()) opaque_.insert(d);
    // A fusion's operands are its body's arguments: one that only opaque ops read is
    // numbered and not typed, as that argument is (region()).
    const bool fusionLike = o.numRegions() == 1 && o.region(0).numArguments() == o.numOperands();
    for (size_t i = 0; i < o.numOperands(); ++i) {
      const Value* v = o.operand(i);
      if (numbers_.contains(v)) continue;
      if (fusionLike && readOnlyByOpaque(o.region(0).argument(i)))
        numbers_.emplace(v, numbers_.size());
      else
        define(v);
    }
    op(o);
    h_.u64(marked.size());
    for (const Value* v : marked) value(v);
    return !missed_;
  }

 private:
  void function(const Function& fn) {
    numbers_.clear();
    h_.str(fn.name());
    h_.u64(static_cast<uint64_t>(fn.visibility));
    attrs(fn.attrs);
    h_.u64(fn.argAttrs.size());
    for (const NamedAttrList& a : fn.argAttrs) attrs(a);
    h_.u64(fn.resultAttrs.size());
    for (const NamedAttrList& a : fn.resultAttrs) attrs(a);
    types(fn.resultTypes());
    region(fn.body());
  }

  void region(const Region& r) {
    h_.u64(r.numArguments());
    for (size_t i = 0; i < r.numArguments(); ++i) {
      if (readOnlyByOpaque(r.argument(i))) {
        numbers_.emplace(r.argument(i), numbers_.size());
        h_.str("unread");
      } else {
        define(r.argument(i));
      }
    }
    h_.u64(r.size());
    for (const auto& op : r.ops()) this->op(*op);
  }

  void op(const Op& o) {
    if (opaque_.count(&o)) {  // computed elsewhere: only what it yields counts
      h_.str("opaque");
      h_.u64(o.numResults());
      for (size_t i = 0; i < o.numResults(); ++i) define(o.result(i));
      return;
    }
    h_.str(o.name());
    h_.u64(o.numOperands());
    for (const Value* v : o.operands()) value(v);
    NamedAttrList meaningful;
    for (const NamedAttribute& a : o.attrs())
      if (!atDefault(o.info(), a)) meaningful.push_back(a);
    attrs(meaningful);
    h_.u64(o.numRegions());
    for (size_t i = 0; i < o.numRegions(); ++i) region(o.region(i));
    h_.u64(o.numResults());
    for (size_t i = 0; i < o.numResults(); ++i) define(o.result(i));
  }

  void value(const Value* v) {
    auto it = numbers_.find(v);
    // A value from outside the module being hashed cannot occur in a verified module;
    // it hashes as "unknown" rather than by address, to stay deterministic.
    missed_ |= it == numbers_.end();
    h_.u64(it == numbers_.end() ? ~0ull : it->second);
  }

  void define(const Value* v) {
    numbers_.emplace(v, numbers_.size());
    type(v->type());
  }

  void type(const Type& t) { h_.str(t.str()); }
  void types(const TypeList& ts) {
    h_.u64(ts.size());
    for (const Type& t : ts) type(t);
  }

  // An op attribute that says what its absence says: its registry default, a window
  // attribute of strides 1 or padding 0, or a precision_config of DEFAULT only (which
  // text keeps and a portable artifact's round trip drops): the same program either way.
  static bool atDefault(const OpInfo& info, const NamedAttribute& a) {
    const AttrSpec* spec = info.findAttr(a.name);
    if (!spec) return false;
    if (spec->defaultValue() && a.value == spec->defaultValue()) return true;
    if (std::optional<int64_t> fill = windowAttrFill(a.name)) return allElementsAre(a.value, *fill);
    if (a.name != "precision_config" || !a.value.is(Attribute::Kind::Array)) return false;
    for (const Attribute& e : a.value.asArray())
      if (!e.is(Attribute::Kind::Enum) || e.enumValueName() != "DEFAULT") return false;
    return true;
  }

  // A dense array, or an integer or bool tensor, whose every element is `v`.
  static bool allElementsAre(const Attribute& a, int64_t v) {
    if (a.is(Attribute::Kind::DenseArray) && !isFloat(a.dtype()))
      return std::all_of(a.asInts().begin(), a.asInts().end(), [&](int64_t x) { return x == v; });
    if (!a.is(Attribute::Kind::Dense)) return false;
    const Literal& lit = a.asDense();
    if (isFloat(lit.dtype()) || isComplex(lit.dtype())) return false;
    for (int64_t i = 0; i < lit.numElements(); ++i)
      if (lit.intAt(i) != v) return false;
    return true;
  }

  void attrs(const NamedAttrList& list) {
    h_.u64(list.size());
    for (const NamedAttribute& a : list) {
      h_.str(a.name);
      attr(a.value);
    }
  }

  void attr(const Attribute& a) {
    using K = Attribute::Kind;
    h_.u64(static_cast<uint64_t>(a.kind()));
    switch (a.kind()) {
      case K::None:
      case K::Unit: return;
      case K::Bool: h_.u64(a.asBool()); return;
      case K::Integer:
        h_.u64(static_cast<uint64_t>(a.asInt()));
        h_.u64(static_cast<uint64_t>(a.dtype()) * 2 + a.isIndex());
        return;
      case K::Float: {
        double d = a.asFloat();
        h_.bytes(&d, sizeof d);
        h_.u64(static_cast<uint64_t>(a.dtype()));
        return;
      }
      case K::String:
      case K::Opaque: h_.str(a.asString()); return;
      case K::TypeRef: type(a.asType()); return;
      case K::Dense: {
        // A tensor whose elements are all equal hashes as its splat form, whichever form
        // it was written in (text spells every element, bytecode may store one).
        const Literal& lit = a.asDense();
        type(lit.type());
        // An empty tensor hashes as its type alone.
        if (lit.numElements() == 0) return;
        const bool uniform = lit.allElementsEqual();
        h_.u64(uniform);
        h_.bytes(lit.storage(), uniform ? static_cast<size_t>(storageBytes(lit.dtype())) : lit.storageSize());
        return;
      }
      case K::DenseArray:
        h_.u64(static_cast<uint64_t>(a.dtype()));
        if (isFloat(a.dtype())) {
          h_.u64(a.asFloats().size());
          h_.bytes(a.asFloats().data(), a.asFloats().size() * sizeof(double));
        } else {
          h_.u64(a.asInts().size());
          h_.bytes(a.asInts().data(), a.asInts().size() * sizeof(int64_t));
        }
        return;
      case K::Array:
        h_.u64(a.asArray().size());
        for (const Attribute& e : a.asArray()) attr(e);
        return;
      case K::Dictionary:
      case K::Record:
        if (a.is(K::Record)) h_.str(a.asString());
        attrs(a.fields());
        return;
      case K::SymbolRef:
        h_.str(a.asString());
        h_.u64(a.nestedSymbols().size());
        for (const std::string& s : a.nestedSymbols()) h_.str(s);
        return;
      case K::Enum:
        h_.str(a.enumName());
        h_.str(a.enumValueName());
        return;
    }
  }

  // Whether `v` is read, and only by opaque ops.
  bool readOnlyByOpaque(const Value* v) const {
    if (opaque_.empty() || !v->hasUses()) return false;
    for (const Use& use : v->uses())
      if (!opaque_.count(use.user)) return false;
    return true;
  }

  Hasher& h_;
  std::unordered_map<const Value*, uint64_t> numbers_;
  std::unordered_set<const Op*> opaque_;  // ops whose results are marked (standaloneOp)
  bool missed_ = false;  // a value was read that was not numbered
};

}  // namespace

Fingerprint fingerprint(const Module& module) {
  Hasher h;
  ModuleHasher(h).module(module);
  return h.result();
}

std::optional<Fingerprint> codeFingerprint(const Op& op, const std::vector<const Value*>& marked) {
  Hasher h;
  if (!ModuleHasher(h).standaloneOp(op, marked)) return std::nullopt;
  return h.result();
}

}  // namespace kiln
