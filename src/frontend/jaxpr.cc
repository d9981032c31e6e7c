// make_jaxpr's text (kiln/transforms.h): a traced function in the notation JAX prints
// jaxprs in. Variables are named a, b, ..., z, ba, bb, ... in order of definition;
// `{ lambda consts ; params . let eqns in (results) }`, each equation
// `out:type = op[params] operands`. Ops keep their StableHLO names without the dialect
// ("dot_general", not jax's "dot_general"/"mul" spellings); scalar constants are
// written inline as literals; regions and called functions are nested jaxprs.
#include <sstream>
#include <unordered_map>

#include "frontend/jaxpr.h"
#include "ir/ops/stablehlo.h"
#include "stablehlo/printer.h"

namespace kiln::detail {
namespace {

// JAX's short dtype names: f32, i32, ui8, bool, c64.
std::string shortDtype(DType t) {
  if (isBool(t)) return "bool";
  if (t == DType::C64) return "c64";
  if (t == DType::C128) return "c128";
  return std::string(name(t));
}

std::string shortType(const Type& t) {
  if (!t.isTensor()) return t.str();
  std::string out = shortDtype(t.dtype()) + "[";
  for (size_t i = 0; i < t.shape().size(); ++i) out += (i ? "," : "") + std::to_string(t.shape()[i]);
  return out + "]";
}

// A compact attribute: arrays as tuples, strings bare, the rest as MLIR prints them.
std::string shortAttribute(const Attribute& attr) {
  std::string text = stablehlo::printAttribute(attr);
  if (text.rfind("array<", 0) == 0) {
    size_t colon = text.find(':');
    std::string items = colon == std::string::npos ? "" : text.substr(colon + 1, text.size() - colon - 2);
    if (!items.empty() && items[0] == ' ') items.erase(0, 1);
    return "(" + items + (items.find(',') == std::string::npos && !items.empty() ? ",)" : ")");
  }
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
  return text;
}

// A one-element literal as Python writes it: 3.0, -2, True, nan.
std::string literal(const Literal& l) {
  const DType t = l.type().dtype();
  if (isBool(t)) return l.boolAt(0) ? "True" : "False";
  if (isSignedInt(t)) return std::to_string(l.intAt(0));
  if (isUnsignedInt(t)) return std::to_string(l.uintAt(0));
  if (isFloat(t)) {
    std::ostringstream out;
    out.precision(9);
    out << l.floatAt(0);
    std::string text = out.str();
    if (text.find_first_of(".einf") == std::string::npos) text += ".0";
    return text;
  }
  return stablehlo::printFloat(l.complexAt(0).real(), DType::F64) + "+" +
         stablehlo::printFloat(l.complexAt(0).imag(), DType::F64) + "j";
}

class JaxprPrinter {
 public:
  explicit JaxprPrinter(const Module* module) : module_(module) {}

  void function(const Function& fn, size_t numConsts, int indent, std::ostream& out) {
    std::vector<Value*> params;
    for (size_t i = 0; i < fn.numParams(); ++i) params.push_back(fn.param(i));
    const size_t explicitParams = params.size() - numConsts;
    std::vector<Value*> consts(params.begin() + static_cast<ptrdiff_t>(explicitParams), params.end());
    params.resize(explicitParams);
    region(fn.body(), consts, params, indent, out);
  }

 private:
  std::string name(const Value* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    // Literals: scalar constants inline, as JAX writes them.
    if (const Op* def = v->definingOp(); def && def->is(ops::Constant) && v->type().isTensor() &&
                                         v->type().numElements() == 1 && def->attr("value").is(Attribute::Kind::Dense)) {
      return literal(def->attr("value").asDense()) + ":" + shortType(v->type());
    }
    return "?";
  }
  std::string define(const Value* v) {
    size_t n = next_++;
    std::string s;
    do {
      s.insert(s.begin(), static_cast<char>('a' + n % 26));
      n /= 26;
    } while (n > 0);
    names_[v] = s;
    return s;
  }
  std::string binder(const Value* v) { return define(v) + ":" + shortType(v->type()); }

  void region(const Region& r, const std::vector<Value*>& consts, const std::vector<Value*>& params, int indent,
              std::ostream& out) {
    const std::string pad(static_cast<size_t>(indent), ' ');
    out << "{ lambda ";
    for (size_t i = 0; i < consts.size(); ++i) out << (i ? " " : "") << binder(consts[i]);
    out << "; ";
    for (size_t i = 0; i < params.size(); ++i) out << (i ? " " : "") << binder(params[i]);
    out << ". let\n";
    std::vector<const Value*> results;
    for (const auto& op : r.ops()) {
      if (op->info().isTerminator()) {
        for (const Value* v : op->operands()) results.push_back(v);
        continue;
      }
      if (op->is(ops::Constant) && op->numResults() == 1 && op->result()->type().isTensor() &&
          op->result()->type().numElements() == 1 && op->attr("value").is(Attribute::Kind::Dense))
        continue;  // written inline where used
      equation(*op, indent + 4, out);
    }
    out << pad << "  in (";
    for (size_t i = 0; i < results.size(); ++i) out << (i ? ", " : "") << name(results[i]);
    out << (results.size() == 1 ? ",) }" : ") }");
  }

  void equation(const Op& op, int indent, std::ostream& out) {
    const std::string pad(static_cast<size_t>(indent), ' ');
    // Operands are named before the results are defined.
    std::vector<std::string> operands;
    for (const Value* v : op.operands()) operands.push_back(name(v));
    out << pad;
    for (size_t i = 0; i < op.numResults(); ++i) out << (i ? " " : "") << binder(op.result(i));
    if (op.numResults() == 0) out << "_";
    std::string opName(op.info().name);
    if (size_t dot = opName.find('.'); dot != std::string::npos) opName = opName.substr(dot + 1);
    out << " = " << opName;
    std::vector<std::string> params;
    const Function* callee = nullptr;
    for (const NamedAttribute& a : op.attrs()) {
      if (a.name == "callee" && module_) callee = module_->lookup(a.value.asString());
      params.push_back(a.name + "=" + shortAttribute(a.value));
    }
    if (!params.empty() || op.numRegions() > 0 || callee) {
      out << "[";
      for (size_t i = 0; i < params.size(); ++i) out << (i ? " " : "") << params[i];
      for (size_t r = 0; r < op.numRegions(); ++r) {
        out << (params.empty() && r == 0 ? "" : "\n" + pad + "  ") << "region" << r << "=";
        std::vector<Value*> args;
        for (size_t i = 0; i < op.region(r).numArguments(); ++i) args.push_back(op.region(r).argument(i));
        region(op.region(r), {}, args, indent + 2, out);
      }
      if (callee) {
        out << "\n" << pad << "  jaxpr=";
        function(*callee, 0, indent + 2, out);
      }
      out << "]";
    }
    for (const std::string& o : operands) out << " " << o;
    out << "\n";
  }

  const Module* module_;
  std::unordered_map<const Value*, std::string> names_;
  size_t next_ = 0;
};

}  // namespace

std::string jaxprText(const Module& module, const Function& fn, size_t numConsts) {
  std::ostringstream out;
  JaxprPrinter(&module).function(fn, numConsts, 0, out);
  return out.str();
}

}  // namespace kiln::detail
