// compileKernels (native_kernels.h): the requests' kernels, each distinct piece of code
// once, emitted into one LLVM module per thread, each compiled to an object on its own
// thread (jit.h) or taken from the disk cache (disk_cache.h), then loaded together;
// what the emitter declines is reported in request order. A tiered compile generates
// unoptimized code first and hands the modules it did not find in the cache to a
// background thread, which compiles them again optimized and swaps the code in.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "backends/cpu/jit.h"
#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/threads.h"
#include "ir/fingerprint.h"
#include "ir/ops/compiler.h"
#include "support/disk_cache.h"

namespace kiln::cpu {

// A kernel's symbol: its number, then its op and line, so that dumps and profiles say
// what each one computes ("kernel3_fusion_input_line12").
std::string kernelName(size_t index, const Op& op) {
  std::string name = "kernel" + std::to_string(index) + "_";
  std::string opName(op.name());
  if (op.is(ops::Fusion)) opName += "_" + op.attr("kind").asString();
  for (char c : opName.substr(opName.find('.') + 1))
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (SourcePos pos = sourceLine(op); pos.known()) name += "_line" + std::to_string(pos.line);
  return name;
}

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// For each request, the first request whose op is the same piece of code (the same
// structure and types up to names and locations, the same values precomputed): the
// emitter's output depends on nothing else, so such kernels are compiled once. A
// transformer's identical layers are the common case.
std::vector<size_t> firstOfSameCode(const std::vector<KernelRequest>& requests) {
  std::vector<size_t> first(requests.size());
  std::unordered_map<Fingerprint, size_t, FingerprintHash> seen[2];  // not in place, in place
  for (size_t i = 0; i < requests.size(); ++i) {
    std::optional<Fingerprint> code = codeFingerprint(*requests[i].op, requests[i].precomputed);
    first[i] = code ? seen[requests[i].inPlace].try_emplace(*code, i).first->second : i;
  }
  return first;
}

// One LLVM module's kernels: requests index, index + parts, index + 2 * parts, ...
struct Part {
  size_t index = 0;
  std::vector<size_t> compiled;  // request numbers
  std::vector<std::string> names;
  std::vector<Kernel> kernels;
  std::vector<std::pair<size_t, std::string>> declined;
  Jit::Object object;
  double emitSeconds = 0;
  bool cached = false;  // the object came from the disk cache
  bool fast = false;    // unoptimized code (its names end in "_fast"): optimized code is to come
};

// Emits `part`'s kernels into `module`: the same IR every time for the same requests,
// which is what the disk cache's keys rest on.
void emitPart(const std::vector<KernelRequest>& requests, size_t parts, const Jit& jit, llvm::Module& module,
              Part& part) {
  auto start = Clock::now();
  jit.prepare(module);
  for (size_t i = part.index; i < requests.size(); i += parts) {
    std::string name = kernelName(i, *requests[i].op);
    try {
      part.kernels.push_back(KernelEmitter(module, requests[i], name).emit());
      part.names.push_back(name);
      if (part.kernels.back().twoPhase()) part.names.push_back(name + "_combine");
      part.compiled.push_back(i);
    } catch (const Declined& d) {
      // Drop the half-built functions (the kernel, its combine step, sort's comparator);
      // the op stays with the interpreter.
      for (const std::string& n : {name, name + "_combine", name + "_less"})
        if (llvm::Function* f = module.getFunction(n)) f->eraseFromParent();
      part.declined.emplace_back(i, d.reason);
    }
  }
  part.emitSeconds = since(start);
}

// Points each of `part`'s kernels at its loaded code (`addresses` in `part.names`' order),
// and records the object it came from (`object`) and the symbols, for serializing.
void install(const Part& part, const std::vector<void*>& addresses, std::string object, LoadedCode& loaded) {
  std::lock_guard<std::mutex> lock(loaded.mutex);
  size_t next = 0;
  for (const Kernel& k : part.kernels) {
    k.code->fnSymbol = part.names[next];
    k.code->fn.store(reinterpret_cast<KernelFn>(addresses[next++]), std::memory_order_release);
    if (k.twoPhase()) {
      k.code->combineSymbol = part.names[next];
      k.code->combine.store(reinterpret_cast<KernelFn>(addresses[next++]), std::memory_order_release);
    }
  }
  if (loaded.objects.size() <= part.index) loaded.objects.resize(part.index + 1);
  loaded.objects[part.index] = std::move(object);
}

std::string bytesOf(const Jit::Object& object) {
  const llvm::StringRef code = object.bytes->getBuffer();
  return std::string(code.data(), code.size());
}

}  // namespace

