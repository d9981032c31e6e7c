// PJRT's shardings extension (see shardings_extension.h). A program compiled for several
// partitions with use_spmd_partitioning is partitioned by kiln (executable_core.cc); its
// per-device function keeps the shardings partitioning chose on its parameters and
// results, which this extension reports as xla.OpSharding protos. A framework lays out
// the arguments and assembles the results by them, so they must be the ones the program
// runs with, not the ones it was given.
#include "runtime/pjrt/shardings_extension.h"

#include <cstring>
#include <tuple>

#include "ir/sharding_attrs.h"
#include "kiln/pjrt/shardings_extension.h"
#include "passes/sharding/spmd_partition.h"
#include "runtime/op_sharding_proto.h"
#include "runtime/pjrt/executables.h"
#include "runtime/pjrt/pjrt_call.h"

namespace kiln::runtime::pjrt {

namespace {

using Shardings = CompiledProgramHandle::Shardings;

// Each value's sharding, replicated where the function gives none.
Shardings shardingsOf(const std::vector<Type>& types,
                      const std::function<std::optional<Sharding>(size_t)>& given) {
  Shardings out;
  for (size_t i = 0; i < types.size(); ++i) {
    std::optional<Sharding> s = given(i);
    out.bytes.push_back(s ? proto::writeOpSharding(*s) : std::string());
  }
  for (const std::string& b : out.bytes) {
    out.data.push_back(b.data());
    out.sizes.push_back(b.size());
  }
  return out;
}

// Made once per program: none unless kiln partitioned it.
CompiledProgramHandle& withShardings(const PJRT_Executable* executable) {
  CompiledProgramHandle& handle = const_cast<CompiledProgramHandle&>(programOf(executable));
  std::call_once(handle.shardingsMade, [&] {
    const ProgramInfo& info = *handle.kiln->info;
    const Module& module = info.program->module();
    if (!findAttr(module.attrs, passes::kPartitionedAttr)) return;
    const Function& fn = info.program->entry();
    handle.parameterShardings =
        shardingsOf(info.params, [&](size_t i) { return paramSharding(module, fn, i); });
    handle.outputShardings =
        shardingsOf(info.results, [&](size_t i) { return resultSharding(module, fn, i); });
  });
  return handle;
}

// One call's answer: how many values, and their shardings (null when none).
struct Answer {
  size_t count = 0;
  const char* const* data = nullptr;
  const size_t* sizes = nullptr;
};
Answer answerFor(const PJRT_Executable* executable, bool outputs) {
  const CompiledProgramHandle& handle = withShardings(executable);
  const std::optional<Shardings>& s = outputs ? handle.outputShardings : handle.parameterShardings;
  const ProgramInfo& info = *handle.kiln->info;
  if (!s) return {outputs ? info.results.size() : info.params.size()};
  return {s->bytes.size(), s->data.data(), s->sizes.data()};
}

PJRT_Error* parameterShardings(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args* args) {
  return call("PJRT_Shardings_PJRT_Executable_ParameterShardings", args,
              [](PJRT_Shardings_PJRT_Executable_ParameterShardings_Args& a, const Fits&) {
                const Answer r = answerFor(a.executable, false);
                std::tie(a.num_parameters, a.shardings, a.sharding_sizes) = std::tie(r.count, r.data, r.sizes);
              });
}

PJRT_Error* outputShardings(PJRT_Shardings_PJRT_Executable_OutputShardings_Args* args) {
  return call("PJRT_Shardings_PJRT_Executable_OutputShardings", args,
              [](PJRT_Shardings_PJRT_Executable_OutputShardings_Args& a, const Fits&) {
                const Answer r = answerFor(a.executable, true);
                std::tie(a.num_outputs, a.shardings, a.sharding_sizes) = std::tie(r.count, r.data, r.sizes);
              });
}

}  // namespace

const PJRT_Extension_Base* shardingsExtension(const PJRT_Extension_Base* next) {
  static const PJRT_Shardings_Extension extension = [&] {
    PJRT_Shardings_Extension e{};
    e.base.struct_size = PJRT_Shardings_Extension_STRUCT_SIZE;
    e.base.type = PJRT_Extension_Type_Shardings;
    e.base.next = const_cast<PJRT_Extension_Base*>(next);
    e.PJRT_Shardings_PJRT_Executable_ParameterShardings = parameterShardings;
    e.PJRT_Shardings_PJRT_Executable_OutputShardings = outputShardings;
    return e;
  }();
  return &extension.base;
}

}  // namespace kiln::runtime::pjrt
