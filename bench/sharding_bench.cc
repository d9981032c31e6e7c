// Figures of sharding (issue: sharding), on W6 (bench/programs/w6_mlp_train_step.mlir: one
// SGD step of a 784-512-10 MLP on a batch of 256) with shardings added to its parameters
// and results:
//  1. Bytes each device sends per step (the partitioner's ring model of the collectives
//     it inserted) against the minimum the sharding needs: data parallel, the gradients
//     (all weights) and the loss all-reduced once; Megatron tensor parallel (w1, b1 by
//     columns, w2 by rows), the output all-reduced once.
//  2. Step time of the data-parallel step on 1 and on 2 cpu devices of this machine (in
//     one process), interleaved, best of several rounds; and the share of the 2-device
//     step spent in collectives, measured as the time the same per-device program saves
//     with each collective replaced by a multiplication with zero (the same compute
//     before it; every device then holds the same zeros, so the results still assemble).
//  3. Under mpirun (make bench runs `mpirun --bind-to none -np 2 sharding_bench` too: unbound,
//     as the in-process devices are, rather than one core per rank): the same step over
//     2 MPI processes of one device each (the mpi communicator), interleaved with the
//     1-device step on rank 0, and the share of collectives measured the same way.
// Run: build/bench/sharding_bench (make bench).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "ir/builder.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharding_attrs.h"
#include "runtime/sharded_program.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"

namespace {

using namespace kiln;
using Clock = std::chrono::steady_clock;

// W6 with `params[i]` / `results[i]` as shardings (empty: none).
std::string withShardings(const std::vector<std::string>& params, const std::vector<std::string>& results) {
  auto module = stablehlo::parseModule(SourceBuffer::fromFile(KILN_SOURCE_DIR "/bench/programs/w6_mlp_train_step.mlir"));
  Function& fn = *module->functions()[0];
  for (size_t i = 0; i < params.size(); ++i)
    if (!params[i].empty()) setAttr(fn.argAttrs[i], std::string(kHloShardingAttr), Attribute::string(params[i]));
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i].empty()) setAttr(fn.resultAttrs[i], std::string(kHloShardingAttr), Attribute::string(results[i]));
  return stablehlo::printModule(*module);
}

// The per-device program with every collective replaced by x * 0.
runtime::ShardedProgram withoutCollectives(runtime::ShardedProgram program) {
  auto module = stablehlo::parseModule(SourceBuffer::fromString("nocollectives", program.text));
  Region& body = module->functions()[0]->body();
  std::vector<Op*> collectives;
  for (const auto& op : body.ops())
    if (op->info().category == OpCategory::Collective && op->numOperands() == 1 &&
        op->operand(0)->type() == op->result()->type())
      collectives.push_back(op.get());
  for (Op* op : collectives) {
    Builder b = Builder::before(*op);
    Value* zero = b.binary(ops::Multiply, op->operand(0), b.splat(op->operand(0)->type(), 0));
    op->result()->replaceAllUsesWith(zero);
    body.erase(op);
  }
  program.text = stablehlo::printModule(*module);
  return program;
}

std::vector<Literal> randomArgs(const std::vector<Type>& types) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  std::vector<Literal> out;
  for (const Type& t : types) {
    Literal lit(t);
    for (int64_t i = 0; i < lit.numElements(); ++i) lit.setFloat(i, u(rng));
    out.push_back(std::move(lit));
  }
  return out;
}

