// PJRT's buffers, over the plugin's: in from host memory (strided or not), back out,
// between devices, and deleted. Copies run on the device's queue, except where PJRT's
// host-buffer semantics or strides ask for the bytes to be read during the call.
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/plugin_core.h"
#include "runtime/host_memory.h"
#include "runtime/buffer_types.h"
#include "runtime/pjrt/pjrt_call.h"
#include "runtime/pjrt/pjrt_functions.h"
#include "runtime/pjrt/pjrt_objects.h"

namespace kiln::runtime::pjrt {

namespace {

PJRT_Buffer& bufferOf(PJRT_Buffer* buffer, const char* what = "buffer") { return need(buffer, what); }

PJRT_Event* newEvent(EventRef event) { return handedOut(new PJRT_Event{std::move(event), nullptr}); }

EventRef readyEvent() {
  auto event = std::make_shared<Completion>();
  event->set();
  return event;
}

PJRT_Buffer* newBuffer(std::shared_ptr<BufferState> state, PJRT_Device* device) {
  return handedOut(new PJRT_Buffer{std::move(state), device});
}

// The device a buffer is made on: the memory's, else the device named (one of them must
// be there), of this client.
PJRT_Device& targetDevice(const PJRT_Client& client, PJRT_Device* device, PJRT_Memory* memory) {
  PJRT_Device* target = memory ? static_cast<MemoryObject*>(memory)->device : device;
  if (!target) invalid("both device and memory are null");
  for (PJRT_Device* d : client.handles)
    if (d == target) return *target;
  invalid("the device belongs to another client");
}

// Row-major strides of a dense value of `type`.
std::vector<int64_t> denseStrides(const Type& type) {
  std::vector<int64_t> strides(type.shape().size());
  int64_t step = storageBytes(type.dtype());
  for (size_t i = strides.size(); i-- > 0;) {
    strides[i] = step;
    step *= type.shape()[i];
  }
  return strides;
}

// A layout kiln can take: none (dense, major-to-minor), or exactly that.
void requireDenseLayout(const PJRT_Buffer_MemoryLayout* layout, const Type& type, const char* what) {
  if (!layout) return;
  // Its struct_size is not checked: jaxlib 0.10.2's layout converter fills in the type and
  // the tiled layout but leaves struct_size as the stack had it (0 at times).
  const int kind = rawEnum(layout->type);
  if (kind == PJRT_Buffer_MemoryLayout_Type_Strides) {
    const auto& s = layout->strides;
    if (s.num_byte_strides > 0 && !s.byte_strides) invalid(std::string(what) + "'s byte_strides is null");
    if (s.num_byte_strides == 0 ||
        std::vector<int64_t>(s.byte_strides, s.byte_strides + s.num_byte_strides) == denseStrides(type))
      return;
  } else if (kind == PJRT_Buffer_MemoryLayout_Type_Tiled) {
    const auto& t = layout->tiled;
    if (t.minor_to_major_size > 0 && !t.minor_to_major) invalid(std::string(what) + "'s minor_to_major is null");
    bool majorToMinor = t.num_tiles == 0 && t.minor_to_major_size == type.shape().size();
    for (size_t i = 0; majorToMinor && i < t.minor_to_major_size; ++i)
      majorToMinor = t.minor_to_major[i] == static_cast<int64_t>(t.minor_to_major_size - 1 - i);
    if (majorToMinor) return;
  }
  throw ApiFailure(FailureCode::Unimplemented,
                   std::string("unsupported: ") + what + " other than dense major-to-minor (kiln's buffers are)");
}

// The elements at `data`, `strides` bytes apart in each dimension (any sign), densely.
std::vector<uint8_t> gather(const Type& type, const uint8_t* data, const std::vector<int64_t>& strides) {
  const size_t element = static_cast<size_t>(storageBytes(type.dtype()));
  std::vector<uint8_t> out(static_cast<size_t>(type.byteSize()));
  if (out.empty()) return out;
  const auto& shape = type.shape();
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t n = 0; n < out.size(); n += element) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(out.data() + n, data + offset, element);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

namespace functions {

PJRT_Error* clientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  return call("PJRT_Client_BufferFromHostBuffer", args, [](PJRT_Client_BufferFromHostBuffer_Args& a, const Fits& fits) {
    fits.requireOut(a.buffer, "buffer");
    PJRT_Client& client = need(a.client, "client");
    PJRT_Device& device = targetDevice(client, a.device, a.memory);
    const int code = rawEnum(a.type);
    if (code == PJRT_Buffer_Type_TOKEN) {
      if (a.num_dims > 0) invalid("a token has no dims; num_dims is " + std::to_string(a.num_dims));
      std::shared_ptr<BufferState> token = core::token(*device.core);
      if (fits(a.done_with_host_buffer)) a.done_with_host_buffer = newEvent(token->ready);
      a.buffer = newBuffer(std::move(token), &device);
      return;
    }
    const std::optional<DType> dtype = dtypeOf(code);
    if (!dtype) throw ApiFailure(FailureCode::Unimplemented, "unsupported: buffer type " + std::to_string(code));
    const Type type = tensorType(*dtype, a.dims, a.num_dims);
    requireDenseLayout(a.device_layout, type, "device_layout");
    requireData(type, a.data, "data");
    if (a.num_byte_strides > 0 && (a.num_byte_strides != a.num_dims || !a.byte_strides))
      invalid("num_byte_strides is " + std::to_string(a.num_byte_strides) + " for " + std::to_string(a.num_dims) +
              " dimensions" + (a.byte_strides ? "" : ", and byte_strides is null"));
    const bool strided = a.num_byte_strides > 0 &&
                         std::vector<int64_t>(a.byte_strides, a.byte_strides + a.num_byte_strides) != denseStrides(type);
    // The bytes are read now when the caller may change them after the call (or they are
    // strided); else by the copy on the device's queue, which done_with_host_buffer
    // reports (the zero-copy semantics too: kiln's buffers own their bytes).
    std::shared_ptr<std::vector<uint8_t>> copied;
    if (strided || rawEnum(a.host_buffer_semantics) == PJRT_HostBufferSemantics_kImmutableOnlyDuringCall) {
      const auto* bytes = static_cast<const uint8_t*>(a.data);
      copied = std::make_shared<std::vector<uint8_t>>(
          strided ? gather(type, bytes, std::vector<int64_t>(a.byte_strides, a.byte_strides + a.num_byte_strides))
                  : std::vector<uint8_t>(bytes, bytes + type.byteSize()));
    }
    auto state = std::make_shared<BufferState>(type, device.core, device.core->deviceMemory);
    const void* data = copied ? static_cast<const void*>(copied->data()) : a.data;
    device.core->queue->push([state, data, copied] {
      try {
        state->fill(valueFromHost(state->type, data));
      } catch (...) {
        state->fail(currentFailure());
      }
    });
    if (fits(a.done_with_host_buffer)) a.done_with_host_buffer = newEvent(copied ? readyEvent() : state->ready);
    a.buffer = newBuffer(std::move(state), &device);
  });
}

PJRT_Error* bufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  return call("PJRT_Buffer_ToHostBuffer", args, [](PJRT_Buffer_ToHostBuffer_Args& a, const Fits& fits) {
    PJRT_Buffer& src = bufferOf(a.src, "src");
    const BufferState& state = *src.state;
    requireDenseLayout(a.host_layout, state.type, "host_layout");
    const auto bytes = static_cast<size_t>(state.bytes);
    if (!a.dst) {  // a query of the size
      a.dst_size = bytes;
      return;
    }
    fits.requireOut(a.event, "event");
    if (a.dst_size < bytes)
      invalid("dst_size is " + std::to_string(a.dst_size) + ", the buffer (" + state.type.str() + ") holds " +
              std::to_string(bytes) + " bytes");
    a.event = newEvent(core::copyToHost(src.state, a.dst, bytes));
  });
}

PJRT_Error* bufferDestroy(PJRT_Buffer_Destroy_Args* args) {
  return call("PJRT_Buffer_Destroy", args, [](PJRT_Buffer_Destroy_Args& a, const Fits&) {
    // Only the handle goes: reads queued with the buffer still read it, and its memory
    // is freed when the last of them has (BufferState::dropHandle).
    std::unique_ptr<PJRT_Buffer> buffer = destroyed(&bufferOf(a.buffer), "buffer");
    buffer->state->dropHandle();
  });
}

PJRT_Error* bufferDelete(PJRT_Buffer_Delete_Args* args) {
  return call("PJRT_Buffer_Delete", args, [](PJRT_Buffer_Delete_Args& a, const Fits&) {
    bufferOf(a.buffer).state->remove();
  });
}

PJRT_Error* bufferIsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  return call("PJRT_Buffer_IsDeleted", args, [](PJRT_Buffer_IsDeleted_Args& a, const Fits&) {
    // A donated buffer is gone from its caller's side, as PJRT reports it.
    const BufferState& state = *bufferOf(a.buffer).state;
    a.is_deleted = state.deleted() || state.donated();
  });
}

