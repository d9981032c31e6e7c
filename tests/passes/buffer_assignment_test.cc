// Scheduling and buffer assignment: the schedule keeps effects in order and lowers the
// peak; the assignment never lets two live values share bytes, reuses dying operands and
// donated parameters, and its figures match hand-computed ones; the independent checker
// catches corrupted assignments.
#include <gtest/gtest.h>

#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "ir/ops/testing.h"
#include "passes/memory_limit.h"
#include "passes/pass_test_util.h"

namespace kiln::passes {
namespace {

using test_util::opsOf;
using test_util::runAndCompare;

const Function& mainOf(const Module& m) { return *m.lookup("main"); }

// The entry of `a` for `v`.
const BufferedValue& entry(const BufferAssignment& a, const Value* v) {
  for (const BufferedValue& b : a.values)
    if (b.value == v) return b;
  ADD_FAILURE() << "no entry for a value of type " << v->type().str();
  static BufferedValue none;
  return none;
}
size_t indexOf(const BufferAssignment& a, const Value* v) {
  for (size_t i = 0; i < a.values.size(); ++i)
    if (a.values[i].value == v) return i;
  ADD_FAILURE() << "no entry for a value of type " << v->type().str();
  return a.values.size();
}

// The result of the op of @main with this opcode (the first one).
const Value* resultOf(const Module& m, OpCode code) {
  for (const auto& op : mainOf(m).body().ops())
    if (op->is(code)) return op->result(0);
  ADD_FAILURE() << "no " << opInfo(code).name << " in @main";
  return nullptr;
}

// A check by hand, independent of checkBufferAssignment: any two values live at one
// position that both have bytes of ours in the same space must not overlap, except a
// result written in place over an operand whose last read is that result's op.
void expectNoSharedLiveBytes(const BufferAssignment& a) {
  struct Where {
    int64_t space, lo, hi;
  };
  auto where = [&](size_t i) -> std::optional<Where> {
    const BufferedValue& v = a.values[i];
    if (v.bytes == 0) return std::nullopt;
    if (v.kind == BufferedValue::Kind::Parameter)
      return v.donated ? std::optional<Where>(Where{static_cast<int64_t>(i), 0, v.bytes}) : std::nullopt;
    if (v.offset < 0) return std::nullopt;
    return Where{v.inParameter, v.offset, v.offset + v.bytes};
  };
  for (size_t i = 0; i < a.values.size(); ++i)
    for (size_t j = i + 1; j < a.values.size(); ++j) {
      auto wi = where(i), wj = where(j);
      if (!wi || !wj || wi->space != wj->space) continue;
      const BufferedValue &vi = a.values[i], &vj = a.values[j];
      bool liveTogether = vi.start <= vj.end && vj.start <= vi.end;
      bool bytesOverlap = wi->lo < wj->hi && wj->lo < wi->hi;
      if (!liveTogether || !bytesOverlap) continue;
      bool inPlace = (vj.reusesBufferOf == static_cast<int64_t>(i) && vj.start == vi.end) ||
                     (vi.reusesBufferOf == static_cast<int64_t>(j) && vi.start == vj.end);
      EXPECT_TRUE(inPlace) << vi.producer << " [" << vi.start << ", " << vi.end << "] and " << vj.producer << " ["
                           << vj.start << ", " << vj.end << "] share bytes\n"
                           << a.str(100);
    }
}

// Assigns @main's buffers and checks them both ways.
BufferAssignment assign(const Module& m, bool donateAll = false) {
  BufferAssignment a = assignBuffers(mainOf(m), donateAll ? Donation::All : Donation::FromAttributes);
  std::vector<std::string> problems = checkBufferAssignment(mainOf(m), a);
  EXPECT_TRUE(problems.empty()) << problems.front() << "\n" << a.str(100);
  expectNoSharedLiveBytes(a);
  return a;
}

// ---- schedule ---------------------------------------------------------------------------

TEST(ScheduleTest, EffectsKeepTheirOrderAndTheTerminatorStaysLast) {
  // Moving @second first would free x2's 4 MiB before @first defines 4 MiB: the greedy
  // choice, but the effects must stay in program order.
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<16xf32>, %s: tensor<f32>) -> (tensor<1024x1024xf32>, tensor<f32>) {
      %big = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1024x1024xf32>
      %e1 = stablehlo.custom_call @first(%x) {has_side_effect = true} : (tensor<16xf32>) -> tensor<1024x1024xf32>
      %e2 = stablehlo.custom_call @second(%big) {has_side_effect = true} : (tensor<1024x1024xf32>) -> tensor<f32>
      %n = stablehlo.negate %s : tensor<f32>
      return %e1, %e2 : tensor<1024x1024xf32>, tensor<f32>
    })");
  PassContext ctx;
  createSchedulePass()->run(*m, ctx);
  EXPECT_NO_THROW(verifyModule(*m));
  std::vector<std::string> order;
  for (const auto& op : mainOf(*m).body().ops())
    order.push_back(op->is(ops::CustomCall) ? op->attr("call_target_name").asString() : std::string(op->name()));
  auto pos = [&](const std::string& name) { return std::find(order.begin(), order.end(), name) - order.begin(); };
  EXPECT_LT(pos("first"), pos("second"));
  EXPECT_EQ(order.back(), "func.return");
  EXPECT_EQ(order.size(), 5u);
}

