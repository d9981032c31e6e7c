// Where every value of a function lives: liveness intervals over the schedule (the op
// order of the function body), and offsets in one arena chosen so that values whose
// lifetimes overlap never share bytes. Backends consume this as is; the figures in it
// (sum of all value sizes, peak live bytes, arena size, what is live at the peak) are
// what a user wants after an out-of-memory error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"

namespace kiln::passes {

struct BufferedValue {
  enum class Kind {
    Parameter,  // owned by the caller; in the arena only when donated
    Constant,   // part of the program, never in the arena
    Temporary,  // an op result in the arena
    Output,     // a function result (in the arena; lives to the end)
  };
  const Value* value = nullptr;
  Kind kind = Kind::Temporary;
  int64_t bytes = 0;
  // Live from position `start` to `end` inclusive: positions are op indices of the body
  // (parameters start at -1); a value is live until the last op that reads it, and a
  // parameter the caller keeps (not donated) until the end.
  int64_t start = 0;
  int64_t end = 0;
  // Where its bytes are: at `offset` in the arena, or (when `inParameter` >= 0) at
  // `offset` in the buffer of that donated parameter; offset -1: no buffer of ours
  // (constants, parameters the caller keeps).
  int64_t offset = -1;
  int64_t inParameter = -1;
  bool donated = false;           // a parameter the caller gave up after its last use
  int64_t reusesBufferOf = -1;    // in place: index (in `values`) of the dying operand whose bytes it took
  std::string producer;           // op name, or "parameter N"
  Location loc;                   // of the producing op
};

struct BufferAssignment {
  std::string function;
  std::vector<BufferedValue> values;
  int64_t totalValueBytes = 0;  // the sum of the sizes of all values
  int64_t peakLiveBytes = 0;    // the most bytes live at one position
  int64_t peakPosition = 0;     // where that is (op index)
  int64_t arenaBytes = 0;       // the arena size: temporaries and outputs not placed in donated buffers
  int64_t inPlaceReuses = 0;    // results that took a dying operand's buffer

  // Indices of the values live at the peak, largest first.
  std::vector<size_t> liveAtPeak() const;
  // The assignment as text: the figures, the values live at the peak with the op and
  // source location that produced each, then every value's interval and offset.
  std::string str(size_t topValues = 10) const;
};

// The bytes a value of this type occupies (tuples: their elements; tokens: none).
int64_t valueBytes(const Type& type);

// Which parameters the caller gives up, so that values may live in their buffers.
enum class Donation {
  FromAttributes,  // those marked jax.buffer_donor or tf.aliasing_output
  All,             // every one (kiln compile --donate)
  None,            // none: a backend that learns of donation per call (the cpu step program)
};

// Whether the program marks parameter `param` of `fn` donated: jax.buffer_donor (true)
// or tf.aliasing_output, as JAX marks the arguments of jit(donate_argnums=...).
bool marksDonation(const Function& fn, size_t param);
// Marks it so (jax.buffer_donor = true).
void markDonation(Function& fn, size_t param);

// Assigns buffers for `fn` in its current op order.
BufferAssignment assignBuffers(const Function& fn, Donation donation = Donation::FromAttributes);

// An independent check of an assignment against the function it describes: every value
// of the body has an interval that covers its definition and all its uses, and no two
// values whose intervals overlap share arena bytes (except a value and the dying operand
// it reuses in place). Returns the problems found (empty when it holds).
std::vector<std::string> checkBufferAssignment(const Function& fn, const BufferAssignment& assignment);

}  // namespace kiln::passes
