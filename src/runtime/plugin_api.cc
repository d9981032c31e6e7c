// The function table, and the errors' and the plugin's own functions.
#include "runtime/plugin_api.h"

#include <atomic>
#include <iterator>
#include <vector>

#include "runtime/api_call.h"
#include "runtime/api_functions.h"
#include "runtime/mpi_transport.h"

#ifndef KILN_VERSION
#error "KILN_VERSION must be defined (the project version)"
#endif

namespace kiln::runtime {

namespace {
// Set once, by the plugin's entry point, before any function of the table can be called.
std::atomic<const DeviceBackend*> served{nullptr};
}  // namespace

namespace api {

const DeviceBackend& backend() { return *served.load(std::memory_order_acquire); }

KilnError* errorDestroy(KilnErrorDestroyArgs* args) {
  return apiCall("error_destroy", args, [](KilnErrorDestroyArgs& a, const Fits&) {
    std::unique_ptr<KilnError> owned(a.error);  // null: nothing to do, like free(NULL)
  });
}

KilnError* errorInfo(KilnErrorInfoArgs* args) {
  return apiCall("error_info", args, [](KilnErrorInfoArgs& a, const Fits&) {
    const KilnError& e = need(a.error, "error");
    a.code = e.failure.code;
    a.message = e.failure.message.c_str();
    a.message_size = e.failure.message.size();
  });
}

KilnError* pluginAttributes(KilnPluginAttributesArgs* args) {
  return apiCall("plugin_attributes", args, [](KilnPluginAttributesArgs& a, const Fits&) {
    a.name = backend().name();
    a.version = KILN_VERSION;
    // Both plugins implement the same capabilities, since they share everything but
    // compiling and running a program; profiles only from a backend that records them,
    // the mpi communicator only when the plugin was built with MPI.
    static const std::vector<const char*> capabilities = [] {
      std::vector<const char*> list = {KILN_CAPABILITY_MULTI_DEVICE,  KILN_CAPABILITY_SERIALIZE,
                                       KILN_CAPABILITY_DONATION,      KILN_CAPABILITY_CANCELLATION,
                                       KILN_CAPABILITY_COST_ANALYSIS, KILN_CAPABILITY_MEMORY_STATS,
                                       KILN_CAPABILITY_MPMD,          KILN_CAPABILITY_TEXT,
                                       KILN_CAPABILITY_FEEDS};
      if (backend().profiles()) list.push_back(KILN_CAPABILITY_PROFILE);
      if (mpiAvailable()) list.push_back(KILN_CAPABILITY_MPI);
      return list;
    }();
    a.capabilities = capabilities.data();
    a.num_capabilities = capabilities.size();
  });
}

}  // namespace api

const KilnPluginApi* pluginApi(const DeviceBackend& backend) {
  const DeviceBackend* none = nullptr;
  served.compare_exchange_strong(none, &backend, std::memory_order_acq_rel);
  static const KilnPluginApi table = {
      sizeof(KilnPluginApi),
      KILN_PLUGIN_API_MAJOR,
      KILN_PLUGIN_API_MINOR,
      api::errorDestroy,
      api::errorInfo,
      api::pluginAttributes,
      api::clientCreate,
      api::clientDestroy,
      api::clientDevices,
      api::deviceInfo,
      api::memoryInfo,
      api::deviceMemoryStats,
      api::bufferFromHost,
      api::bufferToHost,
      api::bufferInfo,
      api::bufferReadyEvent,
      api::bufferDelete,
      api::bufferDestroy,
      api::bufferCopyToDevice,
      api::compile,
      api::executableDestroy,
      api::executableInfo,
      api::executableValueType,
      api::executableSerialize,
      api::executableDeserialize,
      api::execute,
      api::eventDestroy,
      api::eventIsReady,
      api::eventAwait,
      api::eventOnReady,
      api::executionCancel,
      api::executableWithEntry,
      api::executableStatistics,
      api::executableText,
      api::deviceInfeed,
      api::deviceOutfeed,
  };
  return &table;
}

}  // namespace kiln::runtime
