// The .npy format: a magic string, a version, a Python-dict header, then raw data.
#include "stablehlo/npy.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "support/atomic_file.h"
#include "support/error.h"

namespace kiln::stablehlo {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

// NumPy's dtype letters for kiln's dtypes (the byte order is added separately), and the
// names ml_dtypes registers with NumPy for the types NumPy lacks: such a file's descr is
// the bare name ('bfloat16'), which np.load reads once ml_dtypes is imported.
struct NpyType {
  DType dtype;
  const char* code;  // kind letter + item size ("f4"), or the ml_dtypes name
  bool mlDtypes = false;
};
constexpr NpyType kTypes[] = {
    {DType::I1, "b1"},
    {DType::I8, "i1"},
    {DType::I16, "i2"},
    {DType::I32, "i4"},
    {DType::I64, "i8"},
    {DType::U8, "u1"},
    {DType::U16, "u2"},
    {DType::U32, "u4"},
    {DType::U64, "u8"},
    {DType::F16, "f2"},
    {DType::F32, "f4"},
    {DType::F64, "f8"},
    {DType::C64, "c8"},
    {DType::C128, "c16"},
    {DType::BF16, "bfloat16", true},
    {DType::F8E3M4, "float8_e3m4", true},
    {DType::F8E4M3, "float8_e4m3", true},
    {DType::F8E4M3FN, "float8_e4m3fn", true},
    {DType::F8E4M3FNUZ, "float8_e4m3fnuz", true},
    {DType::F8E4M3B11FNUZ, "float8_e4m3b11fnuz", true},
    {DType::F8E5M2, "float8_e5m2", true},
    {DType::F8E5M2FNUZ, "float8_e5m2fnuz", true},
    {DType::F8E8M0FNU, "float8_e8m0fnu", true},
    {DType::F4E2M1FN, "float4_e2m1fn", true},
    {DType::F6E2M3FN, "float6_e2m3fn", true},
    {DType::F6E3M2FN, "float6_e3m2fn", true},
    {DType::I2, "int2", true},
    {DType::I4, "int4", true},
    {DType::U2, "uint2", true},
    {DType::U4, "uint4", true},
};

[[noreturn]] void bad(const std::string& name, const std::string& why) {
  throw Error(ErrorKind::Parse, name + ": not a valid .npy file: " + why);
}

// The value of `key` in the header dict: the text between "'key':" and the next
// top-level comma or closing brace.
std::string headerField(const std::string& header, const std::string& key, const std::string& name) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) bad(name, "the header has no '" + key + "'");
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) bad(name, "malformed header");
  size_t start = colon + 1, end = start;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  std::string value = header.substr(start, end - start);
  value.erase(0, value.find_first_not_of(" "));
  value.erase(value.find_last_not_of(" ") + 1);
  return value;
}

Shape parseShape(const std::string& text, const std::string& name) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') bad(name, "bad shape " + text);
  Shape shape;
  std::string inner = text.substr(1, text.size() - 2);
  size_t pos = 0;
  while (pos < inner.size()) {
    size_t comma = inner.find(',', pos);
    std::string item = inner.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    item.erase(0, item.find_first_not_of(" "));
    item.erase(item.find_last_not_of(" ") + 1);
    if (!item.empty()) {
      if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 15)
        bad(name, "bad dimension '" + item + "'");
      shape.push_back(std::stoll(item));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  // The same bound as tensor types in text (attr_parser.cc): no size computation overflows.
  int64_t total = 1;
  for (int64_t d : shape) {
    if (d != 0 && total > (int64_t{1} << 48) / d) bad(name, "shape " + text + " has too many elements");
    total *= d;
  }
  return shape;
}

}  // namespace

