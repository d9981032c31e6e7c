// PJRT's error objects: made here, read and destroyed through the table each error
// starts with, so that the entry points below also serve errors another library made
// (a framework's callbacks return errors of its own).
#include <memory>

#include "runtime/pjrt/pjrt_call.h"
#include "runtime/pjrt/pjrt_functions.h"
#include "runtime/pjrt/pjrt_objects.h"

namespace kiln::runtime::pjrt {

namespace {

const ErrorObject& object(const PJRT_Error* error) { return *static_cast<const ErrorObject*>(error); }

const PJRT_Error_FunctionTable kErrorFunctions = {
    PJRT_Error_FunctionTable_STRUCT_SIZE,
    PJRT_Error_STRUCT_SIZE,
    nullptr,
    [](PJRT_Error* error) { delete static_cast<ErrorObject*>(error); },
    [](const PJRT_Error* error, const char** message, size_t* size) {
      *message = object(error).message.data();
      *size = object(error).message.size();
    },
    [](const PJRT_Error* error) { return object(error).code; },
    // kiln's errors carry no payloads.
    [](const PJRT_Error*, PJRT_Error_PayloadVisitor, void*) {},
};

}  // namespace

PJRT_Error_Code codeOf(FailureCode code) {
  switch (code) {
    case FailureCode::InvalidArgument: return PJRT_Error_Code_INVALID_ARGUMENT;
    case FailureCode::Unimplemented: return PJRT_Error_Code_UNIMPLEMENTED;
    case FailureCode::FailedPrecondition: return PJRT_Error_Code_FAILED_PRECONDITION;
    case FailureCode::ResourceExhausted: return PJRT_Error_Code_RESOURCE_EXHAUSTED;
    case FailureCode::Io: return PJRT_Error_Code_DATA_LOSS;  // damaged files and serialized executables
    case FailureCode::Runtime: return PJRT_Error_Code_INTERNAL;  // as XLA reports failures of a running program
    case FailureCode::Internal: return PJRT_Error_Code_INTERNAL;
    case FailureCode::Cancelled: return PJRT_Error_Code_CANCELLED;
    case FailureCode::Unknown: break;
  }
  return PJRT_Error_Code_UNKNOWN;
}

PJRT_Error* pjrtError(const Failure& failure) {
  auto error = std::make_unique<ErrorObject>();
  error->vtable = &kErrorFunctions;
  error->code = codeOf(failure.code);
  error->message = failure.message;
  return error.release();
}

namespace functions {

// Destroy and Message return nothing: a caller's mistake has no error to return, so they
// do nothing with null args.
void errorDestroy(PJRT_Error_Destroy_Args* args) {
  if (args && args->struct_size >= PJRT_Error_Destroy_Args_STRUCT_SIZE && args->error)
    args->error->vtable->destroy(args->error);
}

void errorMessage(PJRT_Error_Message_Args* args) {
  if (!args || args->struct_size < PJRT_Error_Message_Args_STRUCT_SIZE) return;
  args->message = "";
  args->message_size = 0;
  if (args->error) args->error->vtable->message(args->error, &args->message, &args->message_size);
}

PJRT_Error* errorGetCode(PJRT_Error_GetCode_Args* args) {
  return call("PJRT_Error_GetCode", args, [](PJRT_Error_GetCode_Args& a, const Fits&) {
    a.code = need(a.error, "error").vtable->get_code(a.error);
  });
}

PJRT_Error* errorForEachPayload(PJRT_Error_ForEachPayload_Args* args) {
  return call("PJRT_Error_ForEachPayload", args, [](PJRT_Error_ForEachPayload_Args& a, const Fits&) {
    const PJRT_Error& error = need(a.error, "error");
    if (!a.visitor) invalid("visitor is null");
    error.vtable->for_each_payload(&error, a.visitor, a.user_arg);
  });
}

}  // namespace functions
}  // namespace kiln::runtime::pjrt