TEST(ScheduleTest, ChecksKeepTheirOrder) {
  auto m = runAndCompare(R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = stablehlo.abs %x : tensor<4xf32>
      %b = stablehlo.negate %a : tensor<4xf32>
      check.expect_eq %b, %b : tensor<4xf32>
      %c = stablehlo.add %a, %b : tensor<4xf32>
      check.expect_eq %a, %a : tensor<4xf32>
      return %c : tensor<4xf32>
    })",
                         {"schedule"}, test_util::Inputs::Ordinary);
  std::vector<const Op*> checks;
  for (const auto& op : mainOf(*m).body().ops())
    if (op->is(ops::CheckExpectEq)) checks.push_back(op.get());
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_TRUE(checks[0]->operand(0)->definingOp()->is(ops::Negate));
  EXPECT_TRUE(checks[1]->operand(0)->definingOp()->is(ops::Abs));
  EXPECT_TRUE(mainOf(*m).body().back()->is(ops::FuncReturn));
}

TEST(ScheduleTest, LowersThePeakOfABadlyInterleavedProgram) {
  // Three chains each make a 1 MiB temporary and reduce it; program order makes all
  // three temporaries first.
  const std::string text = R"(
    func.func @main(%x: tensor<512x512xf32>) -> (tensor<512xf32>, tensor<512xf32>, tensor<512xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %t1 = stablehlo.exponential %x : tensor<512x512xf32>
      %t2 = stablehlo.negate %x : tensor<512x512xf32>
      %t3 = stablehlo.abs %x : tensor<512x512xf32>
      %r1 = stablehlo.reduce(%t1 init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
      %r2 = stablehlo.reduce(%t2 init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
      %r3 = stablehlo.reduce(%t3 init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
      return %r1, %r2, %r3 : tensor<512xf32>, tensor<512xf32>, tensor<512xf32>
    })";
  auto before = stablehlo::parseModule(text);
  BufferAssignment unscheduled = assign(*before);
  auto m = runAndCompare(text, {"schedule"}, test_util::Inputs::Ordinary);
  BufferAssignment scheduled = assign(*m);
  const int64_t mib = 1 << 20, result = 512 * 4;
  // x and three temporaries, against x and one temporary (plus the small results).
  EXPECT_GE(unscheduled.peakLiveBytes, 4 * mib);
  EXPECT_LE(scheduled.peakLiveBytes, 2 * mib + 3 * result + 4) << scheduled.str();
  EXPECT_LE(scheduled.arenaBytes, mib + 3 * result + 64 * 4) << scheduled.str();
  EXPECT_GE(unscheduled.arenaBytes, 3 * mib);
  // Each reduce now directly follows its temporary.
  std::vector<const Op*> ops;
  for (const auto& op : mainOf(*m).body().ops()) ops.push_back(op.get());
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i]->is(ops::Reduce)) {
      ASSERT_GT(i, 0u);
      EXPECT_EQ(ops[i - 1], ops[i]->operand(0)->definingOp()) << stablehlo::printModule(*m);
    }
}

