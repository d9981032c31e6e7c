// The sharded programs of sharding_test.cc over MPI: run by `mpirun -np N mpi_tests`
// (ctest runs it with 2 and 4 ranks), each rank a process with one device of the mpi
// communicator. Every rank checks the gathered results against the same program run in
// its own process on one device: bit for bit (the inputs are small integers), and the
// training steps within rounding.
#include <gtest/gtest.h>

#include <random>

#include "runtime/sharded_program.h"
#include "runtime_test_util.h"
#include "sharding_programs.h"

namespace kiln::runtime {
namespace {

class MpiShardingTest : public ::testing::TestWithParam<const char*> {
 protected:
  Client mpiClient() const {
    ClientOptions options;
    options.communicator = Communicator::Mpi;
    options.collectiveTimeout = 120;  // a hung rank ends the job instead of the test timing out
    return Client(Plugin::load(GetParam()), options);
  }
  // The one-device results of `text`, in this process.
  std::vector<Literal> alone(const std::string& text, const std::vector<Literal>& args) const {
    Client local(Plugin::load(GetParam()), ClientOptions{1, 0});
    return runSharded(local, partitionProgram(replaceAll(text, "mhlo.sharding", "unused.sharding"), "alone"), args);
  }
};

TEST_P(MpiShardingTest, TheClientIsOneRank) {
  Client client = mpiClient();
  ASSERT_EQ(client.devices().size(), 1u);
  int rank = -1, size = 0;
  // The job's own view of itself, from the environment mpirun sets.
  if (const char* r = std::getenv("OMPI_COMM_WORLD_RANK")) rank = std::atoi(r);
  if (const char* n = std::getenv("OMPI_COMM_WORLD_SIZE")) size = std::atoi(n);
  if (size == 0) GTEST_SKIP() << "not started by Open MPI's mpirun";
  EXPECT_EQ(client.processIndex(), rank);
  EXPECT_EQ(client.numProcesses(), size);
  EXPECT_EQ(client.devices()[0].id(), rank);
  EXPECT_EQ(client.numAllDevices(), static_cast<size_t>(size));
}

TEST_P(MpiShardingTest, PartitionedRunsAgreeWithOneDevice) {
  Client client = mpiClient();
  const int n = client.numProcesses();
  for (const Case& c : cases()) {
    SCOPED_TRACE(std::string(c.name) + " over " + std::to_string(n) + " ranks");
    const std::string text = replaceAll(c.program, "N", std::to_string(n));
    ShardedProgram sharded = partitionProgram(text, c.name, "", /*gatherResults=*/true);
    ASSERT_EQ(sharded.report.numDevices, n);
    std::vector<Literal> args;
    for (const Type& t : sharded.params) args.push_back(integers(t, static_cast<int>(args.size())));
    std::vector<Literal> got = runSharded(client, sharded, args);
    std::vector<Literal> want = alone(text, args);
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < got.size(); ++r) EXPECT_EQ(got[r], want[r]) << "result " << r << "\n" << sharded.text;
  }
}

TEST_P(MpiShardingTest, ATwoDimensionalShardyMesh) {
  Client client = mpiClient();
  if (client.numProcesses() != 4) GTEST_SKIP() << "the 2x2 mesh needs 4 ranks";
  Type a = Type::tensor(DType::F32, {8, 8}), b = Type::tensor(DType::F32, {8, 4});
  std::vector<Literal> args = {integers(a, 1), integers(b, 2)};
  ShardedProgram sharded = partitionProgram(kMesh2d, "mesh2d", "", true);
  std::vector<Literal> got = runSharded(client, sharded, args);
  // On one device: the same program without its mesh's shardings.
  Client local(Plugin::load(GetParam()), ClientOptions{4, 0});
  std::vector<Literal> want = runSharded(local, partitionProgram(kMesh2d, "mesh2d"), args);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); ++r) EXPECT_EQ(got[r], want[r]) << "result " << r;
}

// Ten SGD steps data parallel (the batch split over the ranks) and tensor parallel
// (Megatron) reach the one-device weights.
TEST_P(MpiShardingTest, TrainingMatchesOneDevice) {
  Client client = mpiClient();
  const std::string n = std::to_string(client.numProcesses());
  const std::string rows = "{devices=[" + n + ",1]<=[" + n + "]}", columns = "{devices=[1," + n + "]<=[" + n + "]}";
  for (const std::string& text : {trainStep("{replicated}", "{replicated}", rows), trainStep(columns, rows, "{replicated}")}) {
    ShardedExecutable step(client, partitionProgram(text, "step", "", true));
    std::vector<Literal> args = uniformArgs(step.program().params, 7);
    std::vector<Literal> a = args, b = args;
    for (int s = 0; s < 10; ++s) {
      std::vector<Literal> ra = step.run(a), rb = alone(text, b);
      a[0] = ra[0], a[1] = ra[1], b[0] = rb[0], b[1] = rb[1];
      EXPECT_NEAR(ra[2].floatAt(0), rb[2].floatAt(0), 1e-5 * std::abs(rb[2].floatAt(0)));
    }
    for (int w = 0; w < 2; ++w)
      for (int64_t i = 0; i < a[w].numElements(); ++i) EXPECT_NEAR(a[w].floatAt(i), b[w].floatAt(i), 1e-5) << "weight " << w;
  }
}

INSTANTIATE_TEST_SUITE_P(Plugins, MpiShardingTest, ::testing::Values("cpu", "interp"));

}  // namespace
}  // namespace kiln::runtime
