// The protobuf wire format (varints, length-delimited fields, fixed32/64) and the fields
// of xla.CompileOptionsProto kiln reads. Field numbers, checked against the bytes jaxlib
// 0.10.2 serializes (tests/runtime/pjrt_compile_options_test.cc):
//   CompileOptionsProto: 3 executable_build_options, 4 compile_portable_executable,
//     7 env_option_overrides (map entries: 1 key, 2 OptionOverrideProto);
//   OptionOverrideProto: 1 string_field, 2 bool_field, 3 int_field, 4 double_field;
//   ExecutableBuildOptionsProto: 4 num_replicas, 5 num_partitions,
//     6 use_spmd_partitioning, 9 device_assignment;
//   DeviceAssignmentProto: 1 replica_count, 2 computation_count, 3 computation_devices,
//     each: 1 replica_device_ids (packed), the device of each replica of one computation.
#include "runtime/compile_options_proto.h"

#include <cstdio>
#include <cstring>

#include "runtime/proto_writer.h"
#include "support/error.h"

namespace kiln::runtime::proto {

namespace {

[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorKind::Usage, message); }

// One field of a message: its number, and its value (a varint, a fixed-width value's
// bits, or the bytes of a length-delimited field).
struct Field {
  uint32_t number = 0;
  int wireType = 0;
  uint64_t varint = 0;
  uint64_t fixed = 0;
  std::string_view bytes;
};

class WireReader {
 public:
  WireReader(std::string_view data, const char* message) : data_(data), message_(message) {}
  bool done() const { return at_ == data_.size(); }

  Field next() {
    Field f;
    const uint64_t key = varint();
    f.number = static_cast<uint32_t>(key >> 3);
    f.wireType = static_cast<int>(key & 7);
    if (f.number == 0) fail("field number 0");
    switch (f.wireType) {
      case 0: f.varint = varint(); break;
      case 1: f.fixed = fixed(8); break;
      case 2: {
        const uint64_t size = varint();
        if (size > data_.size() - at_) fail("a field runs past the end");
        f.bytes = data_.substr(at_, size);
        at_ += size;
        break;
      }
      case 5: f.fixed = fixed(4); break;
      default: fail("wire type " + std::to_string(f.wireType) + " (groups or none)");
    }
    return f;
  }

  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ == data_.size()) fail("a varint runs past the end");
      const auto byte = static_cast<uint8_t>(data_[at_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    fail("a varint longer than 10 bytes");
  }

 private:
  uint64_t fixed(size_t n) {  // little-endian
    if (n > data_.size() - at_) fail("a field runs past the end");
    uint64_t bits = 0;
    std::memcpy(&bits, data_.data() + at_, n);
    at_ += n;
    return bits;
  }
  [[noreturn]] void fail(const std::string& why) const {
    invalid(std::string("compile_options is not a serialized xla.CompileOptionsProto: in ") + message_ + ", " + why);
  }

  std::string_view data_;
  size_t at_ = 0;
  const char* message_;
};

void requireWire(const Field& f, int wireType, const char* name) {
  if (f.wireType != wireType)
    invalid(std::string("compile_options: ") + name + " has wire type " + std::to_string(f.wireType));
}

int32_t count(uint64_t value, const char* name) {
  if (value < 1 || value > 1 << 20) invalid(std::string("compile_options: ") + name + " is " + std::to_string(value));
  return static_cast<int32_t>(value);
}

// A packed (or, as protobuf allows, unpacked) repeated int64.
void readInts(const Field& f, std::vector<int64_t>& out) {
  if (f.wireType == 0) return out.push_back(static_cast<int64_t>(f.varint));
  requireWire(f, 2, "replica_device_ids");
  WireReader packed(f.bytes, "replica_device_ids");
  while (!packed.done()) out.push_back(static_cast<int64_t>(packed.varint()));
}

std::vector<int32_t> readDeviceAssignment(std::string_view bytes, int32_t& replicas, int32_t& partitions) {
  WireReader r(bytes, "DeviceAssignmentProto");
  std::vector<std::vector<int64_t>> computations;  // [partition][replica]
  int32_t replicaCount = 0, computationCount = 0;
  while (!r.done()) {
    const Field f = r.next();
    if (f.number == 1 && f.wireType == 0) replicaCount = count(f.varint, "replica_count");
    else if (f.number == 2 && f.wireType == 0) computationCount = count(f.varint, "computation_count");
    else if (f.number == 3 && f.wireType == 2) {
      WireReader c(f.bytes, "ComputationDevice");
      std::vector<int64_t> ids;
      while (!c.done()) {
        const Field id = c.next();
        if (id.number == 1) readInts(id, ids);
      }
      computations.push_back(std::move(ids));
    }
  }
  if (static_cast<int32_t>(computations.size()) != computationCount)
    invalid("compile_options: the device assignment lists " + std::to_string(computations.size()) +
            " computations but computation_count is " + std::to_string(computationCount));
  const size_t replicasN = static_cast<size_t>(replicaCount), partitionsN = static_cast<size_t>(computationCount);
  // Every id listed before anything is allocated for them (the counts come from the bytes).
  for (size_t p = 0; p < partitionsN; ++p)
    if (computations[p].size() != replicasN)
      invalid("compile_options: computation " + std::to_string(p) + " of the device assignment has " +
              std::to_string(computations[p].size()) + " devices for " + std::to_string(replicaCount) + " replicas");
  std::vector<int32_t> devices(replicasN * partitionsN);
  for (size_t p = 0; p < partitionsN; ++p)
    for (size_t rep = 0; rep < replicasN; ++rep) {
      const int64_t id = computations[p][rep];
      if (id < 0 || id > INT32_MAX) invalid("compile_options: device id " + std::to_string(id));
      devices[rep * partitionsN + p] = static_cast<int32_t>(id);
    }
  replicas = replicaCount;
  partitions = computationCount;
  return devices;
}

std::string overrideValue(std::string_view bytes) {
  WireReader r(bytes, "OptionOverrideProto");
  std::string value;
  while (!r.done()) {
    const Field f = r.next();
    if (f.number == 1 && f.wireType == 2) value = std::string(f.bytes);
    else if (f.number == 2 && f.wireType == 0) value = f.varint ? "true" : "false";
    else if (f.number == 3 && f.wireType == 0) value = std::to_string(static_cast<int64_t>(f.varint));
    else if (f.number == 4 && f.wireType == 1) {
      double d;
      std::memcpy(&d, &f.fixed, sizeof d);
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", d);  // every digit: to_string keeps six decimals
      value = text;
    }
  }
  return value;
}

}  // namespace

