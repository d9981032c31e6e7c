// Tables of the StableHLO and CHLO enum and record attributes.
#include "ir/attr_schema.h"

#include <array>
#include <utility>

#include "support/error.h"

namespace kiln {
namespace {

constexpr std::string_view kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr std::string_view kCompareTypes[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
constexpr std::string_view kPrecisions[] = {"DEFAULT", "HIGH", "HIGHEST"};
constexpr std::string_view kFftTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
constexpr std::string_view kDistributions[] = {"UNIFORM", "NORMAL"};
constexpr std::string_view kRngAlgorithms[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
constexpr std::string_view kTransposes[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
constexpr std::string_view kAccuracyModes[] = {"DEFAULT", "HIGHEST", "TOLERANCE"};

struct EnumRow {
  std::string_view name;
  std::span<const std::string_view> values;
};
constexpr EnumRow kEnums[] = {
    {"stablehlo.comparison_direction", kDirections},
    {"stablehlo.comparison_type", kCompareTypes},
    {"stablehlo.precision", kPrecisions},
    {"stablehlo.fft_type", kFftTypes},
    {"stablehlo.rng_distribution", kDistributions},
    {"stablehlo.rng_algorithm", kRngAlgorithms},
    {"stablehlo.transpose", kTransposes},
    {"stablehlo.result_accuracy_mode", kAccuracyModes},
    {"chlo.comparison_direction", kDirections},
    {"chlo.comparison_type", kCompareTypes},
    {"chlo.precision", kPrecisions},
};

RecordField ints(std::string_view name) {
  return {name, FieldKind::I64Array, Attribute::i64Array({}), true};
}
RecordField listAlways(std::string_view name) {
  return {name, FieldKind::I64Array, Attribute::i64Array({}), false};
}
RecordField integer(std::string_view name, bool omit = false) {
  return {name, FieldKind::Int, Attribute::integer(0), omit};
}

const std::vector<RecordSchema>& schemas() {
  static const std::vector<RecordSchema> kSchemas = {
      {"stablehlo.gather",
       {ints("offset_dims"), ints("collapsed_slice_dims"), ints("operand_batching_dims"),
        ints("start_indices_batching_dims"), ints("start_index_map"),
        integer("index_vector_dim", true)}},
      {"stablehlo.scatter",
       {ints("update_window_dims"), ints("inserted_window_dims"), ints("input_batching_dims"),
        ints("scatter_indices_batching_dims"), ints("scatter_dims_to_operand_dims"),
        integer("index_vector_dim", true)}},
      {"stablehlo.dot",
       {ints("lhs_batching_dimensions"), ints("rhs_batching_dimensions"),
        ints("lhs_contracting_dimensions"), ints("rhs_contracting_dimensions")}},
      {"stablehlo.conv",
       {integer("input_batch_dimension"), integer("input_feature_dimension"),
        listAlways("input_spatial_dimensions"), integer("kernel_input_feature_dimension"),
        integer("kernel_output_feature_dimension"), listAlways("kernel_spatial_dimensions"),
        integer("output_batch_dimension"), integer("output_feature_dimension"),
        listAlways("output_spatial_dimensions")}},
      {"stablehlo.dot_algorithm",
       {{"lhs_precision_type", FieldKind::ElementType, Attribute::elementType(DType::F32)},
        {"rhs_precision_type", FieldKind::ElementType, Attribute::elementType(DType::F32)},
        {"accumulation_type", FieldKind::ElementType, Attribute::elementType(DType::F32)},
        {"lhs_component_count", FieldKind::Int, Attribute::integer(1)},
        {"rhs_component_count", FieldKind::Int, Attribute::integer(1)},
        {"num_primitive_operations", FieldKind::Int, Attribute::integer(1)},
        {"allow_imprecise_accumulation", FieldKind::Bool, Attribute::boolean(false)}}},
      {"stablehlo.channel_handle", {integer("handle"), integer("type")}},
      {"stablehlo.output_operand_alias",
       {listAlways("output_tuple_indices"), integer("operand_index"),
        listAlways("operand_tuple_indices")}},
      {"stablehlo.result_accuracy",
       {{"atol", FieldKind::Float, Attribute::floating(0.0), true},
        {"rtol", FieldKind::Float, Attribute::floating(0.0), true},
        {"ulps", FieldKind::Int, Attribute::integer(0), true},
        {"mode", FieldKind::Enum,
         Attribute::enumValue("stablehlo.result_accuracy_mode", "DEFAULT"), false,
         "stablehlo.result_accuracy_mode"}}},
      {"chlo.ragged_dot",
       {ints("lhs_batching_dimensions"), ints("rhs_batching_dimensions"),
        ints("lhs_contracting_dimensions"), ints("rhs_contracting_dimensions"),
        ints("lhs_ragged_dimensions"), ints("rhs_group_dimensions")}},
  };
  return kSchemas;
}

}  // namespace

std::span<const std::string_view> enumValues(std::string_view enumName) {
  for (const EnumRow& row : kEnums)
    if (row.name == enumName) return row.values;
  return {};
}

bool isEnumValue(std::string_view enumName, std::string_view value) {
  for (std::string_view v : enumValues(enumName))
    if (v == value) return true;
  return false;
}

const RecordField* RecordSchema::find(std::string_view field) const {
  for (const RecordField& f : fields)
    if (f.name == field) return &f;
  return nullptr;
}

const RecordSchema* recordSchema(std::string_view recordName) {
  for (const RecordSchema& s : schemas())
    if (s.name == recordName) return &s;
  return nullptr;
}

Attribute makeRecord(std::string_view recordName, const NamedAttrList& values) {
  const RecordSchema* schema = recordSchema(recordName);
  if (!schema) throw Error(ErrorKind::Internal, "no schema for record " + std::string(recordName));
  NamedAttrList fields;
  for (const RecordField& f : schema->fields) {
    Attribute v;  // `values` need not be sorted: a linear search
    for (const NamedAttribute& e : values)
      if (e.name == f.name) v = e.value;
    fields.push_back({std::string(f.name), v ? v : f.defaultValue});
  }
  return Attribute::record(std::string(recordName), std::move(fields));
}

Attribute recordField(const Attribute& record, std::string_view field) {
  if (Attribute a = record.field(field)) return a;
  if (const RecordSchema* schema = recordSchema(record.asString()))
    if (const RecordField* f = schema->find(field)) return f->defaultValue;
  return {};
}

std::vector<int64_t> recordInts(const Attribute& record, std::string_view field) {
  Attribute a = recordField(record, field);
  if (!a.is(Attribute::Kind::DenseArray))
    throw Error(ErrorKind::Internal, "record field '" + std::string(field) + "' is not a list");
  return a.asInts();
}

int64_t recordInt(const Attribute& record, std::string_view field) {
  Attribute a = recordField(record, field);
  if (!a.is(Attribute::Kind::Integer))
    throw Error(ErrorKind::Internal, "record field '" + std::string(field) + "' is not an integer");
  return a.asInt();
}

}  // namespace kiln
