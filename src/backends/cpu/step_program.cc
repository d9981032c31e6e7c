// Running step programs (step_program.h): one execution over an arena from the pool.
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

std::unique_ptr<uint8_t[], void (*)(uint8_t*)> allocate(size_t bytes) {
  bytes = static_cast<size_t>(arenaAligned(static_cast<int64_t>(bytes)));
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
