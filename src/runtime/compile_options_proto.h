// The compile options a PJRT client sends, a serialized xla.CompileOptionsProto: what
// kiln's plugins read of it, and what kiln's client writes. The schemas are not packaged
// for C++ here (no protobuf compiler or XLA sources), so a small reader of protobuf's wire
// format picks the fields kiln uses by their numbers and skips every other field, as
// protobuf readers do; the writer writes only those fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::runtime::proto {

struct CompileOptions {
  int32_t replicas = 1, partitions = 1;
  bool spmd = false;      // use_spmd_partitioning
  bool portable = false;  // compile_portable_executable: runs on the device execute names
  // The device of process (replica r, partition p) at r * partitions + p; empty: none given.
  std::vector<int32_t> devices;
  // env_option_overrides: each value as text (a bool as true/false).
  std::vector<std::pair<std::string, std::string>> overrides;
};

// Throws a Usage error for bytes that are not a CompileOptionsProto (a
// field cut short, a wire type protobuf does not have, counts that disagree).
CompileOptions readCompileOptions(std::string_view bytes);

// A CompileOptionsProto of `options` (its overrides as string fields).
std::string writeCompileOptions(const CompileOptions& options);

// A DeviceAssignmentProto of `devices` (process (r, p) at r * partitions + p).
std::string writeDeviceAssignment(int32_t replicas, int32_t partitions, const std::vector<int32_t>& devices);

}  // namespace kiln::runtime::proto