// One step with its arguments already on the devices (as a training loop keeps them),
// from launch to the last device's outputs being ready.
double stepSeconds(const runtime::ShardedExecutable& exe, const std::vector<std::vector<runtime::Buffer>>& placed) {
  auto start = Clock::now();
  exe.execute(placed);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void printTraffic(const char* name, const runtime::ShardedProgram& p, double minimum) {
  const passes::CollectiveCounts& c = p.report.collectives;
  std::printf("%-34s %d all_reduce, %d all_gather, %d all_to_all, %d reduce_scatter; %9.0f bytes/device/step "
              "(minimum %9.0f, ratio %.3f)\n",
              name, c.allReduce, c.allGather, c.allToAll, c.reduceScatter, c.bytesSent, minimum,
              minimum > 0 ? c.bytesSent / minimum : 1.0);
}

// The best times of one step on one device, on two, and on two without collectives.
void printStep(const char* title, const char* one, const char* two, double best1, double best2, double bestBare) {
  std::printf("%s, best of 30 interleaved rounds\n", title);
  std::printf("   %-24s %8.3f ms\n", one, best1 * 1e3);
  std::printf("   %-24s %8.3f ms   speedup %.2fx\n", two, best2 * 1e3, best1 / best2);
  std::printf("   %s without the collectives %8.3f ms: collectives %.1f%% of the step\n", two, bestBare * 1e3,
              100 * std::max(0.0, best2 - bestBare) / best2);
}

// Item 3, on every rank of `mpirun -np 2`: rounds of the 1-device step (rank 0 alone),
// the 2-rank step and the 2-rank step without collectives, each phase entered together
// (a tiny all_reduce is the barrier), best of 30; rank 0 prints.
int overMpi(const runtime::ShardedProgram& one, const runtime::ShardedProgram& dp) {
  runtime::ClientOptions options;
  options.communicator = runtime::Communicator::Mpi;
  runtime::Client ranks(runtime::Plugin::load("cpu"), options);
  runtime::Client local(runtime::Plugin::load("cpu"), runtime::ClientOptions{1, 0});
  const bool first = ranks.processIndex() == 0;
  if (ranks.numProcesses() != 2) {
    if (first) std::fprintf(stderr, "sharding_bench: run it with mpirun -np 2 (not %d)\n", ranks.numProcesses());
    return 2;
  }
  runtime::ShardedExecutable barrier(ranks, runtime::partitionProgram(
      R"(func.func @main(%x: tensor<2xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> (tensor<f32> {mhlo.sharding = "{replicated}"}) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
})", "barrier", "", true));
  const std::vector<Literal> token = randomArgs(barrier.program().params);
  const auto barrierArgs = barrier.place(token);
  runtime::ShardedExecutable single(local, one), sharded(ranks, dp), bare(ranks, withoutCollectives(dp));
  const std::vector<Literal> args = randomArgs(dp.params);
  const auto on1 = single.place(args), on2 = sharded.place(args);
  double best1 = 1e9, best2 = 1e9, bestBare = 1e9;
  for (int round = -3; round < 30; ++round) {  // three rounds to warm up
    barrier.execute(barrierArgs);
    if (first) {
      const double t = stepSeconds(single, on1);
      if (round >= 0) best1 = std::min(best1, t);
    }
    barrier.execute(barrierArgs);
    const double t2 = stepSeconds(sharded, on2);
    barrier.execute(barrierArgs);
    const double tBare = stepSeconds(bare, on2);
    if (round >= 0) best2 = std::min(best2, t2), bestBare = std::min(bestBare, tBare);
  }
  if (first)
    printStep("3. data-parallel step over 2 MPI processes (mpirun -np 2; rank 0's times)", "1 device (rank 0 alone)",
              "2 MPI ranks", best1, best2, bestBare);
  return 0;
}

}  // namespace

int main() {
  const std::string split = "{devices=[2,1]<=[2]}", whole = "{replicated}";
  // Parameters: x, y, w1, b1, w2, b2; results: loss, w1, b1, w2, b2.
  runtime::ShardedProgram dp = runtime::partitionProgram(
      withShardings({split, split, whole, whole, whole, whole}, {whole, whole, whole, whole, whole}), "w6 data parallel");
  runtime::ShardedProgram tp = runtime::partitionProgram(
      withShardings({whole, whole, "{devices=[1,2]<=[2]}", "{devices=[2]<=[2]}", split, whole},
                    {whole, "{devices=[1,2]<=[2]}", "{devices=[2]<=[2]}", split, whole}),
      "w6 tensor parallel");
  runtime::ShardedProgram one = runtime::partitionProgram(withShardings({}, {}), "w6");
  if (runtime::defaultCommunicator() == runtime::Communicator::Mpi) return overMpi(one, dp);
  const double weights = 4.0 * (784 * 512 + 512 + 512 * 10 + 10);
  std::printf("1. bytes each device sends per step (2 devices; ring model of the inserted collectives)\n");
  printTraffic("data parallel (batch split)", dp, 2 * 0.5 * (weights + 4));
  printTraffic("tensor parallel (Megatron)", tp, 2 * 0.5 * 4.0 * 256 * 10);

  runtime::Client client(runtime::Plugin::load("cpu"), runtime::ClientOptions{2, 0});
  runtime::ShardedExecutable single(client, one), sharded(client, dp), bare(client, withoutCollectives(dp));
  const std::vector<Literal> args = randomArgs(dp.params);
  const auto on1 = single.place(args), on2 = sharded.place(args);
  for (int warm = 0; warm < 3; ++warm) stepSeconds(single, on1), stepSeconds(sharded, on2), stepSeconds(bare, on2);
  double best1 = 1e9, best2 = 1e9, bestBare = 1e9;
  for (int round = 0; round < 30; ++round) {
    best1 = std::min(best1, stepSeconds(single, on1));
    best2 = std::min(best2, stepSeconds(sharded, on2));
    bestBare = std::min(bestBare, stepSeconds(bare, on2));
  }
  printStep("2. data-parallel step (arguments on the devices)", "1 device", "2 devices", best1, best2, bestBare);
  return 0;
}