// ---- buffer assignment ------------------------------------------------------------------

const char* kHandExample = R"(
    func.func @main(%x: tensor<16xf32>, %y: tensor<32xf32>) -> (tensor<16xf32>, tensor<f32>) {
      %a = stablehlo.negate %x : tensor<16xf32> loc("p.py":1:1)
      %b = stablehlo.concatenate %a, %a, dim = 0 : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32> loc("p.py":2:1)
      %c = stablehlo.add %b, %y : tensor<32xf32> loc("p.py":3:1)
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0]
          : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
      %d = stablehlo.abs %a : tensor<16xf32>
      return %d, %r : tensor<16xf32>, tensor<f32>
    })";

TEST(BufferAssignmentTest, FiguresOfAHandComputedExample) {
  auto m = stablehlo::parseModule(kHandExample);
  BufferAssignment a = assign(*m);
  const Function& fn = mainOf(*m);
  const Value *x = fn.param(0), *y = fn.param(1);
  const Value *va = resultOf(*m, ops::Negate), *vb = resultOf(*m, ops::Concatenate),
              *vc = resultOf(*m, ops::Add), *vz = resultOf(*m, ops::Constant),
              *vr = resultOf(*m, ops::Reduce), *vd = resultOf(*m, ops::Abs);
  // Intervals (op positions; parameters start at -1; a value lives to its last read, and a
  // parameter the caller keeps lives for the whole call).
  auto interval = [&](const Value* v) { return std::make_pair(entry(a, v).start, entry(a, v).end); };
  EXPECT_EQ(interval(x), std::make_pair(int64_t{-1}, int64_t{6}));
  EXPECT_EQ(interval(y), std::make_pair(int64_t{-1}, int64_t{6}));
  EXPECT_EQ(interval(va), std::make_pair(int64_t{0}, int64_t{5}));
  EXPECT_EQ(interval(vb), std::make_pair(int64_t{1}, int64_t{2}));
  EXPECT_EQ(interval(vc), std::make_pair(int64_t{2}, int64_t{4}));
  EXPECT_EQ(interval(vz), std::make_pair(int64_t{3}, int64_t{4}));
  EXPECT_EQ(interval(vr), std::make_pair(int64_t{4}, int64_t{6}));
  EXPECT_EQ(interval(vd), std::make_pair(int64_t{5}, int64_t{6}));
  EXPECT_EQ(entry(a, x).kind, BufferedValue::Kind::Parameter);
  EXPECT_EQ(entry(a, vz).kind, BufferedValue::Kind::Constant);
  EXPECT_EQ(entry(a, vc).kind, BufferedValue::Kind::Temporary);
  EXPECT_EQ(entry(a, vr).kind, BufferedValue::Kind::Output);
  EXPECT_EQ(entry(a, vd).kind, BufferedValue::Kind::Output);
  EXPECT_EQ(entry(a, x).offset, -1) << "the caller keeps a parameter it did not donate";
  EXPECT_EQ(entry(a, vz).offset, -1) << "constants are part of the program";

  // x 64 + y 128 + a 64 + b 128 + c 128 + z 4 + r 4 + d 64.
  EXPECT_EQ(a.totalValueBytes, 584);
  // The peak is at the reduce: x, y, a, c (in b's bytes), z and r: 64+128+64+128+4+4.
  EXPECT_EQ(a.peakLiveBytes, 392) << a.str();
  EXPECT_EQ(a.peakPosition, 4);
  // In place: c over b (dies at the add), d over a (dies at the abs).
  EXPECT_EQ(a.inPlaceReuses, 2);
  EXPECT_EQ(entry(a, vc).reusesBufferOf, static_cast<int64_t>(indexOf(a, vb)));
  EXPECT_EQ(entry(a, vc).offset, entry(a, vb).offset);
  EXPECT_EQ(entry(a, vd).reusesBufferOf, static_cast<int64_t>(indexOf(a, va)));
  EXPECT_EQ(entry(a, vd).offset, entry(a, va).offset);
  EXPECT_EQ(entry(a, vb).reusesBufferOf, -1) << "a concatenation reads other indices than it writes";
  // a (64) and b (128) are live together, and r (rounded to 64) is placed while c holds
  // b's bytes: 256 bytes of arena.
  EXPECT_EQ(a.arenaBytes, 256) << a.str();
  for (const BufferedValue& v : a.values)
    if (v.offset >= 0) {
      EXPECT_EQ(v.offset % 64, 0) << v.producer;
      EXPECT_LE(v.offset + v.bytes, a.arenaBytes) << v.producer;
    }

  // Live at the peak, largest first, with the producer and its location.
  std::vector<size_t> live = a.liveAtPeak();
  ASSERT_EQ(live.size(), 6u) << a.str();
  EXPECT_EQ(a.values[live[0]].producer, "parameter 1");
  EXPECT_EQ(a.values[live[1]].value, vc);
  EXPECT_EQ(a.values[live[1]].producer, "stablehlo.add");
  EXPECT_EQ(a.values[live[1]].loc, Location::file("p.py", 3, 1));
  EXPECT_EQ(a.values[live[2]].producer, "parameter 0");
  EXPECT_EQ(a.values[live[3]].value, va);
  EXPECT_EQ(a.values[live[3]].producer, "stablehlo.negate");
  EXPECT_EQ(a.values[live[3]].loc, Location::file("p.py", 1, 1));
  std::string text = a.str();
  EXPECT_NE(text.find("peak live 392 B"), std::string::npos) << text;
  EXPECT_NE(text.find("p.py\":3:1"), std::string::npos) << text;
}

