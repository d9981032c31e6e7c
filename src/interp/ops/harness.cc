// Kernels: the interpreter's test-harness ops. interpreter.probe writes a value to the
// probe folder (as .npy, listed in index.csv) and check.expect_serialized_eq reads it
// back and compares; interpreter.print prints a value.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>

#include "interp/kernels.h"
#include "ir/ops/testing.h"
#include "stablehlo/npy.h"
#include "stablehlo/printer.h"

namespace kiln::interp {
namespace {

namespace fs = std::filesystem;

const std::string& probeDir(const Op& op, EvalContext& ctx) {
  const std::string& dir = ctx.interpreter().options().probeDir;
  if (dir.empty()) runtimeError(op, "needs a probe folder (kiln run --probe-dir DIR)");
  return dir;
}

// The unsigned integer type of a dtype's storage width, for dtypes NumPy lacks.
DType storageCarrier(DType t) {
  switch (storageBytes(t)) {
    case 1: return DType::U8;
    case 2: return DType::U16;
    case 4: return DType::U32;
    default: return DType::U64;
  }
}

bool npyHasDType(DType t) {
  switch (t) {
    case DType::I1: case DType::I8: case DType::I16: case DType::I32: case DType::I64:
    case DType::U8: case DType::U16: case DType::U32: case DType::U64:
    case DType::F16: case DType::F32: case DType::F64: case DType::C64: case DType::C128:
      return true;
    default:
      return false;
  }
}

HostValues probe(const Op& op, const HostValues& v, EvalContext& ctx) {
  const std::string& dir = probeDir(op, ctx);
  const Literal& value = v[0].tensor();
  fs::path path = fs::path(dir) / ("probe" + std::to_string(ctx.interpreter().nextProbeId()) + ".npy");
  // Types without a NumPy dtype are stored as their raw storage; index.csv has the type.
  Literal carrier = value;
  if (!npyHasDType(value.dtype())) {
    Literal copy = value;
    const uint8_t* bytes = copy.mutableStorage();
    Type raw = value.type().withDType(storageCarrier(value.dtype()));
    carrier = Literal::fromStorage(raw, std::vector<uint8_t>(bytes, bytes + value.type().byteSize()));
  }
  stablehlo::writeNpy(path.string(), carrier);
  std::ofstream index(fs::path(dir) / "index.csv", std::ios::app);
  index << op.attr("probe_id").asString() << "," << value.type().str() << "," << path.string() << "\n";
  if (!index) runtimeError(op, "cannot write " + (fs::path(dir) / "index.csv").string());
  return {v[0]};
}

HostValues expectSerializedEq(const Op& op, const HostValues& v, EvalContext& ctx) {
  const std::string& dir = probeDir(op, ctx);
  const std::string& id = op.attr("probe_id").asString();
  int64_t iteration = op.attrOrDefault("iteration").asInt();
  std::ifstream index(fs::path(dir) / "index.csv");
  std::string line, type, path;
  int64_t seen = 0;
  bool found = false;
  while (!found && std::getline(index, line)) {
    size_t a = line.find(','), b = line.find(',', a + 1);
    if (a == std::string::npos || b == std::string::npos || line.substr(0, a) != id) continue;
    if (seen++ == iteration) {
      type = line.substr(a + 1, b - a - 1);
      path = line.substr(b + 1);
      found = true;
    }
  }
  const Literal& expected = v[0].tensor();
  auto failure = [&](const std::string& message) {
    throw CheckFailed(CheckFailure{std::string(op.name()), op.pos, message});
  };
  if (!found) failure("no probe '" + id + "' (iteration " + std::to_string(iteration) + ") was written");
  if (type != expected.type().str()) failure("probe '" + id + "' has type " + type + ", expected " + expected.type().str());
  Literal stored = stablehlo::readNpy(path);
  if (stored.dtype() != expected.dtype()) {  // stored as raw storage
    Literal copy = stored;
    const uint8_t* bytes = copy.mutableStorage();
    stored = Literal::fromStorage(expected.type(), std::vector<uint8_t>(bytes, bytes + expected.type().byteSize()));
  }
  for (int64_t i = 0, n = expected.numElements(); i < n; ++i) {
    bool equal = isFloat(expected.dtype()) ? stored.floatAt(i) == expected.floatAt(i)
                 : isComplex(expected.dtype()) ? stored.complexAt(i) == expected.complexAt(i)
                                               : stored.bitsAt(i) == expected.bitsAt(i);
    if (!equal) failure("probe '" + id + "' differs at element " + std::to_string(i));
  }
  return {};
}

// Nested-bracket text of a tensor: tensor<2x2xi8> {\n  [\n    [1, 2],\n ...}
void printNested(std::ostringstream& out, const Literal& lit, size_t dim, int64_t& index, int indent) {
  const Shape& shape = lit.shape();
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  if (dim + 1 >= shape.size()) {
    out << pad << "[";
    for (int64_t k = 0; k < (shape.empty() ? 1 : shape[dim]); ++k) {
      if (k) out << ", ";
      DType t = lit.dtype();
      if (isFloat(t)) out << stablehlo::printFloat(lit.floatAt(index), t);
      else if (isBool(t)) out << (lit.boolAt(index) ? "true" : "false");
      else if (isUnsignedInt(t)) out << lit.uintAt(index);
      else if (isComplex(t)) {
        auto c = lit.complexAt(index);
        out << "[" << stablehlo::printFloat(c.real(), complexPart(t)) << ", "
            << stablehlo::printFloat(c.imag(), complexPart(t)) << "]";
      } else out << lit.intAt(index);
      ++index;
    }
    out << "]";
    return;
  }
  out << pad << "[\n";
  for (int64_t k = 0; k < shape[dim]; ++k) {
    if (k) out << ",\n";
    printNested(out, lit, dim + 1, index, indent + 1);
  }
  out << "\n" << pad << "]";
}

HostValues print(const Op&, const HostValues& v, EvalContext& ctx) {
  static std::mutex printMutex;  // one print at a time, also across run_parallel threads
  std::ostringstream out;
  const HostValue& value = v[0];
  if (value.isTensor()) {
    const Literal& lit = value.tensor();
    out << lit.type().str() << " {";
    if (lit.type().rank() == 0) {
      int64_t index = 0;
      std::ostringstream scalar;
      printNested(scalar, lit, 0, index, 0);
      std::string s = scalar.str();
      out << s.substr(1, s.size() - 2) << "}\n";
    } else {
      out << "\n";
      int64_t index = 0;
      printNested(out, lit, 0, index, 1);
      out << "\n}\n";
    }
  } else {
    out << value.type().str() << "\n";
  }
  std::lock_guard<std::mutex> lock(printMutex);
  if (ctx.interpreter().options().print) ctx.interpreter().options().print(out.str());
  else std::cout << out.str() << std::flush;
  return {};
}

}  // namespace

void addHarnessKernels(KernelTable& t) {
  t.set(ops::InterpreterProbe, &probe);
  t.set(ops::CheckExpectSerializedEq, &expectSerializedEq);
  t.set(ops::InterpreterPrint, &print);
}

}  // namespace kiln::interp
