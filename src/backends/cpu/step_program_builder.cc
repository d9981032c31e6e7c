// Building step programs (step_program.h): the function body and its buffer assignment
// turned into blocks of steps over one arena.
#include "backends/cpu/step_program.h"

#include <cstdlib>
#include <cstring>

#include "backends/cpu/blas_dot.h"
#include "backends/cpu/profile.h"
#include "backends/cpu/row_groups.h"
#include "backends/cpu/threads.h"
#include "ir/ops/stablehlo.h"
#include "passes/buffer_assignment.h"
#include "passes/op_facts.h"
#include "support/error.h"

namespace kiln::cpu {
namespace {

// The fewest rows a row group takes (rows are what its threads share out).
constexpr int64_t kMinRows = 16;
// The most kernels a row group takes.
constexpr size_t kMaxMembers = 64;

// Thrown while building: the function runs through the interpreter, for this reason.
using NoStep = NoStepProgram;

}  // namespace

// Turns regions into blocks of steps. Values of the function body sit where the buffer
// assignment put them; past its arena come the slot that dot_epilogue products share,
// then a slot of its own for everything else (values inside regions, a loop's carries
// and staging, results nobody reads).
class StepProgram::Builder {
 public:
  Builder(StepProgram& p, const CompiledOps& natives, int64_t extraBase)
      : p_(p), natives_(natives), end_(extraBase) {
    // One slot serves every dot_epilogue's product: each is read by its kernel at once.
    int64_t productBytes = 0;
    for (const auto& [fusion, dot] : natives.epilogueDots)
      productBytes = std::max(productBytes, passes::valueBytes(dot->result()->type()));
    product_ = {Place::In::Arena, 0, end_};
    end_ += arenaAligned(productBytes);
    // And one slot every two-phase kernel's scratch: each is used up by its kernel.
    int64_t scratchBytes = 0;
    for (const auto& [op, kernel] : natives.kernels.kernels) scratchBytes = std::max(scratchBytes, kernel.scratchBytes);
    scratch_ = {Place::In::Arena, 0, end_};
    end_ += arenaAligned(scratchBytes);
  }

  std::unordered_map<const Value*, Place> places;

  Place slot(const Type& type) {
    Place at{Place::In::Arena, 0, end_};
    end_ += arenaAligned(passes::valueBytes(type));
    return at;
  }
  int64_t end() const { return end_; }

  // The steps of `region`, whose arguments already have places.
  void block(const Region& region, Block& out) {
    for (const auto& op : region.ops()) {
      if (op->info().isTerminator()) {
        for (const Value* v : op->operands()) out.yields.push_back(placeOf(v, *op));
        continue;
      }
      if (op->info().category == OpCategory::Constant && op->numResults() == 1 && op->result()->type().isTensor() &&
          op->attr("value").is(Attribute::Kind::Dense)) {
        Literal dense = op->attr("value").asDense();
        dense.mutableStorage();  // kernels and GEMMs read every element
        places[op->result()] = {Place::In::Constant, p_.constants_.size(), 0};
        p_.constants_.push_back(std::move(dense));
        continue;
      }
      out.steps.push_back(step(*op));
    }
    formRowGroups(out.steps);
  }

 private:
  Place placeOf(const Value* v, const Op& user) {
    auto it = places.find(v);
    if (it == places.end()) throw NoStep{&user, "an operand of " + describeOp(user) + " has no buffer"};
    return it->second;
  }

  Step step(const Op& op) {
    Step s;
    s.op = &op;
    for (const Value* v : op.operands()) {
      if (!v->type().isTensor()) throw NoStep{&op, describeOp(op) + " takes a " + v->type().str()};
      s.operands.push_back(placeOf(v, op));
    }
    for (const Value* v : op.results()) {
      if (!v->type().isTensor()) throw NoStep{&op, describeOp(op) + " gives a " + v->type().str()};
      if (!places.count(v)) places[v] = slot(v->type());
      s.results.push_back(places[v]);
    }
    if (natives_.blas.count(&op)) {
      s.kind = Step::Kind::Gemm;
      s.dot = &op;
    } else if (auto k = natives_.kernels.kernels.find(&op); k != natives_.kernels.kernels.end()) {
      s.kernel = &k->second;
      if (s.kernel->twoPhase()) s.scratch = scratch_;
      if (auto d = natives_.epilogueDots.find(&op); d != natives_.epilogueDots.end()) {
        s.dot = d->second;
        s.product = product_;
      }
    } else if (auto l = natives_.lapack.find(&op); l != natives_.lapack.end()) {
      s.kind = Step::Kind::Lapack;
      s.lapack = &l->second;
    } else if (op.info().category == OpCategory::Collective) {
      s.kind = Step::Kind::Host;
    } else if (op.is(ops::While)) {
      s.kind = Step::Kind::While;
      // The carries: one slot each, the arguments of both regions.
      std::vector<Place> carries;
      for (const Value* v : op.results()) carries.push_back(slot(v->type()));
      for (size_t r = 0; r < 2; ++r) {
        Block b;
        const Region& region = op.region(r);
        for (size_t i = 0; i < region.numArguments(); ++i) places[region.argument(i)] = carries[i];
        b.args = carries;
        block(region, b);
        s.regions.push_back(std::move(b));
      }
      for (const Value* v : op.results()) s.staging.push_back(slot(v->type()));
    } else if (op.is(ops::If) || op.is(ops::Case)) {
      s.kind = op.is(ops::If) ? Step::Kind::If : Step::Kind::Case;
      for (size_t r = 0; r < op.numRegions(); ++r) {
        Block b;
        block(op.region(r), b);
        s.regions.push_back(std::move(b));
      }
    } else {
      throw NoStep{&op, describeOp(op) + " has no native step"};
    }
    return s;
  }

