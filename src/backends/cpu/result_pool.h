// Result buffers kept for reuse: an op result's storage, once nobody else holds it,
// serves the next execution of that op (fresh pages cost as much as the kernel itself
// on this machine). A few per op and result, so concurrent executions each find one.
#pragma once

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "ir/module.h"

namespace kiln::cpu {

class ResultPool {
 public:
  // A buffer for result `result` of `op`: a kept one that is free again, or a new one.
  Literal take(const Op& op, size_t result) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::vector<Literal>& kept = kept_[{&op, result}];
      for (auto it = kept.begin(); it != kept.end(); ++it) {
        if (!it->ownsStorageAlone()) continue;  // an earlier result still in use
        Literal buffer = std::move(*it);
        kept.erase(it);
        return buffer;
      }
    }
    return Literal(op.result(result)->type());
  }
  // Remembers `buffer` (which the caller goes on to hand out) for a later execution.
  // `maybeKept`: the buffer may be one the pool keeps already (a donated argument's,
  // written in place), which it then does not keep twice.
  void keep(const Op& op, size_t result, const Literal& buffer, bool maybeKept = false) const {
    constexpr size_t kPerResult = 4;
    std::lock_guard<std::mutex> lock(mutex_);
    if (maybeKept && countLocked(buffer.storage()) > 0) return;
    std::vector<Literal>& kept = kept_[{&op, result}];
    if (kept.size() < kPerResult) kept.push_back(buffer);
  }
  // How many of the buffers it keeps have this storage (0 or 1, as keep() goes).
  long count(const uint8_t* storage) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return countLocked(storage);
  }

 private:
  long countLocked(const uint8_t* storage) const {
    long n = 0;
    for (const auto& [key, kept] : kept_)
      for (const Literal& buffer : kept) n += buffer.storage() == storage;
    return n;
  }

  mutable std::mutex mutex_;
  mutable std::map<std::pair<const Op*, size_t>, std::vector<Literal>> kept_;
};

}  // namespace kiln::cpu
