// PJRT's shardings extension (see shardings_extension.h). A program compiled for several
// partitions with use_spmd_partitioning is partitioned by kiln (executable_core.cc); its
// per-device function keeps the shardings partitioning chose on its parameters and
// results, which this extension reports as xla.OpSharding protos. A framework lays out
// the arguments and assembles the results by them, so they must be the ones the program
// runs with, not the ones it was given.
#include "runtime/pjrt/shardings_extension.h"

#include <cstring>

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
Shardings shardingsOf(const Module& module, const std::vector<Type>& types,
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
        shardingsOf(module, info.params, [&](size_t i) { return paramSharding(module, fn, i); });
    handle.outputShardings =
        shardingsOf(module, info.results, [&](size_t i) { return resultSharding(module, fn, i); });
  });
  return handle;
}

PJRT_Error* parameterShardings(PJRT_Shardings_PJRT_Executable_ParameterShardings_Args* args) {
  return call("PJRT_Shardings_PJRT_Executable_ParameterShardings", args,
              [](PJRT_Shardings_PJRT_Executable_ParameterShardings_Args& a, const Fits&) {
                const CompiledProgramHandle& handle = withShardings(a.executable);
                const std::optional<Shardings>& s = handle.parameterShardings;
                a.num_parameters = s ? s->bytes.size() : handle.kiln->info->params.size();
                a.shardings = s ? s->data.data() : nullptr;
                a.sharding_sizes = s ? s->sizes.data() : nullptr;
              });
}

PJRT_Error* outputShardings(PJRT_Shardings_PJRT_Executable_OutputShardings_Args* args) {
  return call("PJRT_Shardings_PJRT_Executable_OutputShardings", args,
              [](PJRT_Shardings_PJRT_Executable_OutputShardings_Args& a, const Fits&) {
                const CompiledProgramHandle& handle = withShardings(a.executable);
                const std::optional<Shardings>& s = handle.outputShardings;
                a.num_outputs = s ? s->bytes.size() : handle.kiln->info->results.size();
                a.shardings = s ? s->data.data() : nullptr;
                a.sharding_sizes = s ? s->sizes.data() : nullptr;
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
