// Result-type inference over every op of every program in ../shared/conformance and
// ../shared/models: the inferred types must equal the declared ones (which JAX, IREE and
// the StableHLO authors wrote), and the verifier must reject every mutant of a declared
// type in a half the op determines (one dimension changed, or the element type changed).
// Built as its own CTest, `type_inference_corpus`; skips when ../shared is absent.
#include <gtest/gtest.h>

#include <map>

#include "ir/attr_records.h"
#include "ir/infer.h"
#include "ir/ops/stablehlo.h"
#include "stablehlo/parser.h"
#include "support/error.h"
#include "test_paths.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct Counts {
  size_t files = 0, unsupported = 0, ops = 0, results = 0;
  size_t shapeMutants = 0, dtypeMutants = 0, records = 0, failures = 0;
};

// Another type of the same kind: one dimension larger (a scalar gains one), or another
// element type.
Type withOtherShape(const Type& t) {
  Shape s = t.shape();
  if (s.empty())
    s.push_back(2);
  else
    s[0] += 1;
  return Type::tensor(t.dtype(), s);
}
Type withOtherDType(const Type& t) {
  DType other = t.dtype() == DType::F32 ? DType::F64 : DType::F32;
  return t.withDType(other);
}

std::string where(const Op& op, const std::string& file) {
  return file + ":" + std::to_string(op.pos.line) + ": " + std::string(op.name());
}

// Whether the verifier rejects `op` with result `i` of type `mutant`.
bool rejects(Op& op, const Module& module, size_t i, const Type& mutant) {
  Value* result = op.result(i);
  Type original = result->type();
  result->setType(mutant);
  bool rejected = false;
  try {
    checkResultTypes(op, &module);
  } catch (const Error&) {
    rejected = true;
  }
  result->setType(original);
  return rejected;
}

// The typed view of every record attribute converts back to the attribute the parser
// built, so code that reads records typed and writes them back loses nothing.
template <class Record>
void checkRecordRoundTrip(const Op& op, const char* name, const std::string& file, Counts& c) {
  Attribute a = op.attr(name);
  if (!a) return;
  ++c.records;
  if (Record::fromAttr(a).toAttr() != a) {
    ++c.failures;
    ADD_FAILURE() << where(op, file) << ": " << name << " does not survive its typed view";
  }
}

void checkRecords(const Op& op, const std::string& file, Counts& c) {
  checkRecordRoundTrip<DotDims>(op, "dot_dimension_numbers", file, c);
  checkRecordRoundTrip<ScatterDims>(op, "scatter_dimension_numbers", file, c);
  checkRecordRoundTrip<RaggedDotDims>(op, "ragged_dot_dimension_numbers", file, c);
  checkRecordRoundTrip<ChannelHandle>(op, "channel_handle", file, c);
  if (op.is(ops::Convolution) || op.is(ops::DynamicConv))
    checkRecordRoundTrip<ConvDims>(op, "dimension_numbers", file, c);
  if (op.is(ops::Gather) || op.is(ops::DynamicGather))
    checkRecordRoundTrip<GatherDims>(op, "dimension_numbers", file, c);
}

void checkModule(Module& module, const std::string& file, Counts& c) {
  std::vector<Op*> ops;
  for (const auto& fn : module.functions()) walk(fn->body(), [&](Op& op) { ops.push_back(&op); });
  for (Op* op : ops) {
    ++c.ops;
    checkRecords(*op, file, c);
    std::vector<InferredType> inferred;
    try {
      inferred = inferResults(*op, &module);
    } catch (const Error& e) {
      ++c.failures;
      ADD_FAILURE() << where(*op, file) << ": inference failed: " << e.message();
      continue;
    }
    if (inferred.size() != op->numResults()) {
      ++c.failures;
      ADD_FAILURE() << where(*op, file) << ": inferred " << inferred.size() << " results, declared "
                    << op->numResults();
      continue;
    }
    for (size_t i = 0; i < inferred.size(); ++i) {
      ++c.results;
      const Type& declared = op->result(i)->type();
      if (inferred[i].type != declared) {
        ++c.failures;
        ADD_FAILURE() << where(*op, file) << ": result " << i << " inferred "
                      << inferred[i].type.str() << ", declared " << declared.str();
        continue;
      }
      if (!declared.isTensor()) continue;
      if (inferred[i].shapeDetermined) {
        ++c.shapeMutants;
        if (!rejects(*op, module, i, withOtherShape(declared))) {
          ++c.failures;
          ADD_FAILURE() << where(*op, file) << ": accepts result " << i << " of type "
                        << withOtherShape(declared).str() << " instead of " << declared.str();
        }
      }
      if (inferred[i].dtypeDetermined) {
        ++c.dtypeMutants;
        if (!rejects(*op, module, i, withOtherDType(declared))) {
          ++c.failures;
          ADD_FAILURE() << where(*op, file) << ": accepts result " << i << " of type "
                        << withOtherDType(declared).str() << " instead of " << declared.str();
        }
      }
    }
  }
}

TEST(TypeInferenceCorpus, EveryOpOfEveryProgram) {
  fs::path shared = kiln::testing::sharedDir();
  if (shared.empty()) GTEST_SKIP() << "../shared is absent: no programs to infer types for";
  std::map<std::string, Counts> perSuite;
  for (const char* top : {"conformance", "models"}) {
    if (!fs::exists(shared / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(shared / top)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".mlir") continue;
      Counts& c = perSuite[fs::relative(entry.path().parent_path(), shared).string()];
      ++c.files;
      std::string file = entry.path().string();
      std::vector<std::unique_ptr<Module>> modules;
      try {
        modules = stablehlo::parseFile(SourceBuffer::fromFile(file));
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Unsupported) {
          ++c.unsupported;
          continue;
        }
        ++c.failures;
        ADD_FAILURE() << e.format();
        continue;
      }
      for (auto& m : modules) checkModule(*m, file, c);
    }
  }
  Counts total;
  std::printf("%-40s %6s %8s %8s %13s %13s %7s %6s\n", "suite", "files", "ops", "results",
              "shape mutants", "dtype mutants", "records", "failed");
  for (const auto& [suite, c] : perSuite) {
    std::printf("%-40s %6zu %8zu %8zu %13zu %13zu %7zu %6zu\n", suite.c_str(), c.files, c.ops,
                c.results, c.shapeMutants, c.dtypeMutants, c.records, c.failures);
    total.files += c.files;
    total.ops += c.ops;
    total.results += c.results;
    total.shapeMutants += c.shapeMutants;
    total.dtypeMutants += c.dtypeMutants;
    total.records += c.records;
  }
  std::printf("%-40s %6zu %8zu %8zu %13zu %13zu %7zu\n", "all", total.files, total.ops,
              total.results, total.shapeMutants, total.dtypeMutants, total.records);
  EXPECT_GT(total.ops, 0u);
}

}  // namespace
}  // namespace kiln
