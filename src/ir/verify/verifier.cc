// The verifier's framework: the structural checks every op gets (counts, attributes,
// regions, terminators, dominance, calls), then the op's own rule from the rule table.
#include <algorithm>
#include <unordered_set>

#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "ir/verify/rules.h"
#include "support/error.h"

namespace kiln {

// ---- the walk -----------------------------------------------------------------------------------

namespace {

bool isValueType(const Type& t) {
  if (t.isTensor()) return t.dtype() != DType::TF32;
  if (t.isTuple()) {
    for (const Type& e : t.elements())
      if (!isValueType(e)) return false;
  }
  return true;
}

class ModuleVerifier {
 public:
  ModuleVerifier(const Module& module, std::vector<Error>* collect) : module_(module), collect_(collect) {}

  void run() {
    std::unordered_set<std::string> names;
    for (const auto& fn : module_.functions()) {
      if (!names.insert(fn->name()).second) report(Error(ErrorKind::Verify, "function @" + fn->name() + " is defined twice"));
      verifyFunction(*fn);
    }
  }

 private:
  void report(Error e) {
    if (!collect_) throw e;
    collect_->push_back(std::move(e));
  }

  void verifyFunction(const Function& fn) {
    auto fail = [&](const std::string& msg) {
      std::string text = "@" + fn.name() + ": " + msg;
      report(fn.pos.known() && module_.source ? Error(ErrorKind::Verify, text, module_.source, fn.pos)
                                               : Error(ErrorKind::Verify, text));
    };
    for (size_t i = 0; i < fn.numParams(); ++i)
      if (!isValueType(fn.param(i)->type())) fail("parameter " + std::to_string(i) + " has type " + fn.param(i)->type().str());
    for (const Type& t : fn.resultTypes())
      if (!isValueType(t)) fail("result type " + t.str() + " is not a value type");
    const Op* ret = fn.body().back();
    if (!ret || !ret->is(ops::FuncReturn)) {
      fail("the body must end with func.return");
    } else if (ret->operandTypes() != fn.resultTypes()) {
      OpParts parts{ret->code(), ret->operands(), ret->attrs()};
      parts.loc = ret->loc;
      parts.pos = ret->pos;
      parts.source = module_.source;
      try {
        InferContext(parts, false).fail("returns (" + str(ret->operandTypes()) + ") but @" + fn.name() + " declares (" +
               str(fn.resultTypes()) + ")");
      } catch (Error& e) {
        report(std::move(e));
      }
    }
    defined_.clear();
    for (size_t i = 0; i < fn.numParams(); ++i) defined_.insert(fn.param(i));
    verifyRegion(fn.body(), ops::FuncReturn);
  }

  // `terminator` is the op the region must end with.
  void verifyRegion(const Region& region, OpCode terminator) {
    std::vector<const Value*> added;
    for (size_t i = 0; i < region.numArguments(); ++i) {
      defined_.insert(region.argument(i));
      added.push_back(region.argument(i));
    }
    for (const auto& op : region.ops()) {
      try {
        verifyOp(*op, region, terminator);
      } catch (Error& e) {
        report(std::move(e));
      }
      // Nested regions of every op end with stablehlo.return.
      for (size_t i = 0; i < op->numRegions(); ++i) verifyRegion(op->region(i), ops::Return);
      for (size_t i = 0; i < op->numResults(); ++i) {
        defined_.insert(op->result(i));
        added.push_back(op->result(i));
      }
    }
    for (const Value* v : added) defined_.erase(v);
  }

  void verifyOp(const Op& op, const Region& region, OpCode terminator) {
    OpParts parts{op.code(), op.operands(), op.attrs()};
    parts.loc = op.loc;
    parts.pos = op.pos;
    parts.source = module_.source;
    InferContext v(parts, false);  // for the messages of the structural checks
    const OpInfo& info = op.info();
    for (size_t i = 0; i < op.numOperands(); ++i)
      v.check(op.operand(i) == nullptr || defined_.count(op.operand(i)) > 0, [&] {
        return "operand " + std::to_string(i) +
               " is not defined before this op (or not visible here)";
      });
    for (size_t i = 0; i < op.numResults(); ++i)
      v.check(isValueType(op.result(i)->type()), [&] {
        return "result " + std::to_string(i) + " has type " + op.result(i)->type().str();
      });

    // Terminators end regions, and only there.
    bool last = region.back() == &op;
    if (info.isTerminator()) {
      v.check(last, [&] { return "must be the last op of its region"; });
      v.check(op.code() == terminator, [&] {
        return "is not the terminator this region needs (" + std::string(opInfo(terminator).name) +
               ")";
      });
    } else if (last) {
      v.fail("the region must end with " + std::string(opInfo(terminator).name));
    }

    // Isolated regions (kiln.fusion: a kernel that sees only its operands) use no value
    // from outside.
    if (info.has(kIsolated))
      for (size_t i = 0; i < op.numRegions(); ++i)
        walk(op.region(i), [&](Op& inner) {
          for (const Value* used : inner.operands())
            v.check(op.region(i).contains(used), [&] {
              return "region " + std::to_string(i) + " is isolated but uses a value defined outside it (in " +
                     std::string(inner.name()) + ")";
            });
        });
    verifySymbols(v, op);
    // Counts, attributes, the op's constraints, and its declared result types against
    // the inferred ones.
    checkResultTypes(op, &module_);
  }

  // Calls and other symbol references point at functions that exist, with matching types.
  void verifySymbols(const InferContext& v, const Op& op) {
    auto lookup = [&](const Attribute& sym) -> const Function* {
      if (!sym || !sym.is(Attribute::Kind::SymbolRef)) return nullptr;
      const Function* fn = module_.lookup(sym.asString());
      v.check(fn != nullptr, [&] {
        return "refers to @" + sym.asString() + ", which is not defined in this module";
      });
      return fn;
    };
    // Every symbol attribute of the registry's schema (a call's callee, a composite's
    // decomposition, the rule functions of custom_jvp and custom_vjp); the functions'
    // types are checked by the op's type rule.
    for (const AttrSpec& spec : op.info().attrs)
      if (spec.kind == AttrKind::Symbol) lookup(op.attr(spec.name));
    if (op.is(ops::InterpreterRunParallel)) {
      Attribute programs = op.attr("programs");
      v.check(programs.is(Attribute::Kind::Array),
              [&] { return "programs must be an array of arrays of symbols"; });
      for (const Attribute& row : programs.asArray()) {
        v.check(row.is(Attribute::Kind::Array),
                [&] { return "programs must be an array of arrays of symbols"; });
        for (const Attribute& sym : row.asArray()) {
          v.check(sym.is(Attribute::Kind::SymbolRef),
                  [&] { return "programs must name functions (@f)"; });
          lookup(sym);
        }
      }
    }
  }

  const Module& module_;
  std::vector<Error>* collect_;
  std::unordered_set<const Value*> defined_;
};

}  // namespace

void verifyModule(const Module& module) { ModuleVerifier(module, nullptr).run(); }

std::vector<Error> verifyModuleAll(const Module& module) {
  std::vector<Error> errors;
  ModuleVerifier(module, &errors).run();
  return errors;
}

}  // namespace kiln
