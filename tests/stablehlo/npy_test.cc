// .npy files: round trips per dtype, big-endian input, and clear errors for what kiln
// cannot read.
#include "stablehlo/npy.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln::stablehlo {
namespace {

TEST(NpyTest, RoundTripsEveryNumPyDType) {
  for (DType t : {DType::I1, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16,
                  DType::U32, DType::U64, DType::F16, DType::F32, DType::F64, DType::C64, DType::C128}) {
    Literal lit(Type::tensor(t, {2, 3}));
    for (int64_t i = 0; i < 6; ++i) {
      if (isFloat(t)) lit.setFloat(i, i * 0.5 - 1);
      else if (isComplex(t)) lit.setComplex(i, {static_cast<double>(i), -1.0 * i});
      else lit.setInt(i, isBool(t) ? i % 2 : i * 7);
    }
    std::string bytes = serializeNpy(lit);
    EXPECT_EQ((bytes.size() - 6 * storageBytes(t)) % 64, 0u) << "data must start 64-byte aligned";
    EXPECT_EQ(parseNpy(bytes), lit) << name(t);
  }
  Literal scalar(Type::scalar(DType::F32));
  scalar.setFloat(0, 2.5);
  EXPECT_EQ(parseNpy(serializeNpy(scalar)), scalar);
}

std::string npyWithHeader(const std::string& header, const std::string& data) {
  std::string h = header;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size());
  out += '\0';
  return out + h + data;
}

TEST(NpyTest, ReadsBigEndian) {
  std::string data("\x00\x00\x00\x01\x00\x00\x00\x02", 8);
  Literal lit = parseNpy(npyWithHeader("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", data));
  EXPECT_EQ(lit.intAt(0), 1);
  EXPECT_EQ(lit.intAt(1), 2);
}

TEST(NpyTest, ClearErrors) {
  auto message = [](const std::string& bytes) {
    try {
      parseNpy(bytes, "x.npy");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("not numpy").find("no NUMPY magic"), std::string::npos);
  EXPECT_NE(message(npyWithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, '\0')))
                .find("Fortran order"),
            std::string::npos);
  EXPECT_NE(message(npyWithHeader("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "")).find("objects"),
            std::string::npos);
  EXPECT_NE(message(npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", std::string(5, '\0')))
                .find("truncated"),
            std::string::npos);
  std::string full = serializeNpy(Literal(Type::tensor(DType::F32, {3})));
  EXPECT_NE(message(full.substr(0, 20)).find("truncated"), std::string::npos);
  EXPECT_THROW(serializeNpy(Literal(Type::tensor(DType::TF32, {1}))), Error);
}

// The types NumPy lacks go under ml_dtypes' names (np.load reads them once ml_dtypes is
// imported), and come back as the same type.
TEST(NpyTest, NarrowTypesRoundTripUnderTheirMlDtypesNames) {
  const std::pair<DType, std::string> named[] = {
      {DType::BF16, "bfloat16"}, {DType::F8E4M3FN, "float8_e4m3fn"}, {DType::F8E5M2, "float8_e5m2"},
      {DType::F8E8M0FNU, "float8_e8m0fnu"}, {DType::F4E2M1FN, "float4_e2m1fn"}, {DType::I4, "int4"},
      {DType::U2, "uint2"}};
  for (const auto& [t, mlName] : named) {
    Literal lit(Type::tensor(t, {2, 2}));
    for (int64_t i = 0; i < 4; ++i) {
      if (isFloat(t)) lit.setFloat(i, t == DType::F8E8M0FNU ? 1 << i : i * 0.5 - 1);
      else lit.setInt(i, isSignedInt(t) ? i - 2 : i);
    }
    const std::string bytes = serializeNpy(lit);
    EXPECT_NE(bytes.find("{'descr': '" + mlName + "',"), std::string::npos) << bytes.substr(10, 40);
    EXPECT_EQ(parseNpy(bytes), lit) << mlName;
  }
  Literal f16(Type::tensor(DType::F16, {1}));
  EXPECT_NE(serializeNpy(f16).find("'<f2'"), std::string::npos);
}

// np.save of an ml_dtypes array writes raw elements ('<V2', '<V1', and '<f1' for
// float8_e5m2): read as the expected type when it is as wide, refused clearly otherwise.
TEST(NpyTest, RawElementsAreReadAsTheExpectedType) {
  const std::string twoBf16("\xc0\x3f\x00\xc0", 4);  // 1.5, -2
  const std::string v2 = npyWithHeader("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", twoBf16);
  Literal lit = parseNpy(v2, "x.npy", DType::BF16);
  EXPECT_EQ(lit.type(), Type::tensor(DType::BF16, {2}));
  EXPECT_EQ(lit.floatAt(0), 1.5);
  EXPECT_EQ(lit.floatAt(1), -2);
  EXPECT_EQ(parseNpy(v2, "x.npy", DType::F16).dtype(), DType::F16);  // as the program says
  const std::string f1 = npyWithHeader("{'descr': '<f1', 'fortran_order': False, 'shape': (1,), }", "\x3c");
  EXPECT_EQ(parseNpy(f1, "x.npy", DType::F8E5M2).floatAt(0), 1.0);
  auto message = [](const std::string& bytes, std::optional<DType> rawAs) {
    try {
      parseNpy(bytes, "x.npy", rawAs);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(v2, std::nullopt).find("no parameter type says what they are"), std::string::npos);
  EXPECT_NE(message(v2, DType::F32).find("but f32 is expected"), std::string::npos);
  EXPECT_NE(message(f1, DType::I8).find("raw 1-byte elements"), std::string::npos);
}

// Bad bytes are a parse error of the file's format; only a file that cannot be read is
// an I/O error (callers tell the user "fix the file" and "fix the path" apart).
TEST(NpyTest, ErrorKindsTellBadBytesFromUnreadableFiles) {
  auto kindOf = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Internal;
  };
  EXPECT_EQ(kindOf([] { parseNpy("not numpy", "x.npy"); }), ErrorKind::Parse);
  std::string full = serializeNpy(Literal(Type::tensor(DType::F32, {3})));
  EXPECT_EQ(kindOf([&] { parseNpy(full.substr(0, full.size() - 1), "x.npy"); }), ErrorKind::Parse);
  EXPECT_EQ(kindOf([] { readNpy("/nonexistent/kiln/x.npy"); }), ErrorKind::Io);
}

}  // namespace
}  // namespace kiln::stablehlo
