// interpreter.run_parallel and the collectives: values exchanged in group order,
// repeated collectives on one channel, and failures that must end the run rather than
// hang it (deadlocks, errors in one process, ops outside a run_parallel).
#include <gtest/gtest.h>

#include "interp/run_program.h"

#include <chrono>

#include "interp/interpreter.h"
#include "stablehlo/parser.h"
#include "support/error.h"

namespace kiln::interp {
namespace {

using namespace kiln::interp::testing;  // NOLINT: run, ints, floats, bits

// Runs @main of `text` with a time limit and returns its results.
// The message of the error `text` fails with ("" when it does not fail).
std::string failure(const std::string& text, double seconds = 30) {
  try {
    run(text, seconds);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kSum = R"(({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }))";

TEST(CollectivesTest, AllReduceSumsInEveryReplica) {
  HostValues r = run(std::string(R"(
    func.func @f(%x: tensor<2xi64>) -> tensor<2xi64> {
      %r = "stablehlo.all_reduce"(%x) )") +
                     kSum + R"( {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>}
          : (tensor<2xi64>) -> tensor<2xi64>
      return %r : tensor<2xi64>
    }
    func.func @main() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
      %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %b = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
      %c = stablehlo.constant dense<[100, 200]> : tensor<2xi64>
      %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@f], [@f], [@f]]}
          : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
      return %r#0, %r#1, %r#2 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
    })");
  for (const HostValue& v : r) EXPECT_EQ(ints(v), (std::vector<int64_t>{111, 222}));
}

// The same collective in a loop meets the same group and channel again and again; each
// round must pair with the other processes' same round.
TEST(CollectivesTest, RepeatedAllReduceOnOneChannelPairsRoundByRound) {
  HostValues r = run(std::string(R"(
    func.func @f(%x: tensor<i64>) -> tensor<i64> {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %n = stablehlo.constant dense<3> : tensor<i64>
      %out:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i64>, tensor<i64>
        cond {
          %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
          stablehlo.return %c : tensor<i1>
        } do {
          %s = "stablehlo.all_reduce"(%v) )") +
                     kSum + R"( {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
              : (tensor<i64>) -> tensor<i64>
          %j = stablehlo.add %i, %one : tensor<i64>
          stablehlo.return %j, %s : tensor<i64>, tensor<i64>
        }
      return %out#1 : tensor<i64>
    }
    func.func @main() -> (tensor<i64>, tensor<i64>) {
      %a = stablehlo.constant dense<1> : tensor<i64>
      %b = stablehlo.constant dense<2> : tensor<i64>
      %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f], [@f]]}
          : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
      return %r#0, %r#1 : tensor<i64>, tensor<i64>
    })");
  // 1 + 2 = 3, then 6, then 12.
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{12}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{12}));
}

TEST(CollectivesTest, CollectivePermuteSwapsAlongACycle) {
  HostValues r = run(R"(
    func.func @f(%x: tensor<i64>) -> tensor<i64> {
      %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>}
          : (tensor<i64>) -> tensor<i64>
      return %r : tensor<i64>
    }
    func.func @main() -> (tensor<i64>, tensor<i64>, tensor<i64>) {
      %a = stablehlo.constant dense<1> : tensor<i64>
      %b = stablehlo.constant dense<2> : tensor<i64>
      %c = stablehlo.constant dense<3> : tensor<i64>
      %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@f], [@f], [@f]]}
          : (tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>)
      return %r#0, %r#1, %r#2 : tensor<i64>, tensor<i64>, tensor<i64>
    })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{3}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{1}));
  EXPECT_EQ(ints(r[2]), (std::vector<int64_t>{2}));
}

TEST(CollectivesTest, AllToAllAcrossPartitionsWithAChannel) {
  HostValues r = run(R"(
    func.func @f(%x: tensor<4xi64>) -> tensor<4xi64> {
      %r = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64,
          replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
          : (tensor<4xi64>) -> tensor<4xi64>
      return %r : tensor<4xi64>
    }
    func.func @main() -> (tensor<4xi64>, tensor<4xi64>) {
      %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
      %b = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
      %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f, @f]]}
          : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
      return %r#0, %r#1 : tensor<4xi64>, tensor<4xi64>
    })");
  // Group order is (partition 1, partition 0): partition 1 is receiver 0.
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{7, 8, 3, 4}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{5, 6, 1, 2}));
}

TEST(CollectivesTest, ProcessesWaitingOnAFinishedProcessFailAtOnce) {
  auto start = std::chrono::steady_clock::now();
  std::string message = failure(std::string(R"(
    func.func @waits(%x: tensor<i64>) -> tensor<i64> {
      %r = "stablehlo.all_reduce"(%x) )") +
                                    kSum + R"( {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
          : (tensor<i64>) -> tensor<i64>
      return %r : tensor<i64>
    }
    func.func @leaves(%x: tensor<i64>) -> tensor<i64> {
      return %x : tensor<i64>
    }
    func.func @main() -> (tensor<i64>, tensor<i64>) {
      %a = stablehlo.constant dense<1> : tensor<i64>
      %r:2 = "interpreter.run_parallel"(%a, %a) {programs = [[@waits], [@leaves]]}
          : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
      return %r#0, %r#1 : tensor<i64>, tensor<i64>
    })",
                                60);
  EXPECT_NE(message.find("deadlock"), std::string::npos) << message;
  EXPECT_NE(message.find("process (1, 0) has finished"), std::string::npos) << message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// A process that never reaches the barrier (it spins) is no deadlock the grid can see;
