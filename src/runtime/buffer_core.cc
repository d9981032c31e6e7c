// Buffers: tokens, copies back to host memory and to other devices. Copies run when the
// buffer becomes ready (out) or on the device's queue (between devices), never in the call.
#include <cstring>

#include "runtime/api_call.h"
#include "runtime/host_memory.h"
#include "runtime/plugin_core.h"

namespace kiln::runtime::core {

std::shared_ptr<BufferState> token(DeviceCore& device) {
  auto token = std::make_shared<BufferState>(Type::token(), &device, device.deviceMemory);
  token->fill(interp::HostValue::token());
  return token;
}

EventRef copyToHost(const std::shared_ptr<BufferState>& buffer, void* dst, size_t size) {
  if (size != static_cast<size_t>(buffer->bytes))
    invalid("dst_size is " + std::to_string(size) + ", the buffer (" + buffer->type.str() + ") holds " +
            std::to_string(buffer->bytes) + " bytes");
  if (buffer->bytes > 0 && !dst) invalid("dst is null");
  auto done = std::make_shared<Completion>();
  buffer->use();  // the last check: nothing after it throws
  buffer->ready->onReady([state = buffer, dst, done](const std::optional<Failure>& failure) {
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
  return done;
}

std::shared_ptr<BufferState> copyToDevice(const std::shared_ptr<BufferState>& buffer, DeviceCore& dst) {
  if (dst.client != buffer->device->client) invalid("the destination device belongs to another client");
  auto copy = std::make_shared<BufferState>(buffer->type, &dst, dst.deviceMemory);
  buffer->use();  // the last check: nothing after it throws
  buffer->ready->onReady([src = buffer, copy, queue = dst.queue](const std::optional<Failure>& failure) {
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
  return copy;
}

}  // namespace kiln::runtime::core
