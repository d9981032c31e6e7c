// checkMemoryLimit (memory_limit.h).
#include "passes/memory_limit.h"

#include <cstdlib>

#include "passes/buffer_assignment.h"
#include "support/byte_size.h"
#include "support/error.h"

namespace kiln::passes {
namespace {

// Where `op` came from in the source: its own position, or for a fusion the optimizer
// made, that of the op whose value it yields (its root).
SourcePos sourcePosOf(const Op* op) {
  while (op && !op->pos.known() && op->numRegions() == 1 && op->region(0).terminator() &&
         op->region(0).terminator()->numOperands() > 0)
    op = op->region(0).terminator()->operand(0)->definingOp();
  return op ? op->pos : SourcePos{};
}

// "512.00 MiB tensor<...> from stablehlo.dot_general (line 12)".
std::string describe(const BufferedValue& v) {
  std::string out = formatBytes(v.bytes) + " " + v.value->type().str() + " from " + v.producer;
  if (SourcePos pos = sourcePosOf(v.value->definingOp()); pos.known()) out += " (line " + std::to_string(pos.line) + ")";
  return out;
}

// The op at body position `position`, or null (the parameters' position, -1).
const Op* opAt(const Function& fn, int64_t position) {
  int64_t i = 0;
  for (const auto& op : fn.body().ops())
    if (i++ == position) return op.get();
  return nullptr;
}

}  // namespace

void checkMemoryLimit(const Module& module, int64_t limitBytes) {
  if (limitBytes <= 0) return;
  for (const auto& fn : module.functions()) {
    const BufferAssignment a = assignBuffers(*fn);
    if (a.peakLiveBytes <= limitBytes) continue;
    std::string largest;
    size_t shown = 0;
    for (size_t i : a.liveAtPeak()) {
      if (shown++ == 3) break;
      largest += (largest.empty() ? "" : "; ") + describe(a.values[i]);
    }
    Error e(ErrorKind::ResourceExhausted,
            "resource exhausted: @" + fn->name() + " needs " + formatBytes(a.peakLiveBytes) +
                " of buffers at its peak, over the memory limit of " + formatBytes(limitBytes) +
                " (--memory-limit, KILN_MEMORY_LIMIT); the largest live there: " + largest);
    if (SourcePos pos = sourcePosOf(opAt(*fn, a.peakPosition)); pos.known()) e.at(module.source, pos);
    throw e;
  }
}

int64_t memoryLimitFromEnvironment() {
  const char* text = std::getenv("KILN_MEMORY_LIMIT");
  return text && *text ? parseByteSize(text, "KILN_MEMORY_LIMIT") : 0;
}

}  // namespace kiln::passes