TEST(BufferAssignmentTest, AValueStillReadLaterIsNotOverwritten) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
      %a = stablehlo.negate %x : tensor<64xf32>
      %b = stablehlo.exponential %a : tensor<64xf32>
      %c = stablehlo.add %a, %b : tensor<64xf32>
      return %c : tensor<64xf32>
    })");
  BufferAssignment a = assign(*m);
  const Value *va = resultOf(*m, ops::Negate), *vb = resultOf(*m, ops::Exponential),
              *vc = resultOf(*m, ops::Add);
  EXPECT_EQ(entry(a, vb).reusesBufferOf, -1) << "a is read again by the add";
  EXPECT_NE(entry(a, vb).offset, entry(a, va).offset);
  // The add may take either operand: both die there.
  int64_t reused = entry(a, vc).reusesBufferOf;
  EXPECT_TRUE(reused == static_cast<int64_t>(indexOf(a, va)) || reused == static_cast<int64_t>(indexOf(a, vb)));
  EXPECT_EQ(a.arenaBytes, 2 * 256);
}

TEST(BufferAssignmentTest, InPlaceNeedsTheSameShape) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
      %a = stablehlo.negate %x : tensor<8x4xf32>
      %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
      %n = stablehlo.negate %t : tensor<4x8xf32>
      return %n : tensor<4x8xf32>
    })");
  BufferAssignment a = assign(*m);
  EXPECT_EQ(entry(a, resultOf(*m, ops::Transpose)).reusesBufferOf, -1) << "a transpose is no element-by-element op";
  EXPECT_EQ(a.inPlaceReuses, 1) << a.str();
}

