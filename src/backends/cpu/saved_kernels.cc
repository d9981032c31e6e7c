// Kernels as a serialized executable keeps them (native_kernels.h: saveKernels,
// loadKernels): the loaded objects, each distinct code's symbols, and per request its
// kernel's shape of work or why it was declined. Loading puts the objects into a JIT
// session of its own and looks the symbols up: no LLVM IR is emitted or compiled.
#include <unordered_map>

#include "backends/cpu/jit.h"
#include "backends/cpu/native_kernels.h"
#include "support/error.h"

namespace kiln::cpu {

SavedKernels saveKernels(const NativeKernels& compiled, const std::vector<KernelRequest>& requests) {
  SavedKernels saved;
  std::unordered_map<const Op*, std::string> reasons;
  for (const auto& [op, reason] : compiled.declined) reasons.emplace(op, reason);
  std::unordered_map<const KernelCode*, size_t> codes;
  std::lock_guard<std::mutex> lock(compiled.code->mutex);
  saved.objects = compiled.code->objects;
  for (const KernelRequest& r : requests) {
    SavedKernel s;
    if (auto it = compiled.kernels.find(r.op); it != compiled.kernels.end()) {
      s.kernel = it->second;
      s.kernel.code = nullptr;
      auto [code, added] = codes.try_emplace(it->second.code.get(), saved.symbols.size());
      if (added) saved.symbols.emplace_back(it->second.code->fnSymbol, it->second.code->combineSymbol);
      s.code = code->second;
    } else {
      s.declined = true;
      auto reason = reasons.find(r.op);
      if (reason == reasons.end())
        throw Error(ErrorKind::Internal, "serializing: " + describeOp(*r.op) + " has neither a kernel nor a reason");
      s.reason = reason->second;
    }
    saved.kernels.push_back(std::move(s));
  }
  return saved;
}

NativeKernels loadKernels(const SavedKernels& saved, const std::vector<KernelRequest>& requests) {
  auto damaged = [] { return Error(ErrorKind::Io, "serialized executable: its kernels do not fit its program"); };
  if (saved.kernels.size() != requests.size()) throw damaged();
  NativeKernels out;
  out.deserialized = true;
  out.jit = std::make_shared<Jit>();
  std::vector<Jit::Object> objects;
  for (const std::string& bytes : saved.objects)
    if (!bytes.empty()) objects.push_back(Jit::objectOf(bytes));
  std::vector<std::string> names;
  for (const auto& [fn, combine] : saved.symbols) {
    if (fn.empty()) throw damaged();
    names.push_back(fn);
    if (!combine.empty()) names.push_back(combine);
  }
  const std::vector<void*> addresses = names.empty() ? std::vector<void*>{} : out.jit->load(std::move(objects), names);
  std::vector<std::shared_ptr<KernelCode>> codes;
  size_t next = 0;
  for (const auto& [fn, combine] : saved.symbols) {
    auto code = std::make_shared<KernelCode>();
    code->fnSymbol = fn;
    code->fn.store(reinterpret_cast<KernelFn>(addresses[next++]), std::memory_order_relaxed);
    if (!combine.empty()) {
      code->combineSymbol = combine;
      code->combine.store(reinterpret_cast<KernelFn>(addresses[next++]), std::memory_order_relaxed);
    }
    codes.push_back(std::move(code));
  }
  out.code->objects = saved.objects;
  for (size_t i = 0; i < requests.size(); ++i) {
    const SavedKernel& s = saved.kernels[i];
    if (s.declined) {
      out.declined.emplace_back(requests[i].op, s.reason);
      continue;
    }
    if (s.code >= codes.size() || (s.kernel.twoPhase() && !codes[s.code]->combine.load())) throw damaged();
    Kernel k = s.kernel;
    k.code = codes[s.code];
    out.kernels.emplace(requests[i].op, std::move(k));
  }
  return out;
}

}  // namespace kiln::cpu
