// Step programs (step_program.h): built from the function body and its buffer
// assignment, run over a pooled arena.
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

constexpr int64_t kArenaAlignment = 64;

// The fewest rows a row group takes (rows are what its threads share out).
constexpr int64_t kMinRows = 16;
// The most kernels a row group takes.
constexpr size_t kMaxMembers = 64;

int64_t aligned(int64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

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
    end_ += aligned(productBytes);
    // And one slot every two-phase kernel's scratch: each is used up by its kernel.
    int64_t scratchBytes = 0;
    for (const auto& [op, kernel] : natives.kernels.kernels) scratchBytes = std::max(scratchBytes, kernel.scratchBytes);
    scratch_ = {Place::In::Arena, 0, end_};
    end_ += aligned(scratchBytes);
  }

  std::unordered_map<const Value*, Place> places;

  Place slot(const Type& type) {
    Place at{Place::In::Arena, 0, end_};
    end_ += aligned(passes::valueBytes(type));
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
          g.scratchBytes += aligned(rowBytes * g.blockRows);
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
  Builder builder(*p, natives, aligned(assignment.arenaBytes));
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

namespace {

std::unique_ptr<uint8_t[], void (*)(uint8_t*)> allocate(size_t bytes) {
  bytes = static_cast<size_t>(aligned(static_cast<int64_t>(bytes)));
  std::unique_ptr<uint8_t[], void (*)(uint8_t*)> p{static_cast<uint8_t*>(std::aligned_alloc(kArenaAlignment, bytes)),
                                                   [](uint8_t* b) { std::free(b); }};
  if (!p) throw Error(ErrorKind::Runtime, "out of memory: an arena of " + std::to_string(bytes) + " bytes");
  return p;
}

}  // namespace

StepProgram::Arena StepProgram::takeArena() const {
  {
    std::lock_guard<std::mutex> lock(arenasMutex_);
    if (!arenas_.empty()) {
      Arena a = std::move(arenas_.back());
      arenas_.pop_back();
      return a;
    }
  }
  Arena a;
  a.bytes = allocate(static_cast<size_t>(std::max<int64_t>(arenaBytes_, kArenaAlignment)));
  return a;
}

void StepProgram::giveBack(Arena arena) const {
  std::lock_guard<std::mutex> lock(arenasMutex_);
  arenas_.push_back(std::move(arena));
}

// One execution: the places resolved against this call's arena, parameters and results.
class StepProgram::Runner {
 public:
  // `inParameter`: for each Result place, the parameter whose storage holds it (-1: its
  // own buffer in `results`); empty: none.
  Runner(const StepProgram& p, Arena& arena, std::vector<Literal>& params, std::vector<Literal>& results,
         const std::vector<int64_t>& inParameter, std::atomic<uint64_t>& runs, const interp::InterpOptions& options,
         Profile* profile)
      : p_(p), arenaOwner_(arena), arena_(arena.bytes.get()), params_(params), results_(results),
        inParameter_(inParameter), runs_(runs), options_(options), profile_(profile) {}

  void block(const Block& b) {
    for (const Step& s : b.steps) step(s);
  }

 private:
  // Where a Result place's donated parameter is, when it has one.
  Literal* donor(const Place& p) {
    if (inParameter_.empty() || inParameter_[p.index] < 0) return nullptr;
    return &params_[static_cast<size_t>(inParameter_[p.index])];
  }

  // Where a value's bytes are, to read them or to write them. A function result shared
  // with others (a collective's, handed out as it is) is read where it is, and unshared
  // only to be written.
  enum class Access { Read, Write };
  void* address(const Place& p, Access access) {
    switch (p.in) {
      case Place::In::Parameter: return const_cast<uint8_t*>(params_[p.index].storage());
      case Place::In::Constant: return const_cast<uint8_t*>(p_.constants_[p.index].storage());
      case Place::In::Result:  // (the donated storage is this call's alone: written as it is)
        if (Literal* d = donor(p)) return const_cast<uint8_t*>(d->storage());
        if (access == Access::Write) return results_[p.index].mutableStorage();
        return const_cast<uint8_t*>(results_[p.index].denseStorage());
      case Place::In::Arena:
      case Place::In::Scratch: break;
    }
    return arena_ + p.offset;
  }

  // The whole literal a value lives in, when it has one of its own (a parameter, a
  // constant, a result); null for a value in the arena.
  const Literal* heldWhole(const Place& p) {
    switch (p.in) {
      case Place::In::Parameter: return &params_[p.index];
      case Place::In::Constant: return &p_.constants_[p.index];
      case Place::In::Result:
        if (Literal* d = donor(p)) return d;
        return &results_[p.index];
      case Place::In::Arena:
      case Place::In::Scratch: break;
    }
    return nullptr;
  }

  // A row group: its blocks in `parts` runs of consecutive blocks, one per thread, each
  // with its own block scratch. A scratch value's pointer is placed so that row r of the
  // block is where the kernel looks for row r of the value: `r0` rows before the scratch.
  void rowGroup(const Step& g) {
    // Blocks as the group was built for, smaller when there would be fewer than threads.
    const int64_t blockRows = std::min(g.blockRows, (g.rows + threadCount() - 1) / threadCount());
    const int64_t blocks = (g.rows + blockRows - 1) / blockRows;
    const int64_t parts = std::min<int64_t>(threadCount(), blocks);
    if (arenaOwner_.scratchBytes < g.scratchBytes || static_cast<int64_t>(arenaOwner_.scratch.size()) < parts) {
      arenaOwner_.scratchBytes = std::max(arenaOwner_.scratchBytes, g.scratchBytes);
      arenaOwner_.scratch.clear();
      for (int64_t t = 0; t < std::max<int64_t>(parts, threadCount()); ++t)
        arenaOwner_.scratch.push_back(allocate(static_cast<size_t>(std::max<int64_t>(arenaOwner_.scratchBytes, 1))));
    }
    // Every other address is resolved here, on the calling thread: member k's buffers
    // start at first[k] in one list, which each part copies and fills in per block.
    std::vector<void*> fixed;
    std::vector<size_t> first;
    for (const Step& m : g.members) {
      first.push_back(fixed.size());
      for (const Place& p : m.operands) fixed.push_back(p.in == Place::In::Scratch ? nullptr : address(p, Access::Read));
      for (const Place& p : m.results) fixed.push_back(p.in == Place::In::Scratch ? nullptr : address(p, Access::Write));
    }
    runParts(parts, [&](int64_t t) {
      const uintptr_t scratch = reinterpret_cast<uintptr_t>(arenaOwner_.scratch[static_cast<size_t>(t)].get());
      std::vector<void*> buffers = fixed;
      for (int64_t b = t * blocks / parts; b < (t + 1) * blocks / parts; ++b) {
        const int64_t r0 = b * blockRows, r1 = std::min(g.rows, r0 + blockRows);
        for (size_t k = 0; k < g.members.size(); ++k) {
          const Step& m = g.members[k];
          size_t slot = first[k];
          for (const std::vector<Place>* places : {&m.operands, &m.results})
            for (const Place& p : *places) {
              if (p.in == Place::In::Scratch)
                buffers[slot] = reinterpret_cast<void*>(scratch + static_cast<uintptr_t>(p.offset) -
                                                        static_cast<uintptr_t>(r0 * p.rowBytes));
              ++slot;
            }
          const int64_t perRow = m.kernel->iterations / g.rows;
          m.kernel->fn()(buffers.data() + first[k], r0 * perRow, r1 * perRow);
        }
      }
    });
    runs_.fetch_add(g.members.size() - 1, std::memory_order_relaxed);
  }
  void copy(const Place& to, const Place& from, const Type& type) {
    void* dst = address(to, Access::Write);
    const void* src = address(from, Access::Read);
    const auto bytes = static_cast<size_t>(passes::valueBytes(type));
    if (dst != src && bytes > 0) std::memcpy(dst, src, bytes);  // (an empty value may have no address)
  }
  void copyAll(const std::vector<Place>& to, const std::vector<Place>& from, const Op& op) {
    for (size_t i = 0; i < to.size(); ++i) copy(to[i], from[i], op.result(i)->type());
  }
  // A rank-0 boolean or integer operand's value.
  int64_t scalar(const Place& p, DType t) {
    const uint8_t* at = static_cast<const uint8_t*>(address(p, Access::Read));
    if (isBool(t)) return *at != 0;
    uint64_t bits = 0;
    std::memcpy(&bits, at, static_cast<size_t>(storageBytes(t)));
    const int width = bitWidth(t);
    if (width < 64 && isSignedInt(t) && (bits >> (width - 1)) & 1) bits |= ~uint64_t{0} << width;  // sign-extend
    if (width == 64 && !isSignedInt(t) && bits > static_cast<uint64_t>(INT64_MAX)) return INT64_MAX;
    return static_cast<int64_t>(bits);
  }

  void step(const Step& s) {
    if (!profile_) return runStep(s);
    const double start = profile_->now();
    runStep(s);
    profile_->step(*s.op, kindOf(s), start, profile_->now(), s.kind == Step::Kind::Rows ? s.movedBytes : -1);
  }

  // What a profile calls the step.
  static const char* kindOf(const Step& s) {
    switch (s.kind) {
      case Step::Kind::Kernel: return s.dot ? "GEMM, then kernel" : "kernel";
      case Step::Kind::Gemm: return "GEMM";
      case Step::Kind::Lapack: return "LAPACK";
      case Step::Kind::Host: return "collective";
      case Step::Kind::Rows: return "row group";
      case Step::Kind::While: return "while";
      case Step::Kind::If: return "if";
      case Step::Kind::Case: return "case";
    }
    return "step";
  }

  void runStep(const Step& s) {
    switch (s.kind) {
      case Step::Kind::Gemm:
        blasInto(*s.dot, address(s.operands[0], Access::Read), address(s.operands[1], Access::Read),
                 address(s.results[0], Access::Write));
        break;
      case Step::Kind::Lapack: {
        std::vector<const void*> operands;
        std::vector<void*> results;
        for (const Place& p : s.operands) operands.push_back(address(p, Access::Read));
        for (const Place& p : s.results) results.push_back(address(p, Access::Write));
        kernels::runLapackCall(*s.lapack, operands.data(), results.data());
        break;
      }
      case Step::Kind::Host: {
        // Values held whole (parameters, constants, results) are shared with the
        // interpreter, which only reads its operands; values in the arena are copied out.
        interp::HostValues operands;
        for (size_t i = 0; i < s.operands.size(); ++i) {
          if (const Literal* whole = heldWhole(s.operands[i])) {
            operands.emplace_back(*whole);
            continue;
          }
          Literal value(s.op->operand(i)->type());
          const auto bytes = static_cast<size_t>(passes::valueBytes(s.op->operand(i)->type()));
          if (bytes > 0) std::memcpy(value.mutableStorage(), address(s.operands[i], Access::Read), bytes);
          operands.emplace_back(std::move(value));
        }
        if (!host_) host_.emplace(p_.module_, options_);
        interp::HostValues results = host_->runOp(*s.op, operands);
        for (size_t i = 0; i < s.results.size(); ++i) {
          // A result of the function takes the interpreter's value as it is (a 64 MiB
          // collective's result is not copied again); others are copied into the arena.
          if (s.results[i].in == Place::In::Result && results[i].isTensor()) {
            results_[s.results[i].index] = results[i].tensor();
            continue;
          }
          const auto bytes = static_cast<size_t>(passes::valueBytes(s.op->result(i)->type()));
          if (bytes > 0) std::memcpy(address(s.results[i], Access::Write), results[i].tensor().denseStorage(), bytes);
        }
        break;
      }
      case Step::Kind::Rows:
        rowGroup(s);
        break;
      case Step::Kind::Kernel: {
        std::vector<void*> buffers;
        for (const Place& p : s.operands) buffers.push_back(address(p, Access::Read));
        if (s.dot) {
          // The epilogue's dot, from the fusion operands its region arguments stand for.
          void* product = address(s.product, Access::Write);
          blasInto(*s.dot, buffers[s.dot->operand(0)->index()], buffers[s.dot->operand(1)->index()], product);
          buffers.push_back(product);
        }
        for (const Place& p : s.results) buffers.push_back(address(p, Access::Write));
        if (s.kernel->twoPhase()) buffers.push_back(address(s.scratch, Access::Write));
        runKernel(*s.kernel, buffers.data(), profile_, s.op);
        break;
      }
      case Step::Kind::While: {
        const Block& cond = s.regions[0];
        const Block& body = s.regions[1];
        copyAll(cond.args, s.operands, *s.op);
        for (;;) {
          interp::checkDeadline(options_);
          block(cond);
          if (!scalar(cond.yields[0], DType::I1)) break;
          block(body);
          // Through the staging slots: a body may yield its carries in another order.
          copyAll(s.staging, body.yields, *s.op);
          copyAll(body.args, s.staging, *s.op);
        }
        copyAll(s.results, cond.args, *s.op);
        break;
      }
      case Step::Kind::If:
      case Step::Kind::Case: {
        int64_t n = static_cast<int64_t>(s.regions.size());
        int64_t k;
        if (s.kind == Step::Kind::If) {
          k = scalar(s.operands[0], DType::I1) ? 0 : 1;
        } else {
          k = scalar(s.operands[0], s.op->operand(0)->type().dtype());
          if (k < 0 || k >= n) k = n - 1;  // out of range: the last branch, as the spec says
        }
        const Block& branch = s.regions[static_cast<size_t>(k)];
        block(branch);
        copyAll(s.results, branch.yields, *s.op);
        break;
      }
    }
    runs_.fetch_add(1, std::memory_order_relaxed);
  }

  const StepProgram& p_;
  Arena& arenaOwner_;
  uint8_t* arena_;
  std::vector<Literal>& params_;
  std::vector<Literal>& results_;
  const std::vector<int64_t>& inParameter_;
  std::atomic<uint64_t>& runs_;
  const interp::InterpOptions& options_;
  Profile* profile_;
  std::optional<interp::Interpreter> host_;  // for host steps, made at the first
};

std::vector<std::string> StepProgram::rowGroups() const {
  std::vector<std::string> out;
  std::function<void(const Block&)> visit = [&](const Block& b) {
    for (const Step& s : b.steps) {
      if (s.kind == Step::Kind::Rows)
        out.push_back(std::to_string(s.members.size()) + " kernels over " + std::to_string(s.rows) +
                      " rows in blocks of " + std::to_string(s.blockRows) + " (from " + describeOp(*s.op) + ")");
      for (const Block& r : s.regions) visit(r);
    }
  };
  visit(body_);
  return out;
}

interp::HostValues StepProgram::run(const interp::HostValues& args, std::atomic<uint64_t>& runs,
                                    const interp::InterpOptions& options, Profile* profile,
                                    const std::vector<bool>* donated) const {
  interp::checkArguments(fn_, args);
  // Kernels read dense buffers: a splat argument is expanded into a copy.
  std::vector<Literal> params;
  params.reserve(args.size());
  for (const interp::HostValue& a : args) {
    params.push_back(a.tensor());
    params.back().denseStorage();
  }
  // Buffers from the pool, before anything runs (a program too large fails here, out of
  // memory), except for the results of collectives: the step of the interpreter that
  // makes each hands out its value as it is.
  // A result written into a donated argument takes none.
  const std::vector<int64_t> inParameter =
      donated ? resultsInParameters(args, params, *donated) : std::vector<int64_t>{};
  auto inDonated = [&](size_t r) { return !inParameter.empty() && inParameter[r] >= 0; };
  std::vector<Literal> results(resultOps_.size());
  for (size_t r = 0; r < resultOps_.size(); ++r)
    if (!madeByInterpreter(r) && !inDonated(r)) results[r] = results_.take(*resultOps_[r], resultIndex_[r]);
  Arena arena = takeArena();
  try {
    Runner(*this, arena, params, results, inParameter, runs, options, profile).block(body_);
  } catch (...) {
    giveBack(std::move(arena));
    throw;
  }
  giveBack(std::move(arena));
  for (size_t r = 0; r < results.size(); ++r)
    if (inDonated(r)) {
      results[r] = std::move(params[static_cast<size_t>(inParameter[r])]);
      inDonated_.fetch_add(1, std::memory_order_relaxed);
    }
  interp::HostValues out;
  out.reserve(body_.yields.size());
  std::vector<bool> handedOut(results.size(), false);
  for (const Place& p : body_.yields) {
    if (p.in == Place::In::Parameter) {
      out.emplace_back(args[p.index].tensor());
    } else if (p.in == Place::In::Constant) {
      out.emplace_back(constants_[p.index]);
    } else if (p.in == Place::In::Result) {
      // A pool buffer is kept for a later execution; an interpreter's value is not.
      if (!handedOut[p.index] && !madeByInterpreter(p.index))
        results_.keep(*resultOps_[p.index], resultIndex_[p.index], results[p.index], inDonated(p.index));
      handedOut[p.index] = true;
      out.emplace_back(results[p.index]);
    } else {
      throw Error(ErrorKind::Internal, "a result of @" + fn_.name() + " lives in the arena");
    }
  }
  return out;
}

}  // namespace kiln::cpu