  // A kernel step that may start or join a row group of `rows` rows, given what the
  // group's earlier members produce.
  static bool rowWise(const Step& s, int64_t rows, const std::unordered_set<const Value*>& produced) {
    if (s.kind != Step::Kind::Kernel || s.dot || rowsOfSpace(s.kernel->space) != rows) return false;
    // A block of the group's rows must be a range of whole units of the kernel's.
    if ((s.kernel->iterations / rows) % s.kernel->unit != 0) return false;
    return readsRowByRow(*s.op, rows, [&](const Value* v) { return produced.count(v) > 0; });
  }

  // Whether the arena bytes of the group's members stay apart: a value that takes over
  // another's bytes (their lifetimes end and begin inside the group) must take exactly
  // them, row for row, and every member must read the one it overwrites row for row, or
  // a block could overwrite rows a later block still reads (a member reading a value
  // from before the group through a transpose, say).
  // The members but the last were checked when they joined: only pairs with one of the
  // last member's spans are checked (a join costs the group's size, not its square),
  // except at the first join, which checks the first member's own pairs too.
  static bool arenaApart(const std::vector<const Step*>& members, int64_t rows) {
    struct Span {
      int64_t offset, bytes;
      bool rowWise;
    };
    std::vector<Span> spans;
    size_t firstOfLast = 0;
    for (const Step* m : members) {
      firstOfLast = spans.size();
      auto add = [&](const Place& p, const Value* v, bool rowForRow) {
        if (p.in == Place::In::Arena) spans.push_back({p.offset, passes::valueBytes(v->type()), rowForRow});
      };
      for (size_t i = 0; i < m->operands.size(); ++i) {
        const Value* v = m->op->operand(i);
        add(m->operands[i], v,
            leadsRows(v, rows) && readsRowByRow(*m->op, rows, [&](const Value* u) { return u == v; }));
      }
      for (size_t i = 0; i < m->results.size(); ++i) add(m->results[i], m->op->result(i), leadsRows(m->op->result(i), rows));
    }
    if (members.size() <= 2) firstOfLast = 0;
    for (size_t j = firstOfLast; j < spans.size(); ++j)
      for (size_t i = 0; i < j; ++i) {
        const Span &a = spans[i], &b = spans[j];
        bool overlap = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
        bool same = a.offset == b.offset && a.bytes == b.bytes && a.rowWise && b.rowWise;
        if (overlap && !same) return false;
      }
    return true;
  }

  // Whether `s` reads rows the run has in cache: a value one of its members produces, or
  // an input one of them reads. Kernels without such a link gain nothing from running
  // block by block together, and their streams of rows compete (an Adam update of two
  // unrelated arrays: 14 streams at once instead of 7 twice).
  static bool sharesRows(const Step& s, const std::vector<Step>& run, const std::unordered_set<const Value*>& produced,
                         int64_t rows) {
    for (const Value* v : s.op->operands()) {
      if (!leadsRows(v, rows)) continue;
      if (produced.count(v)) return true;
      for (const Step& m : run)
        for (const Value* u : m.op->operands())
          if (u == v) return true;
    }
    return false;
  }

  // Runs of two or more kernel steps that read row by row become row groups.
  void formRowGroups(std::vector<Step>& steps) {
    std::vector<Step> out;
    std::vector<Step> run;
    std::unordered_set<const Value*> produced;
    int64_t rows = 0;
    auto close = [&] {
      if (run.size() >= 2) {
        out.push_back(rowGroup(std::move(run), rows));
      } else {
        for (Step& s : run) out.push_back(std::move(s));
      }
      run.clear();
      produced.clear();
    };
    for (Step& s : steps) {
      // A group's block holds every member's rows: past kMaxMembers its blocks would
      // shrink toward single rows (and forming it would cost the square of its size).
      bool joins = !run.empty() && run.size() < kMaxMembers && rowWise(s, rows, produced) &&
                   sharesRows(s, run, produced, rows);
      if (joins) {
        std::vector<const Step*> members;
        for (const Step& m : run) members.push_back(&m);
        members.push_back(&s);
        joins = arenaApart(members, rows);
      }
      if (!joins) {
        close();
        // Fewer rows than kMinRows would leave threads without blocks.
        const int64_t r = s.kind == Step::Kind::Kernel ? rowsOfSpace(s.kernel->space) : 0;
        if (r < kMinRows || !rowWise(s, r, produced)) {
          out.push_back(std::move(s));
          continue;
        }
        rows = r;
      }
      for (const Value* v : s.op->results()) produced.insert(v);
      run.push_back(std::move(s));
    }
    close();
    steps = std::move(out);
  }

