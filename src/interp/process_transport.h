// How the processes of a grid that live in different OS processes (one per MPI rank, say)
// exchange values: the grid's rendezvous goes through a transport instead of its shared
// slots. The interpreter defines what it needs; the runtime provides an implementation
// (runtime/mpi_transport.h), so this layer knows no transport library.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "interp/host_value.h"
#include "interp/interpreter.h"

namespace kiln::interp {

class ProcessTransport {
 public:
  virtual ~ProcessTransport() = default;
  // This OS process's place among them (the flat index of the one grid process it runs)
  // and how many there are.
  virtual size_t rank() const = 0;
  virtual size_t size() const = 0;
  // Sends `values` to every other member of `members` (ranks, this one among them) and
  // returns every member's values in `members` order. `what` names the collective (op,
  // channel, group and occurrence): every member must be in the same one. Throws a
  // runtime Error when a member reports a failure (fail()), when `options` cancel the run
  // or its deadline passes, or when a member is in another collective; a member that
  // stays silent past the transport's own timeout ends the whole job with a message that
  // names the collective and the members that did not arrive.
  virtual std::vector<HostValues> exchange(const std::string& what, const std::vector<size_t>& members,
                                           HostValues values, const InterpOptions& options) = 0;
  // Tells the other processes that this one failed, and why: those waiting for it in an
  // exchange fail with that message instead of waiting for the timeout.
  virtual void fail(const std::string& why) = 0;
};

}  // namespace kiln::interp