PJRT_Error* bufferElementType(PJRT_Buffer_ElementType_Args* args) {
  return call("PJRT_Buffer_ElementType", args, [](PJRT_Buffer_ElementType_Args& a, const Fits&) {
    const Type& type = bufferOf(a.buffer).state->type;
    a.type = type.isToken() ? PJRT_Buffer_Type_TOKEN : bufferTypeOf(type.dtype());
  });
}

PJRT_Error* bufferDimensions(PJRT_Buffer_Dimensions_Args* args) {
  return call("PJRT_Buffer_Dimensions", args, [](PJRT_Buffer_Dimensions_Args& a, const Fits&) {
    const BufferState& state = *bufferOf(a.buffer).state;
    a.dims = state.dims.data();
    a.num_dims = state.dims.size();
  });
}

// kiln's buffers are neither padded nor dynamic.
PJRT_Error* bufferUnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args) {
  return call("PJRT_Buffer_UnpaddedDimensions", args, [](PJRT_Buffer_UnpaddedDimensions_Args& a, const Fits&) {
    const BufferState& state = *bufferOf(a.buffer).state;
    a.unpadded_dims = state.dims.data();
    a.num_dims = state.dims.size();
  });
}

PJRT_Error* bufferDynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args) {
  return call("PJRT_Buffer_DynamicDimensionIndices", args,
              [](PJRT_Buffer_DynamicDimensionIndices_Args& a, const Fits&) {
                bufferOf(a.buffer);
                a.dynamic_dim_indices = nullptr;
                a.num_dynamic_dims = 0;
              });
}

