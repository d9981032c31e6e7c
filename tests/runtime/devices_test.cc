// Devices and their memory: how many (KILN_CPU_DEVICES, or the client's option), what
// they say about themselves, buffers moved between them, and memory statistics that
// follow the buffers up and down.
#include <cstdlib>

#include "runtime_test_util.h"

namespace kiln::runtime::testing {
namespace {

class DevicesTest : public ::testing::TestWithParam<const char*> {
 protected:
  Plugin plugin_ = Plugin::load(GetParam());
};

TEST_P(DevicesTest, DevicesDescribeThemselves) {
  Client client(plugin_, ClientOptions{3, 0});
  std::vector<Device> devices = client.devices();
  ASSERT_EQ(devices.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(devices[i].id(), i);
    EXPECT_EQ(devices[i].kind(), GetParam());
    EXPECT_FALSE(devices[i].description().empty());
    EXPECT_GT(devices[i].memorySize(), 0);
  }
  Client limited(plugin_, ClientOptions{1, 1 << 20});
  EXPECT_EQ(limited.devices()[0].memorySize(), 1 << 20);
}

TEST_P(DevicesTest, MemoryStatisticsFollowBuffers) {
  Client client(plugin_, ClientOptions{2, 0});
  Device d0 = client.devices()[0], d1 = client.devices()[1];
  EXPECT_EQ(d0.memoryStats().bytesInUse, 0);
  std::optional<Buffer> a = client.bufferFromHost(f32({4}, {1, 2, 3, 4}), d0);
  std::optional<Buffer> b = client.bufferFromHost(ramp256(), d0);
  EXPECT_EQ(a->onDeviceSize(), 16);
  Device::MemoryStats stats = d0.memoryStats();
  EXPECT_EQ(stats.bytesInUse, 16 + 1024);
  EXPECT_EQ(stats.numBuffers, 2);
  // A copy counts on the device it went to.
  Buffer c = a->copyTo(d1);
  EXPECT_EQ(c.toLiteral(), f32({4}, {1, 2, 3, 4}));
  EXPECT_EQ(c.device().id(), 1);
  EXPECT_EQ(d1.memoryStats().bytesInUse, 16);
  b->remove();  // deleting frees at once, before the handle goes
  EXPECT_EQ(d0.memoryStats().bytesInUse, 16);
  a.reset();
  b.reset();
  stats = d0.memoryStats();
  EXPECT_EQ(stats.bytesInUse, 0);
  EXPECT_EQ(stats.numBuffers, 0);
  EXPECT_EQ(stats.peakBytesInUse, 16 + 1024);
  // Outputs of an execution count too.
  Executable exe = client.compile(kAddOne);
  Buffer x = client.bufferFromHost(f32({4}, {1, 2, 3, 4}), d0);
  Executable::Execution run = exe.execute({&x}, d0);
  run.done.await();
  EXPECT_EQ(d0.memoryStats().bytesInUse, 32);
  EXPECT_EQ(d0.memoryStats().numBuffers, 2);
}

TEST_P(DevicesTest, ADroppedArgumentIsFreedOnceRead) {
  Client client(plugin_);
  Device d = client.devices()[0];
  Executable exe = client.compile(kAddOne);
  std::optional<Buffer> x = client.bufferFromHost(f32({4}, {1, 2, 3, 4}), d);
  Executable::Execution run = exe.execute({&*x}, d);
  x.reset();  // the queued execution still reads it
  EXPECT_EQ(run.outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
  Device::MemoryStats stats = d.memoryStats();
  EXPECT_EQ(stats.bytesInUse, 16);  // the output alone
  EXPECT_EQ(stats.numBuffers, 1);
  EXPECT_EQ(stats.peakBytesInUse, 32);
}

// Deleting a buffer (as PJRT's Delete) refuses later uses at once, but the executions
// already queued still read it; its memory goes once they have.
TEST_P(DevicesTest, DeletingABufferLetsQueuedReadsRead) {
  Client client(plugin_);
  Device d = client.devices()[0];
  Executable slow = client.compile(kSlowProgram);
  Executable exe = client.compile(kAddOne);
  Buffer n = client.bufferFromHost(i64Scalar(slowIterations(client, slow, 0.2)), d);
  Buffer r = client.bufferFromHost(ramp256(), d);
  Executable::Execution busy = slow.execute({&n, &r}, d);  // holds the device's queue
  Buffer x = client.bufferFromHost(f32({4}, {1, 2, 3, 4}), d);
  Executable::Execution run = exe.execute({&x}, d);  // queued behind it
  x.remove();
  EXPECT_FALSE(run.done.ready());
  expectError([&] { exe.execute({&x}, d); }, ErrorKind::Usage, "the buffer was deleted");
  expectError([&] { x.toLiteral(); }, ErrorKind::Usage, "the buffer was deleted");
  EXPECT_EQ(run.outputs[0].toLiteral(), f32({4}, {2, 3, 4, 5}));
  busy.done.await();
  Device::MemoryStats stats = d.memoryStats();
  EXPECT_EQ(stats.numBuffers, 4);  // n, r, and the two outputs: x is gone
  EXPECT_EQ(stats.bytesInUse, 8 + 1024 + 1024 + 16);
}

TEST(CpuDevicesTest, KilnCpuDevicesSetsTheDefault) {
  Plugin cpu = Plugin::load("cpu");
  setenv("KILN_CPU_DEVICES", "3", 1);
  EXPECT_EQ(Client(cpu).devices().size(), 3u);
  EXPECT_EQ(Client(cpu, ClientOptions{2, 0}).devices().size(), 2u);  // the option wins
  setenv("KILN_CPU_DEVICES", "many", 1);
  EXPECT_THROW(Client{cpu}, Error);
  unsetenv("KILN_CPU_DEVICES");
  EXPECT_EQ(Client(cpu).devices().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Plugins, DevicesTest, ::testing::ValuesIn(kPlugins));

}  // namespace
}  // namespace kiln::runtime::testing