Literal parseNpy(const std::string& bytes, const std::string& name, std::optional<DType> rawAs) {
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) bad(name, "no NUMPY magic string");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(name, "truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i) headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    bad(name, "unknown format version " + std::to_string(major));
  }
  if (headerStart + headerLen > bytes.size()) bad(name, "truncated header");
  std::string header = bytes.substr(headerStart, headerLen);

  std::string descr = headerField(header, "descr", name);
  if (descr.size() < 3 || (descr.front() != '\'' && descr.front() != '"')) bad(name, "bad descr " + descr);
  descr = descr.substr(1, descr.size() - 2);
  if (descr.find('O') != std::string::npos)
    throw Error(ErrorKind::Unsupported, "unsupported: " + name + " holds Python objects (pickled data)");
  const NpyType* type = nullptr;
  char order = '|';
  for (const NpyType& t : kTypes)
    if (t.mlDtypes && descr == t.code) type = &t;
  if (!type) {
    order = descr[0];
    if (order != '<' && order != '>' && order != '|' && order != '=') bad(name, "bad byte order in " + descr);
    const std::string code = descr.substr(1);
    for (const NpyType& t : kTypes)
      if (!t.mlDtypes && code == t.code) type = &t;
    // np.save of an ml_dtypes array writes raw bytes: '<V2' for bfloat16, '<V1' for most
    // 1-byte types, '<f1' (which NumPy itself cannot load) for float8_e5m2. They are the
    // expected type's when its elements are that wide.
    const bool raw = code == "f1" || (code.size() >= 2 && code.size() < 4 && code[0] == 'V' &&
                                      code.find_first_not_of("0123456789", 1) == std::string::npos);
    if (!type && raw && rawAs && storageBytes(*rawAs) == std::stoi(code.substr(1)) && (code[0] == 'V' || isFloat(*rawAs)))
      for (const NpyType& t : kTypes)
        if (t.dtype == *rawAs) type = &t;
    if (!type && raw)
      throw Error(ErrorKind::Unsupported, "unsupported: " + name + " has raw " + code.substr(1) +
                                              "-byte elements ('" + descr + "', as np.save writes an ml_dtypes array)" +
                                              (rawAs ? ", but " + std::string(kiln::name(*rawAs)) + " is expected"
                                                     : std::string(" and no parameter type says what they are")));
  }
  if (!type) throw Error(ErrorKind::Unsupported, "unsupported: " + name + " has dtype '" + descr + "'");
  if (headerField(header, "fortran_order", name) != "False")
    throw Error(ErrorKind::Unsupported, "unsupported: " + name + " is in Fortran order (save it C-contiguous)");
  Shape shape = parseShape(headerField(header, "shape", name), name);

  Type tensorType = Type::tensor(type->dtype, shape);
  size_t dataStart = headerStart + headerLen;
  size_t need = static_cast<size_t>(tensorType.byteSize());
  if (bytes.size() - dataStart < need)
    throw Error(ErrorKind::Parse, name + ": truncated: " + std::to_string(bytes.size() - dataStart) +
                                      " data bytes, " + tensorType.str() + " needs " + std::to_string(need));
  std::vector<uint8_t> data(bytes.begin() + static_cast<std::ptrdiff_t>(dataStart),
                            bytes.begin() + static_cast<std::ptrdiff_t>(dataStart + need));
  // Big-endian data: swap each scalar (complex numbers: each part).
  size_t scalar = static_cast<size_t>(storageBytes(type->dtype)) / (isComplex(type->dtype) ? 2 : 1);
  if (order == '>' && scalar > 1)
    for (size_t off = 0; off < data.size(); off += scalar) std::reverse(data.begin() + off, data.begin() + off + scalar);
  if (type->dtype == DType::I1)
    for (uint8_t& b : data) b = b != 0;
  return Literal::fromStorage(tensorType, std::move(data));
}

Literal readNpy(const std::string& path, std::optional<DType> rawAs) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, "cannot open '" + path + "'");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseNpy(bytes, path, rawAs);
}

std::string serializeNpy(const Literal& value) {
  const NpyType* type = nullptr;
  for (const NpyType& t : kTypes)
    if (t.dtype == value.dtype()) type = &t;
  if (!type)
    throw Error(ErrorKind::Unsupported, "unsupported: " + std::string(name(value.dtype())) +
                                            " has no NumPy or ml_dtypes dtype for .npy files");
  std::string shape = "(";
  for (int64_t d : value.shape()) shape += std::to_string(d) + ", ";
  if (value.shape().size() > 1) shape.resize(shape.size() - 2);
  else if (value.shape().size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  const std::string order = type->mlDtypes ? "" : type->code[0] == 'b' || type->code[1] == '1' ? "|" : "<";
  std::string header = "{'descr': '" + order + type->code + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary; the header ends with a newline.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  if (value.numElements() > 0) {
    Literal full = value;
    const uint8_t* data = full.mutableStorage();  // expands splats
    out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(value.type().byteSize()));
  }
  return out;
}

void writeNpy(const std::string& path, const Literal& value) {
  writeFileAtomically(path, serializeNpy(value));
}

}  // namespace kiln::stablehlo
