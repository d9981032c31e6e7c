// The serialized form of an executable (serialized_executable.h).
#include "runtime/serialized_executable.h"

namespace kiln::runtime {

namespace {

constexpr std::string_view kSerialMagic = "kiln executable 3\n";

// FNV-1a, 64 bits.
uint64_t checksum(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

std::string serializeExecutable(const Placement& where, const std::string& program) {
  std::string line = std::string(kSerialMagic) + std::to_string(where.replicas) + " " +
                     std::to_string(where.partitions) + " " + std::to_string(where.devices.size());
  for (int32_t id : where.devices) line += " " + std::to_string(id);
  line += " @" + where.entry + "\nentries";
  for (const std::string& name : where.entries) line += " " + name;
  return line + "\n" + std::to_string(program.size()) + " " + std::to_string(checksum(program)) + "\n" + program;
}

Placement deserializePlacement(std::string_view& bytes) {
  auto damaged = [] { throw ApiFailure(FailureCode::Io, "not a serialized kiln executable, or a damaged one"); };
  if (!bytes.starts_with(kSerialMagic)) damaged();
  bytes.remove_prefix(kSerialMagic.size());
  size_t end = bytes.find('\n');
  if (end == std::string_view::npos) damaged();
  std::string line(bytes.substr(0, end));
  bytes.remove_prefix(end + 1);
  Placement where;
  size_t at = 0;
  auto number = [&]() -> int64_t {
    size_t used = 0;
    int64_t n = 0;
    try {
      n = std::stoll(line.substr(at), &used);
    } catch (...) {
      damaged();
    }
    at += used;
    if (n < 0 || n > (int64_t{1} << 20)) damaged();
    return n;
  };
  where.replicas = static_cast<int32_t>(number());
  where.partitions = static_cast<int32_t>(number());
  for (int64_t i = 0, n = number(); i < n; ++i) where.devices.push_back(static_cast<int32_t>(number()));
  if (line.compare(at, 2, " @") != 0 || where.replicas < 1 || where.partitions < 1) damaged();
  where.entry = line.substr(at + 2);
  end = bytes.find('\n');
  if (end == std::string_view::npos || !bytes.starts_with("entries")) damaged();
  std::string entries(bytes.substr(7, end - 7));
  bytes.remove_prefix(end + 1);
  for (size_t from = 0; from < entries.size();) {
    if (entries[from] != ' ') damaged();
    size_t to = entries.find(' ', from + 1);
    if (to == std::string::npos) to = entries.size();
    where.entries.push_back(entries.substr(from + 1, to - from - 1));
    from = to;
  }
  if (!where.entries.empty() && where.entries.size() != static_cast<size_t>(where.processes())) damaged();
  end = bytes.find('\n');
  if (end == std::string_view::npos) damaged();
  std::string sizes(bytes.substr(0, end));
  bytes.remove_prefix(end + 1);
  const std::string expected = std::to_string(bytes.size()) + " " + std::to_string(checksum(bytes));
  if (sizes != expected) damaged();
  return where;
}

}  // namespace kiln::runtime
