// compileKernels (native_kernels.h): the requests' kernels, each distinct piece of code
// once, emitted into one LLVM module per thread, each optimized and compiled to an
// object on its own thread (jit.h) or taken from the disk cache (disk_cache.h), then
// loaded together; what the emitter declines is reported in request order.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <optional>
#include <unordered_map>

#include "backends/cpu/disk_cache.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/threads.h"
#include "ir/fingerprint.h"

namespace kiln::cpu {

// A kernel's symbol: its number, then its op and line, so that dumps and profiles say
// what each one computes ("kernel3_fusion_input_line12").
std::string kernelName(size_t index, const Op& op) {
  std::string name = "kernel" + std::to_string(index) + "_";
  std::string opName(op.name());
  if (op.is(OpCode::Fusion)) opName += "_" + op.attr("kind").asString();
  for (char c : opName.substr(opName.find('.') + 1))
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (SourcePos pos = sourceLine(op); pos.known()) name += "_line" + std::to_string(pos.line);
  return name;
}

namespace {

// For each request, the first request whose op is the same piece of code (the same
// structure and types up to names and locations, the same values precomputed): the
// emitter's output depends on nothing else, so such kernels are compiled once. A
// transformer's identical layers are the common case.
std::vector<size_t> firstOfSameCode(const std::vector<KernelRequest>& requests) {
  std::vector<size_t> first(requests.size());
  std::unordered_map<Fingerprint, size_t, FingerprintHash> seen;
  for (size_t i = 0; i < requests.size(); ++i) {
    std::optional<Fingerprint> code = codeFingerprint(*requests[i].op, requests[i].precomputed);
    first[i] = code ? seen.try_emplace(*code, i).first->second : i;
  }
  return first;
}

}  // namespace

NativeKernels compileKernels(const std::vector<KernelRequest>& allRequests,
                             const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  NativeKernels out;
  out.jit = std::make_shared<Jit>();
  const std::vector<size_t> first = firstOfSameCode(allRequests);
  std::vector<KernelRequest> requests;  // the distinct ones
  for (size_t i = 0; i < allRequests.size(); ++i)
    if (first[i] == i) requests.push_back(allRequests[i]);
  out.sharedKernels = static_cast<int>(allRequests.size() - requests.size());
  // The kernels go into one module per thread (request i into module i mod parts),
  // emitted, optimized and compiled side by side; a dump writes one module with all.
  const size_t parts = options.dumpDir.empty()
                           ? std::min(requests.size(), static_cast<size_t>(std::max(threadCount(), 1)))
                           : std::min<size_t>(requests.size(), 1);
  struct Part {
    std::vector<size_t> compiled;  // request numbers
    std::vector<std::string> names;
    std::vector<Kernel> kernels;
    std::vector<std::pair<size_t, std::string>> declined;
    Jit::Object object;
    double emitSeconds = 0;
    bool cached = false;  // the object came from the disk cache
  };
  std::optional<DiskCache> cache;
  if (!options.cacheDir.empty() && options.dumpDir.empty()) cache.emplace(options.cacheDir);
  std::vector<Part> built(parts);
  std::vector<std::exception_ptr> failures(parts);
  runParts(static_cast<int64_t>(parts), [&](int64_t index) {
    Part& part = built[static_cast<size_t>(index)];
    try {
      auto emitStart = std::chrono::steady_clock::now();
      llvm::LLVMContext context;
      llvm::Module module("kiln_kernels_" + std::to_string(index), context);
      out.jit->prepare(module);
      for (size_t i = static_cast<size_t>(index); i < requests.size(); i += parts) {
        std::string name = kernelName(i, *requests[i].op);
        try {
          part.kernels.push_back(KernelEmitter(module, requests[i], name).emit());
          part.names.push_back(name);
          if (part.kernels.back().twoPhase()) part.names.push_back(name + "_combine");
          part.compiled.push_back(i);
        } catch (const Declined& d) {
          // Drop the half-built functions; the op stays with the interpreter.
          for (const std::string& n : {name, name + "_combine"})
            if (llvm::Function* f = module.getFunction(n)) f->eraseFromParent();
          part.declined.emplace_back(i, d.reason);
        }
      }
      part.emitSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - emitStart).count();
      if (!part.names.empty()) {
        if (!cache) {
          part.object = out.jit->compile(module, options.dumpDir);
        } else {
          const std::string key = out.jit->cacheKey(module);
          if (std::optional<std::string> bytes = cache->load(key)) {
            part.object = Jit::objectOf(*bytes);
            part.cached = true;
          } else {
            part.object = out.jit->compile(module, options.dumpDir);
            const llvm::StringRef code = part.object.bytes->getBuffer();
            cache->store(key, std::string_view(code.data(), code.size()));
          }
        }
      }
    } catch (...) {
      failures[static_cast<size_t>(index)] = std::current_exception();
    }
  });
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  std::vector<Jit::Object> objects;
  std::vector<std::string> names;
  std::vector<std::pair<size_t, std::string>> declined;
  for (Part& part : built) {
    out.emitSeconds += part.emitSeconds;
    out.optimizeSeconds += part.object.optimizeSeconds;
    out.codegenSeconds += part.object.codegenSeconds;
    out.cachedModules += part.cached ? 1 : 0;
    if (part.object.bytes) objects.push_back(std::move(part.object));
    names.insert(names.end(), part.names.begin(), part.names.end());
    declined.insert(declined.end(), part.declined.begin(), part.declined.end());
  }
  std::vector<void*> addresses = names.empty() ? std::vector<void*>{} : out.jit->load(std::move(objects), names);
  size_t next = 0;
  for (Part& part : built)
    for (size_t k = 0; k < part.kernels.size(); ++k) {
      part.kernels[k].fn = reinterpret_cast<KernelFn>(addresses[next++]);
      if (part.kernels[k].twoPhase()) part.kernels[k].combine = reinterpret_cast<KernelFn>(addresses[next++]);
      out.kernels[requests[part.compiled[k]].op] = std::move(part.kernels[k]);
    }
  // The requests that repeat another's code share its kernel, or its reason to decline.
  std::unordered_map<const Op*, std::string> reasons;
  for (auto& [i, reason] : declined) reasons[requests[i].op] = std::move(reason);
  for (size_t i = 0; i < allRequests.size(); ++i) {
    const Op* op = allRequests[i].op;
    const Op* same = allRequests[first[i]].op;
    if (auto it = reasons.find(same); it != reasons.end()) out.declined.emplace_back(op, it->second);
    else if (op != same) out.kernels[op] = out.kernels.at(same);
  }
  out.threads = static_cast<int>(parts);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kiln::cpu
