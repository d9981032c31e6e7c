// Donation in step programs (step_program.h): which results may be written into which
// parameters' storage, decided once from the steps, and per call from what it donates.
#include "backends/cpu/step_program.h"

#include "passes/op_facts.h"

namespace kiln::cpu {

void StepProgram::findDonors() {
  donors_.assign(resultOps_.size(), {});
  const Region& body = fn_.body();
  std::unordered_map<const Value*, size_t> paramIndex;
  for (size_t i = 0; i < fn_.numParams(); ++i) paramIndex[fn_.param(i)] = i;
  // Where each op is, and the last op that reads each parameter (the return included).
  std::unordered_map<const Op*, int64_t> position;
  std::vector<int64_t> lastRead(fn_.numParams(), -1);
  int64_t pos = 0;
  for (const auto& op : body.ops()) {
    position[op.get()] = pos;
    for (const Value* v : passes::valuesRead(*op, body))
      if (auto it = paramIndex.find(v); it != paramIndex.end()) lastRead[it->second] = pos;
    ++pos;
  }
  // A collective (a host step) may hand its operand's storage to other processes, or
  // to its result, without copying it: such a parameter is never written into.
  std::vector<bool> shared(fn_.numParams(), false);
  walk(body, [&](Op& op) {
    if (op.info().category != OpCategory::Collective) return;
    for (const Value* v : op.operands())
      if (auto it = paramIndex.find(v); it != paramIndex.end()) shared[it->second] = true;
  });
  for (const Step& s : body_.steps) {
    // A host step's results are the interpreter's values, handed out as they are.
    if (s.kind == Step::Kind::Host) continue;
    const int64_t at = position.at(s.op);  // (a row group's: its first member's)
    // How the step may read a parameter it writes a result into (the one statement of
    // this rule). A plain kernel: only at the index it writes, element by element (a
    // GEMM's epilogue kernel too, when the GEMM does not read the parameter: the GEMM
    // writes its product apart, before the kernel runs). A while: anywhere, since its
    // results are copied out of its carries once the loop has ended. Any other step not
    // at all: a GEMM reads its operands whole as it writes, a row group's members take
    // turns block by block, a two-phase kernel reads in its second phase what it wrote in
    // its first, an if or case copies its results one by one from the branch's yields
    // (one of which may be the parameter), and a LAPACK call works in its results as it
    // reads.
    const bool plain = s.kind == Step::Kind::Kernel && !s.kernel->twoPhase();
    std::vector<bool> readElsewhere = shared;
    if (plain) {
      for (size_t k = 0; k < s.op->numOperands(); ++k)
        if (auto it = paramIndex.find(s.op->operand(k)); it != paramIndex.end())
          if (!passes::readsOnlyAtWrittenIndex(*s.op, k)) readElsewhere[it->second] = true;
      for (size_t r = 0; r < s.op->numRegions(); ++r)
        walk(s.op->region(r), [&](Op& inner) {
          for (const Value* v : inner.operands())
            if (auto it = paramIndex.find(v); it != paramIndex.end()) readElsewhere[it->second] = true;
        });
    }
    const int64_t readsUpTo = plain || s.kind == Step::Kind::While ? at : at - 1;
    auto offer = [&](const Place& place, const Type& type) {
      if (place.in != Place::In::Result || type.byteSize() == 0) return;
      for (size_t j = 0; j < fn_.numParams(); ++j)
        if (fn_.param(j)->type() == type && lastRead[j] <= readsUpTo && !readElsewhere[j])
          donors_[place.index].push_back(j);
    };
    if (s.kind == Step::Kind::Rows) {
      for (const Step& m : s.members)
        for (size_t i = 0; i < m.results.size(); ++i) offer(m.results[i], m.op->result(i)->type());
    } else {
      for (size_t i = 0; i < s.results.size(); ++i) offer(s.results[i], s.op->result(i)->type());
    }
  }
}

std::vector<int64_t> StepProgram::resultsInParameters(const interp::HostValues& args, const std::vector<Literal>& params,
                                                      const std::vector<bool>& donated) const {
  std::vector<int64_t> in(donors_.size(), -1);
  std::vector<bool> taken(params.size(), false);
  for (size_t r = 0; r < donors_.size(); ++r)
    for (size_t j : donors_[r]) {
      if (j >= donated.size() || !donated[j] || taken[j]) continue;
      // Nothing but this call (the argument and its dense copy) and the result pool may
      // hold the storage: another buffer sharing it would see the result.
      const uint8_t* storage = params[j].storage();
      const long mine = 1 + (args[j].tensor().storage() == storage ? 1 : 0) + results_.count(storage);
      if (params[j].storageOwners() != mine) continue;
      in[r] = static_cast<int64_t>(j);
      taken[j] = true;
      break;
    }
  return in;
}

}  // namespace kiln::cpu