// The optimizing half of a tiered compile: each part compiled at the fast tier is
// emitted again, compiled optimized (and kept in the disk cache), loaded, and its kernels'
// code swapped, one part at a time, on a thread of its own.
class BackgroundCompile {
 public:
  BackgroundCompile(std::shared_ptr<Jit> jit, std::shared_ptr<LoadedCode> loaded, std::vector<KernelRequest> requests,
                    size_t parts, std::vector<Part> fastParts, std::string cacheDir)
      : jit_(std::move(jit)), loaded_(std::move(loaded)), requests_(std::move(requests)), parts_(parts),
        todo_(std::move(fastParts)), cacheDir_(std::move(cacheDir)) {
    thread_ = std::thread([this] { run(); });
  }
  ~BackgroundCompile() {
    stop_ = true;
    join();
  }

  double wait() {
    join();
    if (failure_) std::rethrow_exception(failure_);
    return seconds_;
  }

 private:
  void join() {
    std::lock_guard<std::mutex> lock(joinMutex_);
    if (thread_.joinable()) thread_.join();
  }

  void run() {
    auto start = Clock::now();
    try {
      std::optional<DiskCache> cache;
      if (!cacheDir_.empty()) cache.emplace(cacheDir_);
      for (const Part& fast : todo_) {
        if (stop_) return;
        llvm::LLVMContext context;
        llvm::Module module("kiln_kernels_" + std::to_string(fast.index), context);
        Part part;
        part.index = fast.index;
        emitPart(requests_, parts_, *jit_, module, part);
        const std::string key = cache ? jit_->cacheKey(module) : "";
        Jit::Object object = jit_->compile(module, "");
        std::string bytes = bytesOf(object);
        if (cache) cache->store(key, bytes);
        std::vector<Jit::Object> objects;
        objects.push_back(std::move(object));
        // The new code replaces the fast code of the same kernels (the fast part's).
        part.kernels = fast.kernels;
        install(part, jit_->load(std::move(objects), part.names), std::move(bytes), *loaded_);
      }
    } catch (...) {
      failure_ = std::current_exception();
    }
    seconds_ = since(start);
  }

  std::shared_ptr<Jit> jit_;
  std::shared_ptr<LoadedCode> loaded_;
  std::vector<KernelRequest> requests_;
  size_t parts_;
  std::vector<Part> todo_;
  std::string cacheDir_;
  std::atomic<bool> stop_{false};
  std::mutex joinMutex_;
  std::thread thread_;
  std::exception_ptr failure_;
  double seconds_ = 0;
};

double waitForOptimizedCode(const NativeKernels& kernels) {
  return kernels.background ? kernels.background->wait() : 0;
}

