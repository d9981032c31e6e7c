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
  void keep(const Op& op, size_t result, const Literal& buffer) const {
    constexpr size_t kPerResult = 4;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Literal>& kept = kept_[{&op, result}];
    if (kept.size() < kPerResult) kept.push_back(buffer);
  }

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::pair<const Op*, size_t>, std::vector<Literal>> kept_;
};

}  // namespace kiln::cpu
