// Buffers: in from host memory and back out, between devices, and deleted. Copies run
// on the device's queue (in) or when the buffer becomes ready (out), never in the call.
#include <cstring>

#include "runtime/api_call.h"
#include "runtime/api_functions.h"
#include "runtime/dtype_codes.h"
#include "runtime/host_memory.h"

namespace kiln::runtime::api {

namespace {

KilnDevice& deviceOf(KilnClient& client, KilnDevice* device, const char* what) {
  KilnDevice& d = need(device, what);
  if (d.client != &client) invalid(std::string(what) + " belongs to another client");
  return d;
}

}  // namespace

KilnError* bufferFromHost(KilnBufferFromHostArgs* args) {
  return apiCall("buffer_from_host", args, [](KilnBufferFromHostArgs& a, const Fits& fits) {
    fits.requireOut(a.buffer, "buffer");
    KilnClient& client = need(a.client, "client");
    KilnDevice& device = deviceOf(client, a.device, "device");
    const auto code = rawEnum(a.dtype);
    if (code == KILN_DTYPE_TOKEN) {
      if (a.num_dims > 0) invalid("a token has no dims; num_dims is " + std::to_string(a.num_dims));
      auto token = std::make_shared<BufferState>(Type::token(), &device, device.deviceMemory);
      token->fill(interp::HostValue::token());
      if (fits(a.done_with_host)) a.done_with_host = std::make_unique<KilnEvent>(KilnEvent{token->ready, {}}).release();
      a.buffer = std::make_unique<KilnBuffer>(KilnBuffer{std::move(token)}).release();
      return;
    }
    auto state = std::make_shared<BufferState>(tensorTypeFromArgs(code, a.dims, a.num_dims), &device,
                                               device.deviceMemory);
    requireData(state->type, a.data, "data");
    const void* data = a.data;
    device.queue->push([state, data] {
      try {
        state->fill(valueFromHost(state->type, data));
      } catch (...) {
        state->fail(currentFailure());
      }
    });
    // The host memory is read once, by the copy that makes the buffer ready.
    if (fits(a.done_with_host)) a.done_with_host = std::make_unique<KilnEvent>(KilnEvent{state->ready}).release();
    a.buffer = std::make_unique<KilnBuffer>(KilnBuffer{std::move(state)}).release();
  });
}

KilnError* bufferToHost(KilnBufferToHostArgs* args) {
  return apiCall("buffer_to_host", args, [](KilnBufferToHostArgs& a, const Fits& fits) {
    fits.requireOut(a.event, "event");
    std::shared_ptr<BufferState> state = need(a.buffer, "buffer").state;
    if (a.dst_size != static_cast<size_t>(state->bytes))
      invalid("dst_size is " + std::to_string(a.dst_size) + ", the buffer (" + state->type.str() + ") holds " +
              std::to_string(state->bytes) + " bytes");
    if (state->bytes > 0 && !a.dst) invalid("dst is null");
    auto done = std::make_shared<Event>();
    state->use();  // the last check: nothing after it throws
    state->ready->onReady([state, dst = a.dst, done](const std::optional<Failure>& failure) {
      if (failure) {
        state->endUse();
        return done->set(failure);
      }
      try {
        copyElements(state->take(), dst);
        done->set();
      } catch (...) {
        done->set(currentFailure());
      }
    });
    a.event = std::make_unique<KilnEvent>(KilnEvent{std::move(done)}).release();
  });
}

KilnError* bufferDelete(KilnBufferDeleteArgs* args) {
  return apiCall("buffer_delete", args,
                 [](KilnBufferDeleteArgs& a, const Fits&) { need(a.buffer, "buffer").state->remove(); });
}

KilnError* bufferDestroy(KilnBufferDestroyArgs* args) {
  return apiCall("buffer_destroy", args, [](KilnBufferDestroyArgs& a, const Fits&) {
    // Only the handle goes: reads queued with the buffer still read it, and its memory
    // is freed when the last of them has (BufferState::dropHandle).
    std::unique_ptr<KilnBuffer> buffer(&need(a.buffer, "buffer"));
    buffer->state->dropHandle();
  });
}

KilnError* bufferCopyToDevice(KilnBufferCopyToDeviceArgs* args) {
  return apiCall("buffer_copy_to_device", args, [](KilnBufferCopyToDeviceArgs& a, const Fits& fits) {
    fits.requireOut(a.dst_buffer, "dst_buffer");
    std::shared_ptr<BufferState> src = need(a.buffer, "buffer").state;
    KilnDevice& dst = deviceOf(*src->device->client, a.dst_device, "dst_device");
    auto copy = std::make_shared<BufferState>(src->type, &dst, dst.deviceMemory);
    src->use();  // the last check: nothing after it throws
    src->ready->onReady([src, copy, queue = dst.queue](const std::optional<Failure>& failure) {
      if (failure) {
        src->endUse();
        return copy->fail(*failure);
      }
      try {
        queue->push([src, copy] {
          try {
            // The elements are shared until either side writes (Literal copies on write).
            copy->fill(src->take());
          } catch (...) {
            copy->fail(currentFailure());
          }
        });
      } catch (...) {
        src->endUse();
        copy->fail(currentFailure());
      }
    });
    a.dst_buffer = std::make_unique<KilnBuffer>(KilnBuffer{std::move(copy)}).release();
  });
}

}  // namespace kiln::runtime::api