// A multi_output fusion computes all its results at an index before it stores any: each
// result may take the bytes of an operand dying there, though the other result reads it.
TEST(BufferAssignmentTest, AMultiOutputFusionWritesOverOperandsItsOtherResultReads) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
      %a = stablehlo.negate %x : tensor<64xf32>
      %b = stablehlo.abs %x : tensor<64xf32>
      %f:2 = "kiln.fusion"(%a, %b) <{kind = "multi_output"}> ({
        ^bb0(%p: tensor<64xf32>, %q: tensor<64xf32>):
        %s = stablehlo.multiply %p, %q : tensor<64xf32>
        %t = stablehlo.add %p, %q : tensor<64xf32>
        stablehlo.return %s, %t : tensor<64xf32>, tensor<64xf32>
      }) : (tensor<64xf32>, tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
      return %f#0, %f#1 : tensor<64xf32>, tensor<64xf32>
    })");
  BufferAssignment a = assign(*m);
  const Op* fusion = nullptr;
  for (const auto& op : mainOf(*m).body().ops())
    if (op->is(ops::Fusion)) fusion = op.get();
  ASSERT_NE(fusion, nullptr);
  const Value *va = resultOf(*m, ops::Negate), *vb = resultOf(*m, ops::Abs);
  EXPECT_EQ(entry(a, fusion->result(0)).reusesBufferOf, static_cast<int64_t>(indexOf(a, va))) << a.str();
  EXPECT_EQ(entry(a, fusion->result(1)).reusesBufferOf, static_cast<int64_t>(indexOf(a, vb))) << a.str();
  EXPECT_EQ(a.inPlaceReuses, 2) << a.str();
}

// A value passed to a fusion twice is read at other indices when one of its arguments is
// (through a permuting broadcast): no result takes its bytes, even through the other.
TEST(BufferAssignmentTest, AValuePassedTwiceIsReadEverywhereItIsPassed) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %a = stablehlo.negate %x : tensor<8x8xf32>
      %f = "kiln.fusion"(%a, %a) <{kind = "loop"}> ({
        ^bb0(%p: tensor<8x8xf32>, %q: tensor<8x8xf32>):
        %t = stablehlo.broadcast_in_dim %q, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
        %s = stablehlo.add %p, %t : tensor<8x8xf32>
        stablehlo.return %s : tensor<8x8xf32>
      }) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
      return %f : tensor<8x8xf32>
    })");
  BufferAssignment a = assign(*m);
  EXPECT_EQ(a.inPlaceReuses, 0) << a.str();
}

const char* kDonation = R"(
    func.func @main(%x: tensor<64xf32> ATTR, %y: tensor<64xf32>) -> tensor<64xf32> {
      %a = stablehlo.negate %x : tensor<64xf32>
      %b = stablehlo.abs %y : tensor<64xf32>
      %c = stablehlo.add %a, %b : tensor<64xf32>
      return %c : tensor<64xf32>
    })";

std::unique_ptr<Module> donation(const std::string& attr) {
  std::string text = kDonation;
  text.replace(text.find("ATTR"), 4, attr);
  return stablehlo::parseModule(text);
}

TEST(BufferAssignmentTest, DonatedParametersHoldResults) {
  for (const char* attr : {"{jax.buffer_donor = true}", "{tf.aliasing_output = 0 : i32}"}) {
    auto m = donation(attr);
    BufferAssignment a = assign(*m);
    const Function& fn = mainOf(*m);
    EXPECT_TRUE(entry(a, fn.param(0)).donated) << attr;
    EXPECT_FALSE(entry(a, fn.param(1)).donated) << attr;
    const BufferedValue& neg = entry(a, resultOf(*m, ops::Negate));
    EXPECT_EQ(neg.inParameter, 0) << attr << "\n" << a.str();
    EXPECT_EQ(neg.reusesBufferOf, static_cast<int64_t>(indexOf(a, fn.param(0))));
    EXPECT_EQ(entry(a, resultOf(*m, ops::Add)).inParameter, 0) << "the add goes on in the same bytes";
    for (const BufferedValue& v : a.values) EXPECT_NE(v.inParameter, 1) << v.producer << ": y is not donated";
    EXPECT_EQ(a.arenaBytes, 256) << "only |y| needs the arena\n" << a.str();
  }
}

