// Events: polled, awaited, or given a callback; destroying one does not cancel the work.
#include "runtime/api_call.h"
#include "runtime/api_functions.h"

namespace kiln::runtime::api {

KilnError* eventDestroy(KilnEventDestroyArgs* args) {
  return apiCall("event_destroy", args, [](KilnEventDestroyArgs& a, const Fits&) {
    std::unique_ptr<KilnEvent> owned(&need(a.event, "event"));
  });
}

KilnError* eventIsReady(KilnEventIsReadyArgs* args) {
  return apiCall("event_is_ready", args, [](KilnEventIsReadyArgs& a, const Fits&) {
    a.is_ready = need(a.event, "event").event->isReady() ? 1 : 0;
  });
}

KilnError* eventAwait(KilnEventAwaitArgs* args) {
  // The work's own failure is the result, as it is, not prefixed like a misuse of await.
  std::optional<Failure> failure;
  if (KilnError* e = apiCall("event_await", args,
                             [&](KilnEventAwaitArgs& a, const Fits&) { failure = need(a.event, "event").event->await(); }))
    return e;
  return failure ? newError(*failure) : nullptr;
}

KilnError* eventOnReady(KilnEventOnReadyArgs* args) {
  return apiCall("event_on_ready", args, [](KilnEventOnReadyArgs& a, const Fits&) {
    KilnEvent& event = need(a.event, "event");
    if (!a.callback) invalid("callback is null");
    event.event->onReady([callback = a.callback, user = a.user_arg](const std::optional<Failure>& failure) {
      callback(failure ? newError(*failure) : nullptr, user);
    });
  });
}

}  // namespace kiln::runtime::api