  // The group of `members`: the values only its members read move to the block scratch.
  static Step rowGroup(std::vector<Step> members, int64_t rows) {
    Step g;
    g.kind = Step::Kind::Rows;
    g.op = members.front().op;
    g.rows = rows;
    std::unordered_set<const Op*> ops;
    for (const Step& m : members) ops.insert(m.op);
    auto onlyInside = [&](const Value* v) {
      if (!v->hasUses()) return false;
      for (const Use& u : v->uses())
        if (!ops.count(u.user)) return false;
      return true;
    };
    // The block holds every row-shaped value the group touches (each counted once).
    std::unordered_set<const Value*> touched;
    int64_t bytesPerRow = 0;
    auto touch = [&](const Value* v) {
      if (leadsRows(v, rows) && touched.insert(v).second)
        bytesPerRow += passes::valueBytes(v->type()) / rows;
    };
    for (const Step& m : members) {
      for (const Value* v : m.op->operands()) touch(v);
      for (const Value* v : m.op->results()) touch(v);
    }
    g.blockRows = std::min(rows, rowsPerBlock(bytesPerRow));
    std::unordered_map<const Value*, Place> scratch;
    for (const Step& m : members)
      for (const Value* v : m.op->results())
        if (onlyInside(v)) {
          const int64_t rowBytes = passes::valueBytes(v->type()) / rows;
          scratch[v] = {Place::In::Scratch, 0, g.scratchBytes, rowBytes};
          g.scratchBytes += arenaAligned(rowBytes * g.blockRows);
        }
    // What the group moves through memory: every value its members read or write, each
    // once, except those in the block scratch.
    std::unordered_set<const Value*> moved;
    for (const Step& m : members)
      for (auto range : {m.op->operands(), m.op->results()})
        for (const Value* v : range)
          if (!scratch.count(v) && moved.insert(v).second) g.movedBytes += static_cast<double>(passes::valueBytes(v->type()));
    for (Step& m : members) {
      for (size_t i = 0; i < m.operands.size(); ++i)
        if (auto it = scratch.find(m.op->operand(i)); it != scratch.end()) m.operands[i] = it->second;
      for (size_t i = 0; i < m.results.size(); ++i)
        if (auto it = scratch.find(m.op->result(i)); it != scratch.end()) m.results[i] = it->second;
    }
    g.members = std::move(members);
    return g;
  }

  StepProgram& p_;
  const CompiledOps& natives_;
  int64_t end_;
  Place product_;
  Place scratch_;
};

std::unique_ptr<StepProgram> StepProgram::build(const Module& module, const Function& fn, const CompiledOps& natives,
                                               NoStepProgram& whyNot) {
  std::unique_ptr<StepProgram> p(new StepProgram(module, fn));
  // Parameters marked as donors in the text are not the program's to overwrite: whether a
  // call donates is known only when it runs (findDonors, run).
  const passes::BufferAssignment assignment = passes::assignBuffers(fn, passes::Donation::None);
  Builder builder(*p, natives, arenaAligned(assignment.arenaBytes));
  auto& places = builder.places;
  for (size_t i = 0; i < fn.numParams(); ++i) places[fn.param(i)] = {Place::In::Parameter, i, 0};
  for (const passes::BufferedValue& v : assignment.values)
    if (v.kind == passes::BufferedValue::Kind::Temporary && v.offset >= 0)
      places[v.value] = {Place::In::Arena, 0, v.offset};
  // The function's results get buffers of their own (handed to the caller without a
  // copy); a value returned twice is handed out twice.
  const Op& ret = *fn.body().terminator();
  for (size_t r = 0; r < ret.numOperands(); ++r) {
    const Value* v = ret.operand(r);
    const Op* def = v->definingOp();
    if (!def || def->info().category == OpCategory::Constant) continue;
    if (places.count(v) && places[v].in != Place::In::Arena) continue;
    places[v] = {Place::In::Result, p->resultOps_.size(), 0};
    p->resultOps_.push_back(def);
    p->resultIndex_.push_back(v->index());
  }
  try {
    for (size_t i = 0; i < fn.numParams(); ++i)
      if (!fn.param(i)->type().isTensor()) throw NoStep{nullptr, "parameter " + std::to_string(i) + " is not a tensor"};
    builder.block(fn.body(), p->body_);
  } catch (const NoStep& e) {
    whyNot = e;
    return nullptr;
  }
  p->arenaBytes_ = builder.end();
  p->findDonors();
  return p;
}

}  // namespace kiln::cpu
