// The MPI transport: the processes of a multi-device execution are MPI ranks (one device
// each, `mpirun -np N`), and their collectives exchange values as MPI messages. Every
// exchange is non-blocking and polled, so a run that is cancelled, passes its deadline
// or hears that another rank failed stops waiting; a rank that stays silent past the
// collective timeout ends the job (MPI_Abort) with a message naming the collective and
// the ranks that did not arrive. The only file that includes <mpi.h> is its .cc.
#pragma once

#include <chrono>
#include <memory>

#include "interp/process_transport.h"

namespace kiln::runtime {

// Whether this build has MPI (libopenmpi-dev was found when it was configured).
bool mpiAvailable();

// The transport over MPI_COMM_WORLD (MPI initialized on the first call, finalized at
// exit; aborted instead when an exchange was left broken). `timeout`: how long one
// exchange waits for silent ranks. Throws Unsupported without MPI.
std::shared_ptr<interp::ProcessTransport> mpiTransport(std::chrono::duration<double> timeout);

}  // namespace kiln::runtime