// the time limit ends both it and the process waiting for it.
TEST(CollectivesTest, TheTimeLimitEndsAWaitForASpinningProcess) {
  auto start = std::chrono::steady_clock::now();
  std::string message = failure(std::string(R"(
    func.func @waits(%x: tensor<i1>) -> tensor<i1> {
      %r = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i1>, %b: tensor<i1>):
          %s = stablehlo.or %a, %b : tensor<i1>
          stablehlo.return %s : tensor<i1>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i1>) -> tensor<i1>
      return %r : tensor<i1>
    }
    func.func @spins(%x: tensor<i1>) -> tensor<i1> {
      %r = stablehlo.while(%v = %x) : tensor<i1>
        cond {
          stablehlo.return %v : tensor<i1>
        } do {
          stablehlo.return %v : tensor<i1>
        }
      return %r : tensor<i1>
    }
    func.func @main() -> (tensor<i1>, tensor<i1>) {
      %t = stablehlo.constant dense<true> : tensor<i1>
      %r:2 = "interpreter.run_parallel"(%t, %t) {programs = [[@waits], [@spins]]}
          : (tensor<i1>, tensor<i1>) -> (tensor<i1>, tensor<i1>)
      return %r#0, %r#1 : tensor<i1>, tensor<i1>
    })"),
                                0.5);
  EXPECT_NE(message.find("time limit"), std::string::npos) << message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// The error of the process that failed first is the run's error, not the deadlock it
// leaves behind in the others.
TEST(CollectivesTest, TheFailingProcessErrorIsReported) {
  std::string message = failure(std::string(R"(
    func.func @waits(%x: tensor<i64>, %t: !stablehlo.token) -> tensor<i64> {
      %r = "stablehlo.all_reduce"(%x) )") +
                                kSum + R"( {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
          : (tensor<i64>) -> tensor<i64>
      return %r : tensor<i64>
    }
    func.func @fails(%x: tensor<i64>, %t: !stablehlo.token) -> tensor<i64> {
      %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<i64>, !stablehlo.token)
      return %v#0 : tensor<i64>
    }
    func.func @main() -> (tensor<i64>, tensor<i64>) {
      %a = stablehlo.constant dense<1> : tensor<i64>
      %t = stablehlo.after_all : !stablehlo.token
      %r:2 = "interpreter.run_parallel"(%a, %t, %a, %t) {programs = [[@waits], [@fails]]}
          : (tensor<i64>, !stablehlo.token, tensor<i64>, !stablehlo.token) -> (tensor<i64>, tensor<i64>)
      return %r#0, %r#1 : tensor<i64>, tensor<i64>
    })");
  EXPECT_NE(message.find("infeed queue is empty"), std::string::npos) << message;
}

TEST(CollectivesTest, ReplicaIdOutsideRunParallelFails) {
  std::string message = failure(R"(
    func.func @main() -> tensor<ui32> {
      %r = stablehlo.replica_id : tensor<ui32>
      return %r : tensor<ui32>
    })");
  EXPECT_NE(message.find("only supported under interpreter.run_parallel"), std::string::npos)
      << message;
}

TEST(CollectivesTest, SendAndRecvPairUpInOrderOnAChannel) {
  HostValues r = run(R"(
    func.func @sender(%t: !stablehlo.token) -> !stablehlo.token {
      %a = stablehlo.constant dense<7> : tensor<i64>
      %b = stablehlo.constant dense<8> : tensor<i64>
      %t1 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>}
          : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
      %t2 = "stablehlo.send"(%b, %t1) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>}
          : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
      return %t2 : !stablehlo.token
    }
    func.func @receiver(%t: !stablehlo.token) -> (tensor<i64>, tensor<i64>) {
      %x:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>}
          : (!stablehlo.token) -> (tensor<i64>, !stablehlo.token)
      %y:2 = "stablehlo.recv"(%x#1) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>}
          : (!stablehlo.token) -> (tensor<i64>, !stablehlo.token)
      return %x#0, %y#0 : tensor<i64>, tensor<i64>
    }
    func.func @main() -> (tensor<i64>, tensor<i64>) {
      %t = stablehlo.after_all : !stablehlo.token
      %r:3 = "interpreter.run_parallel"(%t, %t) {programs = [[@receiver, @sender]]}
          : (!stablehlo.token, !stablehlo.token) -> (tensor<i64>, tensor<i64>, !stablehlo.token)
      return %r#0, %r#1 : tensor<i64>, tensor<i64>
    })");
  EXPECT_EQ(ints(r[0]), (std::vector<int64_t>{7}));
  EXPECT_EQ(ints(r[1]), (std::vector<int64_t>{8}));
}

}  // namespace
}  // namespace kiln::interp