CompileOptions readCompileOptions(std::string_view bytes) {
  CompileOptions options;
  WireReader r(bytes, "CompileOptionsProto");
  while (!r.done()) {
    const Field f = r.next();
    if (f.number == 3) {
      requireWire(f, 2, "executable_build_options");
      WireReader b(f.bytes, "ExecutableBuildOptionsProto");
      std::vector<int32_t> devices;
      int32_t daReplicas = 0, daPartitions = 0;
      while (!b.done()) {
        const Field g = b.next();
        if (g.number == 4 && g.wireType == 0) options.replicas = count(g.varint, "num_replicas");
        else if (g.number == 5 && g.wireType == 0) options.partitions = count(g.varint, "num_partitions");
        else if (g.number == 6 && g.wireType == 0) options.spmd = g.varint != 0;
        else if (g.number == 9 && g.wireType == 2) devices = readDeviceAssignment(g.bytes, daReplicas, daPartitions);
      }
      if (!devices.empty() && (daReplicas != options.replicas || daPartitions != options.partitions))
        invalid("compile_options: the device assignment is " + std::to_string(daReplicas) + " replicas x " +
                std::to_string(daPartitions) + " partitions, the build options say " +
                std::to_string(options.replicas) + " x " + std::to_string(options.partitions));
      options.devices = std::move(devices);
    } else if (f.number == 4 && f.wireType == 0) {
      options.portable = f.varint != 0;
    } else if (f.number == 7) {
      requireWire(f, 2, "env_option_overrides");
      WireReader entry(f.bytes, "env_option_overrides");
      std::string key, value;
      while (!entry.done()) {
        const Field e = entry.next();
        if (e.number == 1 && e.wireType == 2) key = std::string(e.bytes);
        else if (e.number == 2 && e.wireType == 2) value = overrideValue(e.bytes);
      }
      options.overrides.emplace_back(std::move(key), std::move(value));
    }
  }
  return options;
}


std::string writeCompileOptions(const CompileOptions& options) {
  std::string build;
  putNumber(build, 4, static_cast<uint64_t>(options.replicas));
  putNumber(build, 5, static_cast<uint64_t>(options.partitions));
  if (options.spmd) putNumber(build, 6, 1);
  if (!options.devices.empty())
    putBytes(build, 9, writeDeviceAssignment(options.replicas, options.partitions, options.devices));
  std::string out;
  putBytes(out, 3, build);
  if (options.portable) putNumber(out, 4, 1);
  for (const auto& [name, value] : options.overrides) {
    std::string override, entry;
    putBytes(override, 1, value);
    putBytes(entry, 1, name);
    putBytes(entry, 2, override);
    putBytes(out, 7, entry);
  }
  return out;
}

std::string writeDeviceAssignment(int32_t replicas, int32_t partitions, const std::vector<int32_t>& devices) {
  std::string out;
  putNumber(out, 1, static_cast<uint64_t>(replicas));
  putNumber(out, 2, static_cast<uint64_t>(partitions));
  for (int32_t p = 0; p < partitions; ++p) {
    std::string ids;
    for (int32_t r = 0; r < replicas; ++r) putVarint(ids, static_cast<uint64_t>(devices[static_cast<size_t>(r * partitions + p)]));
    std::string computation;
    putBytes(computation, 1, ids);
    putBytes(out, 3, computation);
  }
  return out;
}

}  // namespace kiln::runtime::proto