PJRT_Error* bufferOnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  return call("PJRT_Buffer_OnDeviceSizeInBytes", args, [](PJRT_Buffer_OnDeviceSizeInBytes_Args& a, const Fits&) {
    a.on_device_size_in_bytes = static_cast<size_t>(bufferOf(a.buffer).state->bytes);
  });
}

// The host address of the buffer's bytes (the cpu and interp plugins keep them in host
// memory), for clients that look at buffers in place; valid while the buffer lives.
PJRT_Error* bufferUnsafePointer(PJRT_Buffer_UnsafePointer_Args* args) {
  return call("PJRT_Buffer_UnsafePointer", args, [](PJRT_Buffer_UnsafePointer_Args& a, const Fits&) {
    a.buffer_pointer = reinterpret_cast<uintptr_t>(bufferOf(a.buffer).state->storage());
  });
}

PJRT_Error* bufferDevice(PJRT_Buffer_Device_Args* args) {
  return call("PJRT_Buffer_Device", args,
              [](PJRT_Buffer_Device_Args& a, const Fits&) { a.device = bufferOf(a.buffer).device; });
}

PJRT_Error* bufferMemory(PJRT_Buffer_Memory_Args* args) {
  return call("PJRT_Buffer_Memory", args,
              [](PJRT_Buffer_Memory_Args& a, const Fits&) { a.memory = &bufferOf(a.buffer).device->memory; });
}

// The bytes are the host's in the cpu and interp plugins, but a client may not read them
// in place: they are the plugin's (zero-copy would be a measured gain first).
PJRT_Error* bufferIsOnCpu(PJRT_Buffer_IsOnCpu_Args* args) {
  return call("PJRT_Buffer_IsOnCpu", args, [](PJRT_Buffer_IsOnCpu_Args& a, const Fits&) {
    bufferOf(a.buffer);
    a.is_on_cpu = false;
  });
}

PJRT_Error* bufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  return call("PJRT_Buffer_ReadyEvent", args, [](PJRT_Buffer_ReadyEvent_Args& a, const Fits& fits) {
    fits.requireOut(a.event, "event");
    a.event = newEvent(bufferOf(a.buffer).state->ready);
  });
}

namespace {
PJRT_Buffer* copyTo(PJRT_Buffer& src, PJRT_Device& dst) {
  if (!dst.core)
    invalid("device " + std::to_string(dst.id) + " belongs to process " + std::to_string(dst.processIndex) +
            ", which this client cannot address");
  return newBuffer(core::copyToDevice(src.state, *dst.core), &dst);
}
}  // namespace

PJRT_Error* bufferCopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  return call("PJRT_Buffer_CopyToDevice", args, [](PJRT_Buffer_CopyToDevice_Args& a, const Fits& fits) {
    fits.requireOut(a.dst_buffer, "dst_buffer");
    a.dst_buffer = copyTo(bufferOf(a.buffer), need(a.dst_device, "dst_device"));
  });
}

PJRT_Error* bufferCopyToMemory(PJRT_Buffer_CopyToMemory_Args* args) {
  return call("PJRT_Buffer_CopyToMemory", args, [](PJRT_Buffer_CopyToMemory_Args& a, const Fits& fits) {
    fits.requireOut(a.dst_buffer, "dst_buffer");
    PJRT_Memory& memory = need(a.dst_memory, "dst_memory");
    a.dst_buffer = copyTo(bufferOf(a.buffer), *static_cast<MemoryObject&>(memory).device);
  });
}

}  // namespace functions
}  // namespace kiln::runtime::pjrt