TEST(BufferAssignmentTest, DonatingAllParameters) {
  auto m = donation("");
  BufferAssignment a = assign(*m, /*donateAll=*/true);
  const Function& fn = mainOf(*m);
  EXPECT_TRUE(entry(a, fn.param(0)).donated);
  EXPECT_TRUE(entry(a, fn.param(1)).donated);
  EXPECT_EQ(entry(a, resultOf(*m, ops::Negate)).inParameter, 0);
  EXPECT_EQ(entry(a, resultOf(*m, ops::Abs)).inParameter, 1);
  EXPECT_EQ(a.arenaBytes, 0) << a.str();

  // Through the pass: PipelineOptions::donateAllParameters.
  PassContext ctx;
  ctx.options.donateAllParameters = true;
  ctx.options.verifyEachPass = true;
  createBufferAssignmentPass()->run(*m, ctx);
  ASSERT_EQ(ctx.buffers.size(), 1u);
  EXPECT_EQ(ctx.buffers[0].arenaBytes, 0);
}

TEST(BufferAssignmentTest, ParametersNotDonatedNeverHoldValues) {
  for (const char* attr : {"", "{jax.buffer_donor = false}"}) {
    auto m = donation(attr);
    BufferAssignment a = assign(*m);
    EXPECT_FALSE(entry(a, mainOf(*m).param(0)).donated) << attr;
    for (const BufferedValue& v : a.values) {
      EXPECT_EQ(v.inParameter, -1) << v.producer << " " << attr;
      EXPECT_NE(v.reusesBufferOf, 0) << v.producer << " " << attr;
      EXPECT_NE(v.reusesBufferOf, 1) << v.producer << " " << attr;
    }
    EXPECT_EQ(a.arenaBytes, 2 * 256) << attr;
  }
}

TEST(BufferAssignmentTest, LargerDonatedBufferIsReusedForASmallerValue) {
  // A donated parameter whose last read is done frees its whole buffer for later values.
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<256xf32> {jax.buffer_donor = true}) -> tensor<16xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
          : (tensor<256xf32>, tensor<f32>) -> tensor<f32>
      %n = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<16xf32>
      return %n : tensor<16xf32>
    })");
  BufferAssignment a = assign(*m);
  EXPECT_EQ(entry(a, resultOf(*m, ops::BroadcastInDim)).inParameter, 0) << a.str();
}

TEST(BufferAssignmentTest, PipelineAssignmentsCheckOut) {
  // The full pipeline over programs with fusions, loops and multi-output kernels.
  for (const char* text : {kHandExample, R"(
    func.func @main(%x: tensor<256x1024xf32>, %p: tensor<i1>) -> (tensor<256xf32>, tensor<256xf32>, tensor<256x1024xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>
      %sq = stablehlo.multiply %x, %x : tensor<256x1024xf32>
      %s2 = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1]
          : (tensor<256x1024xf32>, tensor<f32>) -> tensor<256xf32>
      %e = stablehlo.exponential %x : tensor<256x1024xf32>
      %r = "stablehlo.if"(%p) ({
        stablehlo.return %e : tensor<256x1024xf32>
      }, {
        %n = stablehlo.negate %e : tensor<256x1024xf32>
        stablehlo.return %n : tensor<256x1024xf32>
      }) : (tensor<i1>) -> tensor<256x1024xf32>
      %t = stablehlo.add %r, %sq : tensor<256x1024xf32>
      return %s, %s2, %t : tensor<256xf32>, tensor<256xf32>, tensor<256x1024xf32>
    })"}) {
    PassContext ctx;
    ctx.options.verifyEachPass = true;
    auto m = runAndCompare(text, defaultPipeline(), ctx, test_util::Inputs::Ordinary);
    ASSERT_EQ(ctx.buffers.size(), 1u);
    EXPECT_TRUE(checkBufferAssignment(mainOf(*m), ctx.buffers[0]).empty());
    expectNoSharedLiveBytes(ctx.buffers[0]);
  }
}

