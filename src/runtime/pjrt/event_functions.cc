// PJRT's events, over the plugin's: polled, awaited, or given a callback, which owns the
// error it is called with.
#include <memory>

#include "runtime/pjrt/pjrt_call.h"
#include "runtime/pjrt/pjrt_functions.h"
#include "runtime/pjrt/pjrt_objects.h"

namespace kiln::runtime::pjrt::functions {

namespace {
const EventRef& eventOf(PJRT_Event* event) { return need(event, "event").event; }
PJRT_Error* errorOf(const std::optional<Failure>& failure) { return failure ? pjrtError(*failure) : nullptr; }
}  // namespace

PJRT_Error* eventDestroy(PJRT_Event_Destroy_Args* args) {
  return call("PJRT_Event_Destroy", args, [](PJRT_Event_Destroy_Args& a, const Fits&) {
    destroyed(a.event, "event");
  });
}

PJRT_Error* eventIsReady(PJRT_Event_IsReady_Args* args) {
  return call("PJRT_Event_IsReady", args, [](PJRT_Event_IsReady_Args& a, const Fits&) {
    a.is_ready = eventOf(a.event)->isReady();
  });
}

// The event's own failure is what this returns, not a failure of the call.
PJRT_Error* eventError(PJRT_Event_Error_Args* args) {
  PJRT_Error* failure = nullptr;
  PJRT_Error* error = call("PJRT_Event_Error", args, [&](PJRT_Event_Error_Args& a, const Fits&) {
    const EventRef& event = eventOf(a.event);
    if (!event->isReady()) throw ApiFailure(FailureCode::FailedPrecondition, "the event is not ready (await it first)");
    failure = errorOf(event->await());
  });
  return error ? error : failure;
}

PJRT_Error* eventAwait(PJRT_Event_Await_Args* args) {
  PJRT_Error* failure = nullptr;
  PJRT_Error* error = call("PJRT_Event_Await", args, [&](PJRT_Event_Await_Args& a, const Fits&) {
    failure = errorOf(eventOf(a.event)->await());
  });
  return error ? error : failure;
}

PJRT_Error* eventOnReady(PJRT_Event_OnReady_Args* args) {
  return call("PJRT_Event_OnReady", args, [](PJRT_Event_OnReady_Args& a, const Fits&) {
    const EventRef& event = eventOf(a.event);
    if (!a.callback) invalid("callback is null");
    event->onReady([callback = a.callback, user = a.user_arg](const std::optional<Failure>& failure) {
      callback(errorOf(failure), user);
    });
  });
}

}  // namespace kiln::runtime::pjrt::functions
