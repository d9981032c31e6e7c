// The compile options a PJRT client sends, as jaxlib 0.10.2 serializes them
// (tests/runtime/compile_options/*.pb, written by jaxlib's CompileOptions().SerializeAsString()
// with the settings each name says), read by kiln's wire-format reader; and bytes that are
// not such a message, refused with a message.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "runtime/compile_options_proto.h"
#include "support/error.h"

namespace kiln::runtime::proto {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/runtime/compile_options/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string errorOf(const std::string& bytes) {
  try {
    readCompileOptions(bytes);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(PjrtCompileOptionsTest, ReadsWhatJaxlibWrites) {
  const CompileOptions plain = readCompileOptions(fixture("default.pb"));
  EXPECT_EQ(plain.replicas, 1);
  EXPECT_EQ(plain.partitions, 1);
  EXPECT_FALSE(plain.spmd);
  EXPECT_FALSE(plain.portable);
  EXPECT_TRUE(plain.devices.empty());
  EXPECT_TRUE(plain.overrides.empty());

  const CompileOptions swapped = readCompileOptions(fixture("two_replicas_swapped.pb"));
  EXPECT_EQ(swapped.replicas, 2);
  EXPECT_EQ(swapped.devices, (std::vector<int32_t>{1, 0}));

  EXPECT_TRUE(readCompileOptions(fixture("portable.pb")).portable);

  // Device (replica r, partition p) = the assignment's row r, column p.
  const CompileOptions spmd = readCompileOptions(fixture("spmd_2x3_overrides.pb"));
  EXPECT_EQ(spmd.replicas, 2);
  EXPECT_EQ(spmd.partitions, 3);
  EXPECT_TRUE(spmd.spmd);
  EXPECT_TRUE(spmd.portable);
  EXPECT_EQ(spmd.devices, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  std::map<std::string, std::string> overrides(spmd.overrides.begin(), spmd.overrides.end());
  EXPECT_EQ(overrides, (std::map<std::string, std::string>{
                           {"xla_cpu_enable_fast_math", "true"}, {"some_int", "7"}, {"some_str", "abc"}}));
}

TEST(PjrtCompileOptionsTest, DeviceAssignmentsRoundTrip) {
  // Written as the build options' field 9 of a CompileOptionsProto's field 3.
  const std::string assignment = writeDeviceAssignment(2, 3, {5, 4, 3, 2, 1, 0});
  std::string build = std::string("\x20\x02\x28\x03\x4a", 5) + static_cast<char>(assignment.size()) + assignment;
  std::string options = std::string("\x1a", 1) + static_cast<char>(build.size()) + build;
  const CompileOptions read = readCompileOptions(options);
  EXPECT_EQ(read.devices, (std::vector<int32_t>{5, 4, 3, 2, 1, 0}));
}

TEST(PjrtCompileOptionsTest, MalformedBytesAreErrors) {
  const std::string good = fixture("two_replicas_swapped.pb");
  for (size_t cut : {size_t{1}, good.size() / 2, good.size() - 1})
    EXPECT_NE(errorOf(good.substr(0, cut)).find("is not a serialized xla.CompileOptionsProto"), std::string::npos)
        << "cut at " << cut << ": " << errorOf(good.substr(0, cut));
  EXPECT_NE(errorOf(std::string("\x0f", 1)).find("wire type 7"), std::string::npos);
  EXPECT_NE(errorOf(std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12)).find("longer than 10 bytes"),
            std::string::npos);
  // Replicas the assignment does not match.
  std::string assignment = writeDeviceAssignment(2, 1, {0, 1});
  std::string build = std::string("\x20\x03\x4a", 3) + static_cast<char>(assignment.size()) + assignment;
  std::string options = std::string("\x1a", 1) + static_cast<char>(build.size()) + build;
  EXPECT_NE(errorOf(options).find("the device assignment is 2 replicas x 1 partitions, the build options say 3 x 1"),
            std::string::npos)
      << errorOf(options);
}

TEST(PjrtCompileOptionsTest, WhatKilnsClientWritesReadsBack) {
  CompileOptions options;
  options.replicas = 2;
  options.partitions = 3;
  options.spmd = true;
  options.devices = {5, 4, 3, 2, 1, 0};
  options.overrides = {{"kiln.entry", "square"}, {"probe_dir", "/tmp/x y"}};
  const CompileOptions read = readCompileOptions(writeCompileOptions(options));
  EXPECT_EQ(read.replicas, 2);
  EXPECT_EQ(read.partitions, 3);
  EXPECT_TRUE(read.spmd);
  EXPECT_FALSE(read.portable);
  EXPECT_EQ(read.devices, options.devices);
  EXPECT_EQ(read.overrides, options.overrides);
  CompileOptions portable;
  portable.portable = true;
  const CompileOptions back = readCompileOptions(writeCompileOptions(portable));
  EXPECT_TRUE(back.portable);
  EXPECT_EQ(back.replicas, 1);
  EXPECT_TRUE(back.devices.empty());
}

}  // namespace
}  // namespace kiln::runtime::proto
