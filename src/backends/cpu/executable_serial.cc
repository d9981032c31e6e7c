// Serialized executables (executable.h: serialize, deserialize). The bytes are a magic
// word, a fingerprint of the rest (so damage is found before any machine code is
// loaded), then in order: the host key (jit.h: the build, LLVM and the CPU the code is
// for), the source's name, the optimized module as StableHLO text, the source position
// of every function and op (the text's own positions are not the source's), the
// objects of machine code, each distinct code's symbols, and each kernel request's
// shape of work or reason for declining.
//
// Deserializing parses the module again (it is what the step programs, the interpreter
// fallbacks and the reports walk; that parse is most of a warm start's time) but runs
// no pass and compiles nothing: the requests
// are classified again from the module, which is identical, and checked against the
// saved ones.
#include <cstring>
#include <functional>

#include "backends/cpu/executable.h"
#include "backends/cpu/jit.h"
#include "ir/fingerprint.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/bytes.h"

namespace kiln::cpu {

namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'E', 'X', 'E', '1'};
constexpr size_t kHeaderBytes = sizeof kMagic + 16;
const char* const kWhat = "serialized executable";

void putFixed(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t getFixed(std::string_view in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}

// Every function's and op's position, in one fixed order.
void forEachPosition(const Module& module, const std::function<void(SourcePos&)>& fn) {
  for (const auto& f : module.functions()) {
    fn(const_cast<Function&>(*f).pos);
    walk(f->body(), [&](Op& op) { fn(op.pos); });
  }
}

}  // namespace

std::string Executable::serialize() const {
  waitForOptimizedCode();
  const SavedKernels saved = saveKernels(native_, requests_);
  ByteWriter w;
  w.str(Jit::hostKey());
  w.str(module_.source ? module_.source->name() : "");
  w.str(stablehlo::printModule(module_));
  std::vector<SourcePos> positions;
  forEachPosition(module_, [&](SourcePos& p) { positions.push_back(p); });
  w.u64(positions.size());
  for (const SourcePos& p : positions) {
    w.u64(p.line);
    w.u64(p.col);
  }
  w.u64(saved.objects.size());
  for (const std::string& object : saved.objects) w.str(object);
  w.u64(saved.symbols.size());
  for (const auto& [fn, combine] : saved.symbols) {
    w.str(fn);
    w.str(combine);
  }
  w.u64(saved.kernels.size());
  for (const SavedKernel& s : saved.kernels) {
    w.u64(s.declined ? 1 : 0);
    if (s.declined) {
      w.str(s.reason);
      continue;
    }
    const Kernel& k = s.kernel;
    w.u64(s.code);
    w.i64(k.iterations);
    w.i64(k.grain);
    w.i64(k.unit);
    w.u64(k.space.size());
    for (int64_t d : k.space) w.i64(d);
    w.i64(k.combineIterations);
    w.i64(k.combineGrain);
    w.i64(k.scratchBytes);
  }
  const std::string payload = w.take();
  const Fingerprint check = fingerprint(payload);
  std::string out(kMagic, sizeof kMagic);
  putFixed(out, check.hi);
  putFixed(out, check.lo);
  return out + payload;
}

std::unique_ptr<Executable> Executable::deserialize(std::string_view bytes, SourceRef source) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw Error(ErrorKind::Io, "not a serialized executable (of this version of kiln)");
  const std::string_view payload = bytes.substr(kHeaderBytes);
  const Fingerprint check = fingerprint(payload);
  if (getFixed(bytes, sizeof kMagic) != check.hi || getFixed(bytes, sizeof kMagic + 8) != check.lo)
    throw Error(ErrorKind::Io, std::string(kWhat) + " is damaged or truncated");
  ByteReader r(payload, kWhat);
  if (r.str() != Jit::hostKey())
    throw Error(ErrorKind::Unsupported,
                "unsupported: the executable was serialized by another build of kiln or for another CPU; compile "
                "the program again");
  const std::string name(r.str());
  const std::string_view text = r.str();
  // Not verified again: it was when it was compiled, and the fingerprint says these are
  // the bytes serialize() wrote (a check against damage, not against forgery: machine
  // code is loaded from the same bytes).
  std::vector<std::unique_ptr<Module>> modules =
      stablehlo::parseFile(SourceBuffer::fromString(name, std::string(text)), {.verify = false});
  if (modules.size() != 1) r.fail();
  std::unique_ptr<Module> module = std::move(modules[0]);
  const size_t numPositions = r.count();
  size_t seen = 0;
  forEachPosition(*module, [&](SourcePos& p) {
    if (seen++ >= numPositions) return;
    p.line = static_cast<uint32_t>(r.u64());
    p.col = static_cast<uint32_t>(r.u64());
  });
  if (seen != numPositions) r.fail();
  // Positions point into the original text, which only the caller may have.
  module->source = source ? source : SourceBuffer::fromString(name, "");

  SavedKernels saved;
  saved.objects.resize(r.count());
  for (std::string& object : saved.objects) object = r.str();
  saved.symbols.resize(r.count());
  for (auto& [fn, combine] : saved.symbols) {
    fn = r.str();
    combine = r.str();
  }
  saved.kernels.resize(r.count());
  for (SavedKernel& s : saved.kernels) {
    s.declined = r.u64() != 0;
    if (s.declined) {
      s.reason = r.str();
      continue;
    }
    Kernel& k = s.kernel;
    s.code = r.u64();
    k.iterations = r.i64();
    k.grain = r.i64();
    k.unit = r.i64();
    if (k.unit < 1) r.fail();
    k.space.resize(r.count());
    for (int64_t& d : k.space) d = r.i64();
    k.combineIterations = r.i64();
    k.combineGrain = r.i64();
    k.scratchBytes = r.i64();
  }
  if (!r.done()) r.fail();
  return std::unique_ptr<Executable>(new Executable(std::move(module), saved));
}

}  // namespace kiln::cpu