// ---- the checker --------------------------------------------------------------------------

TEST(BufferCheckTest, ReportsOverlappingValuesAtOneOffset) {
  auto m = stablehlo::parseModule(kHandExample);
  BufferAssignment a = assign(*m);
  const Value *va = resultOf(*m, ops::Negate), *vb = resultOf(*m, ops::Concatenate);
  a.values[indexOf(a, vb)].offset = a.values[indexOf(a, va)].offset;  // a and b are both live at 1
  std::vector<std::string> problems = checkBufferAssignment(mainOf(*m), a);
  ASSERT_FALSE(problems.empty());
  bool named = false;
  for (const std::string& p : problems) named = named || p.find("share bytes") != std::string::npos;
  EXPECT_TRUE(named) << problems.front();
}

TEST(BufferCheckTest, ReportsAnIntervalThatMissesAUse) {
  auto m = stablehlo::parseModule(kHandExample);
  BufferAssignment a = assign(*m);
  BufferedValue& va = a.values[indexOf(a, resultOf(*m, ops::Negate))];
  va.end = 1;  // the abs at 5 still reads it
  std::vector<std::string> problems = checkBufferAssignment(mainOf(*m), a);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("read until 5"), std::string::npos) << problems.front();
}

TEST(BufferCheckTest, ReportsMissingAndMisplacedValues) {
  auto m = stablehlo::parseModule(kHandExample);
  BufferAssignment a = assign(*m);
  BufferAssignment missing = a;
  missing.values.pop_back();
  EXPECT_FALSE(checkBufferAssignment(mainOf(*m), missing).empty());
  BufferAssignment pastArena = a;
  pastArena.values[indexOf(a, resultOf(*m, ops::Reduce))].offset = a.arenaBytes;
  EXPECT_FALSE(checkBufferAssignment(mainOf(*m), pastArena).empty());
  BufferAssignment noBuffer = a;
  noBuffer.values[indexOf(a, resultOf(*m, ops::Add))].offset = -1;
  EXPECT_FALSE(checkBufferAssignment(mainOf(*m), noBuffer).empty());
  BufferAssignment placedParameter = a;
  placedParameter.values[0].offset = 0;  // x: the caller's, not donated
  EXPECT_FALSE(checkBufferAssignment(mainOf(*m), placedParameter).empty());
}

// A memory limit refuses a program whose peak is over it, located at the peak's op and
// naming the largest buffers live there; at or above the peak (or 0) it passes.
TEST(MemoryLimitTest, RefusesAProgramOverTheLimitNamingItsLargestBuffers) {
  auto m = stablehlo::parseModule(R"(
    func.func @main(%x: tensor<256xf32>) -> tensor<f32> {
      %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<256xf32>) -> tensor<64x256xf32>
      %e = stablehlo.exponential %b : tensor<64x256xf32>
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<f32>
      return %s : tensor<f32>
    })");
  const int64_t peak = assignBuffers(mainOf(*m)).peakLiveBytes;
  EXPECT_NO_THROW(checkMemoryLimit(*m, peak));
  EXPECT_NO_THROW(checkMemoryLimit(*m, 0));
  try {
    checkMemoryLimit(*m, peak - 1);
    ADD_FAILURE() << "a program over the limit passed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ResourceExhausted);
    const std::string message = e.what();
    EXPECT_EQ(message,
              "resource exhausted: @main needs 65.0 KiB of buffers at its peak, over the memory limit of 65.0 KiB "
              "(--memory-limit, KILN_MEMORY_LIMIT); the largest live there: 64.0 KiB tensor<64x256xf32> from "
              "stablehlo.exponential (line 4); 1.0 KiB tensor<256xf32> from parameter 0; 4 B tensor<f32> from "
              "stablehlo.constant (line 5)");
    EXPECT_TRUE(e.pos().known());
  }
}

}  // namespace
}  // namespace kiln::passes