NativeKernels compileKernels(const std::vector<KernelRequest>& allRequests, const CompileOptions& options) {
  auto start = Clock::now();
  NativeKernels out;
  out.jit = std::make_shared<Jit>();
  const std::vector<size_t> first = firstOfSameCode(allRequests);
  std::vector<KernelRequest> requests;  // the distinct ones
  for (size_t i = 0; i < allRequests.size(); ++i)
    if (first[i] == i) requests.push_back(allRequests[i]);
  out.sharedKernels = static_cast<int>(allRequests.size() - requests.size());
  // A dump shows the optimized code, in one module.
  const CompileTier tier = options.dumpDir.empty() ? options.tier : CompileTier::Optimized;
  out.tier = tier;
  // The kernels go into one module per thread (request i into module i mod parts),
  // emitted, optimized and compiled side by side; a dump writes one module with all.
  const size_t parts = options.dumpDir.empty()
                           ? std::min(requests.size(), static_cast<size_t>(std::max(threadCount(), 1)))
                           : std::min<size_t>(requests.size(), 1);
  std::optional<DiskCache> cache;
  if (!options.cacheDir.empty() && options.dumpDir.empty()) cache.emplace(options.cacheDir);
  std::vector<Part> built(parts);
  std::vector<std::exception_ptr> failures(parts);
  runParts(static_cast<int64_t>(parts), [&](int64_t index) {
    Part& part = built[static_cast<size_t>(index)];
    part.index = static_cast<size_t>(index);
    try {
      llvm::LLVMContext context;
      llvm::Module module("kiln_kernels_" + std::to_string(index), context);
      emitPart(requests, parts, *out.jit, module, part);
      for (Kernel& k : part.kernels) k.code = std::make_shared<KernelCode>();
      if (part.names.empty()) return;
      // Only optimized code is kept on disk, under the key of its IR as emitted.
      std::string key;
      if (cache) {
        key = out.jit->cacheKey(module);
        if (std::optional<std::string> bytes = cache->load(key)) {
          part.object = Jit::objectOf(*bytes);
          part.cached = true;
          return;
        }
      }
      part.fast = tier != CompileTier::Optimized;
      if (part.fast) {
        // Other names than the optimized code's, which may join it in the session later.
        for (std::string& name : part.names) {
          module.getFunction(name)->setName(name + "_fast");
          name += "_fast";
        }
      }
      part.object = out.jit->compile(module, options.dumpDir, part.fast);
      if (cache && !part.fast) cache->store(key, bytesOf(part.object));
    } catch (...) {
      failures[static_cast<size_t>(index)] = std::current_exception();
    }
  });
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  std::vector<Jit::Object> objects;
  std::vector<std::string> names, objectBytes;
  for (Part& part : built) {
    out.emitSeconds += part.emitSeconds;
    out.optimizeSeconds += part.object.optimizeSeconds;
    out.codegenSeconds += part.object.codegenSeconds;
    out.cachedModules += part.cached ? 1 : 0;
    objectBytes.push_back(part.object.bytes ? bytesOf(part.object) : "");
    if (part.object.bytes) objects.push_back(std::move(part.object));
    names.insert(names.end(), part.names.begin(), part.names.end());
  }
  const std::vector<void*> addresses = names.empty() ? std::vector<void*>{} : out.jit->load(std::move(objects), names);
  size_t next = 0;
  std::unordered_map<const Op*, std::string> reasons;
  for (const Part& part : built) {
    install(part,
            std::vector<void*>(addresses.begin() + static_cast<ptrdiff_t>(next),
                               addresses.begin() + static_cast<ptrdiff_t>(next + part.names.size())),
            std::move(objectBytes[part.index]), *out.code);
    next += part.names.size();
    for (size_t k = 0; k < part.kernels.size(); ++k) out.kernels[requests[part.compiled[k]].op] = part.kernels[k];
    for (const auto& [i, reason] : part.declined) reasons[requests[i].op] = reason;
  }
  // The requests that repeat another's code share its kernel, or its reason to decline.
  for (size_t i = 0; i < allRequests.size(); ++i) {
    const Op* op = allRequests[i].op;
    const Op* same = allRequests[first[i]].op;
    if (auto it = reasons.find(same); it != reasons.end()) out.declined.emplace_back(op, it->second);
    else if (op != same) out.kernels[op] = out.kernels.at(same);
  }
  out.threads = static_cast<int>(parts);
  std::vector<Part> fast;
  for (Part& part : built)
    if (part.fast) fast.push_back(std::move(part));
  if (tier == CompileTier::Tiered && !fast.empty())
    out.background = std::make_shared<BackgroundCompile>(out.jit, out.code, std::move(requests), parts,
                                                         std::move(fast), cache ? options.cacheDir : "");
  out.seconds = since(start);
  return out;
}

}  // namespace kiln::cpu
