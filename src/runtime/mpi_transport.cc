// The MPI transport (see mpi_transport.h). Each exchange sends this rank's values to
// every other member (MPI_Isend) and receives theirs as they arrive (MPI_Improbe, then
// MPI_Mrecv: the sizes are not known in advance), polling between the two so that
// cancellation, the run's deadline, a failure notice from another rank and the
// collective timeout are all noticed while waiting. A message carries the collective's
// name, so ranks that reach different collectives fail with both names instead of
// mixing their data.
#include "runtime/mpi_transport.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "support/error.h"

#if KILN_HAVE_MPI
#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <sstream>
#include <chrono>
#include <thread>
#endif

namespace kiln::runtime {

#if !KILN_HAVE_MPI

bool mpiAvailable() { return false; }

std::shared_ptr<interp::ProcessTransport> mpiTransport(std::chrono::duration<double>) {
  throw Error(ErrorKind::Unsupported,
              "unsupported: the mpi communicator (this build of kiln has no MPI: install libopenmpi-dev with "
              "scripts/setup.sh and configure again)");
}

#else

bool mpiAvailable() { return true; }

namespace {

constexpr int kDataTag = 1;     // an exchange's values
constexpr int kFailureTag = 2;  // "this rank failed: why"

// Every MPI call of the process goes through this lock (one device per rank calls MPI
// from its queue's thread; the lock keeps that safe whatever thread level MPI gives).
std::mutex mpiLock;
// Whether an exchange was left half done (messages in flight that nobody will match):
// then MPI_Finalize could wait forever, and the process aborts the job at exit instead.
std::atomic<bool> anyBroken{false};
// Whether this rank told the others it failed: they report that (naming this rank and
// why) when their next exchange polls, so the abort at exit waits a moment for them.
std::atomic<bool> toldOthers{false};
constexpr std::chrono::milliseconds kNoticeGrace{1000};
bool weInitialized = false;

void finalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  std::fflush(nullptr);
  if (anyBroken.load()) {
    if (toldOthers.load()) std::this_thread::sleep_for(kNoticeGrace);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
}

void initialize() {
  std::lock_guard<std::mutex> lock(mpiLock);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;  // the host program did it, and finalizes it
  // Open MPI loads its components as libraries of their own, which look for libmpi's
  // symbols globally; a plugin is loaded RTLD_LOCAL, so make them global first.
  dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    throw Error(ErrorKind::Runtime, "MPI_Init_thread failed");
  weInitialized = true;
  std::atexit(finalizeAtExit);
}

// ---- messages: a header (the collective's name, each value's type and size), then each
// tensor's bytes as a message of its own, sent from and received into the tensors'
// storage (no copies) --------------------------------------------------------------------

void putBytes(std::string& out, const void* data, size_t size) { out.append(static_cast<const char*>(data), size); }

template <typename T>
void put(std::string& out, T value) {
  putBytes(out, &value, sizeof(T));
}

void putString(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

std::string header(const std::string& what, const interp::HostValues& values) {
  std::string out;
  putString(out, what);
  put<uint64_t>(out, values.size());
  for (const interp::HostValue& v : values) {
    if (v.isTuple()) throw Error(ErrorKind::Unsupported, "unsupported: a tuple in a collective between OS processes");
    put<uint8_t>(out, v.isTensor() ? 1 : 0);
    if (!v.isTensor()) continue;
    const Literal& t = v.tensor();
    if (t.storageSize() > static_cast<size_t>(INT32_MAX))
      throw Error(ErrorKind::Unsupported, "unsupported: a tensor of more than 2 GiB (" + t.type().str() +
                                              ") in a collective between OS processes");
    putString(out, t.type().str());
    put<uint8_t>(out, t.isSplat() ? 1 : 0);
    put<uint64_t>(out, t.storageSize());
  }
  return out;
}

// A value a header announces: a token, or a tensor of `type` whose `size` bytes follow
// (one element when `splat`).
struct Announced {
  bool tensor = false;
  Type type;
  bool splat = false;
  uint64_t size = 0;
};

// Reads what header() wrote; `mine` (this rank's values) gives the types, which every
// member of a collective shares.
class HeaderReader {
 public:
  HeaderReader(const std::vector<char>& bytes, int from) : bytes_(bytes), from_(from) {}

  std::string string() {
    const auto size = get<uint64_t>();
    need(size);
    std::string s(bytes_.data() + at_, size);
    at_ += size;
    return s;
  }

  std::vector<Announced> values(const interp::HostValues& mine) {
    const auto count = get<uint64_t>();
    if (count != mine.size()) mismatch(std::to_string(count) + " values where this rank has " + std::to_string(mine.size()));
    std::vector<Announced> out;
    for (const interp::HostValue& own : mine) {
      Announced value;
      value.tensor = get<uint8_t>() != 0;
      if (value.tensor != own.isTensor()) mismatch("a token where this rank has a tensor, or the other way around");
      if (value.tensor) {
        value.type = own.tensor().type();
        if (const std::string sent = string(); sent != value.type.str())
          mismatch("a " + sent + " where this rank has a " + value.type.str());
        value.splat = get<uint8_t>() != 0;
        value.size = get<uint64_t>();
        const uint64_t element = static_cast<uint64_t>(storageBytes(value.type.dtype()));
        if (value.size != (value.splat ? element : element * static_cast<uint64_t>(value.type.numElements())))
          mismatch(std::to_string(value.size) + " bytes for a " + value.type.str());
      }
      out.push_back(std::move(value));
    }
    return out;
  }

 private:
  template <typename T>
  T get() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  void need(uint64_t size) const {
    if (size > bytes_.size() - at_)
      throw Error(ErrorKind::Internal, "a message from rank " + std::to_string(from_) + " is truncated");
  }
  [[noreturn]] void mismatch(const std::string& what) const {
    throw Error(ErrorKind::Runtime, "rank " + std::to_string(from_) + " sent " + what);
  }

  const std::vector<char>& bytes_;
  int from_;
  size_t at_ = 0;
};

// A member's values on their way in: its header read, its tensors' bytes arriving.
struct Incoming {
  int source = 0;
  bool announced = false;
  std::vector<Announced> values;
  std::vector<std::vector<uint8_t>> bytes;  // per value (empty for a token)
  std::vector<MPI_Request> requests;

  interp::HostValues take() {
    interp::HostValues out;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].tensor) {
        out.push_back(interp::HostValue::token());
      } else if (values[i].splat) {
        out.emplace_back(Literal::splat(values[i].type, bytes[i].data()));
      } else {
        out.emplace_back(Literal::fromStorage(values[i].type, std::move(bytes[i])));
      }
    }
    return out;
  }
};

std::string rankList(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

class MpiTransport final : public interp::ProcessTransport {
 public:
  explicit MpiTransport(std::chrono::duration<double> timeout) : timeout_(timeout) {
    initialize();
    std::lock_guard<std::mutex> lock(mpiLock);
    // A communicator of its own: two clients' messages never meet.
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    int rank = 0, size = 1;
    MPI_Comm_rank(comm_, &rank);
    MPI_Comm_size(comm_, &size);
    rank_ = static_cast<size_t>(rank);
    size_ = static_cast<size_t>(size);
  }

  ~MpiTransport() override {
    std::lock_guard<std::mutex> lock(mpiLock);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && !broken_) MPI_Comm_free(&comm_);
  }

  size_t rank() const override { return rank_; }
  size_t size() const override { return size_; }

  std::vector<interp::HostValues> exchange(const std::string& what, const std::vector<size_t>& members,
                                           interp::HostValues values, const interp::InterpOptions& options) override {
    if (!brokenWhy_.empty())
      throw Error(ErrorKind::Runtime, "the MPI processes cannot exchange values any more: " + brokenWhy_);
    auto head = std::make_unique<std::string>(header(what, values));  // (its bytes stay put)
    std::vector<std::optional<interp::HostValues>> received(members.size());
    std::vector<Incoming> waiting;  // the members whose values have not all arrived
    std::vector<MPI_Request> sends;
    {
      std::lock_guard<std::mutex> lock(mpiLock);
      for (size_t i = 0; i < members.size(); ++i) {
        if (members[i] == rank_) continue;
        if (members[i] >= size_)
          throw Error(ErrorKind::Internal, what + " names rank " + std::to_string(members[i]) + " of " + std::to_string(size_));
        const int to = static_cast<int>(members[i]);
        waiting.push_back(Incoming{to});
        sends.emplace_back();
        MPI_Isend(head->data(), static_cast<int>(head->size()), MPI_BYTE, to, kDataTag, comm_, &sends.back());
        for (const interp::HostValue& v : values)
          if (v.isTensor() && v.tensor().storageSize() > 0) {
            sends.emplace_back();
            MPI_Isend(v.tensor().storage(), static_cast<int>(v.tensor().storageSize()), MPI_BYTE, to, kDataTag, comm_,
                      &sends.back());
          }
      }
    }
    // (The values stay here, and so their storage, until every send is complete.)
    const size_t me = indexOf(members, rank_);
    received[me] = std::move(values);
    const interp::HostValues& mine = *received[me];
    const auto start = std::chrono::steady_clock::now();
    try {
      poll(what, members, mine, received, waiting, sends, start, options);
    } catch (...) {
      // MPI may still read the buffers of sends and write those of receives in flight:
      // they are kept until the process ends (it aborts the job at exit, anyBroken).
      abandoned_.push_back(std::make_unique<Abandoned>(
          Abandoned{std::move(head), std::move(*received[me]), std::move(waiting), std::move(sends)}));
      throw;
    }
    std::vector<interp::HostValues> all;
    for (auto& r : received) all.push_back(std::move(*r));
    return all;
  }

  void fail(const std::string& why) override {
    if (size_ < 2) return;
    std::lock_guard<std::mutex> lock(mpiLock);
    if (brokenWhy_.empty()) brokenWhy_ = "rank " + std::to_string(rank_) + " failed";
    broken_ = true;
    anyBroken = true;
    if (!notice_.empty()) return;  // told already (its sends may still read the notice)
    notice_ = why.empty() ? "failed" : why;
    // Not waited for: the process ends soon, and aborts the job at exit (anyBroken).
    for (size_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      MPI_Request request;
      MPI_Isend(notice_.data(), static_cast<int>(notice_.size()), MPI_BYTE, static_cast<int>(r), kFailureTag, comm_,
                &request);
      MPI_Request_free(&request);
    }
    toldOthers = true;
  }

 private:
  // What an exchange that failed left in flight.
  struct Abandoned {
    std::unique_ptr<std::string> head;
    interp::HostValues values;
    std::vector<Incoming> incoming;
    std::vector<MPI_Request> sends;
  };

  // Polls until every member's values are in `received` and every send is complete.
  void poll(const std::string& what, const std::vector<size_t>& members, const interp::HostValues& mine,
            std::vector<std::optional<interp::HostValues>>& received, std::vector<Incoming>& waiting,
            std::vector<MPI_Request>& sends, std::chrono::steady_clock::time_point start,
            const interp::InterpOptions& options) {
    for (;;) {
      bool sent = false;
      {
        std::lock_guard<std::mutex> lock(mpiLock);
        checkFailureNotices();
        for (auto it = waiting.begin(); it != waiting.end();) {
          if (!it->announced && !announce(*it, what, mine)) {
            ++it;
            continue;
          }
          int done = 0;
          MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done, MPI_STATUSES_IGNORE);
          if (!done) {
            ++it;
            continue;
          }
          received[indexOf(members, static_cast<size_t>(it->source))] = it->take();
          it = waiting.erase(it);
        }
        int done = 0;
        MPI_Testall(static_cast<int>(sends.size()), sends.data(), &done, MPI_STATUSES_IGNORE);
        sent = done != 0;
      }
      if (waiting.empty() && sent) break;
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) breakWith("cancelled in " + what);
      const auto now = std::chrono::steady_clock::now();
      if (options.deadline && now > *options.deadline)
        breakWith("time limit exceeded while rank " + std::to_string(rank_) + " waits in " + what);
      if (now - start > timeout_) {
        std::vector<int> missing;
        for (const Incoming& in : waiting) missing.push_back(in.source);
        abortJob(what, missing);
      }
      // Spin briefly (a collective's members often arrive close together), then sleep
      // between polls, so that a rank that waits does not take the core another rank
      // computes on (ranks share this machine's cores).
      if (now - start < std::chrono::microseconds(50)) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    }
  }

  static size_t indexOf(const std::vector<size_t>& members, size_t rank) {
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == rank) return i;
    throw Error(ErrorKind::Internal, "rank " + std::to_string(rank) + " is not a member of its own exchange");
  }

  // Reads `in`'s header if it has arrived, checks it against `what` and `mine`, and
  // starts receiving its tensors' bytes; false while it has not arrived (the lock is held).
  bool announce(Incoming& in, const std::string& what, const interp::HostValues& mine) {
    std::optional<std::vector<char>> message = tryReceive(in.source);
    if (!message) return false;
    HeaderReader reader(*message, in.source);
    if (const std::string theirs = reader.string(); theirs != what)
      breakWith("rank " + std::to_string(in.source) + " is in " + theirs + " while rank " + std::to_string(rank_) +
                " is in " + what + ": the processes do not run the same program");
    try {
      in.values = reader.values(mine);
    } catch (const Error& e) {
      breakWith(what + ": " + e.message());
    }
    in.announced = true;
    in.bytes.resize(in.values.size());
    for (size_t i = 0; i < in.values.size(); ++i) {
      if (!in.values[i].tensor || in.values[i].size == 0) continue;
      in.bytes[i].resize(in.values[i].size);
      in.requests.emplace_back();
      MPI_Irecv(in.bytes[i].data(), static_cast<int>(in.values[i].size), MPI_BYTE, in.source, kDataTag, comm_,
                &in.requests.back());
    }
    return true;
  }

  // A message from `source`, if one has arrived (the lock is held).
  std::optional<std::vector<char>> tryReceive(int source, int tag = kDataTag) {
    int flag = 0;
    MPI_Message message;
    MPI_Status status;
    MPI_Improbe(source, tag, comm_, &flag, &message, &status);
    if (!flag) return std::nullopt;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<char> bytes(static_cast<size_t>(count));
    MPI_Mrecv(bytes.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    return bytes;
  }

  // Fails the exchange if another rank said it failed (the lock is held).
  void checkFailureNotices() {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kFailureTag, comm_, &flag, &status);
    if (!flag) return;
    std::optional<std::vector<char>> why = tryReceive(status.MPI_SOURCE, kFailureTag);
    breakWith("rank " + std::to_string(status.MPI_SOURCE) + " failed: " + std::string(why->begin(), why->end()));
  }

  // Leaves messages unmatched: later exchanges fail, and the process aborts at exit.
  [[noreturn]] void breakWith(const std::string& why) {
    brokenWhy_ = why;
    broken_ = true;
    anyBroken = true;
    throw Error(ErrorKind::Runtime, why);
  }

  [[noreturn]] void abortJob(const std::string& what, const std::vector<int>& missing) {
    // One write of the whole line: mpirun forwards a rank's stderr in the chunks it was
    // written in, and its own MPI_ABORT banner would otherwise land inside the line.
    std::ostringstream line;
    line << "kiln: error: rank " << rank_ << " waited " << timeout_.count() << " s in " << what << " for rank(s) "
         << rankList(missing) << ", which did not arrive; ending the job (MPI_Abort)\n";
    std::fflush(nullptr);
    std::fputs(line.str().c_str(), stderr);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // MPI_Abort does not return
  }

  std::chrono::duration<double> timeout_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  size_t rank_ = 0, size_ = 1;
  bool broken_ = false;
  std::string brokenWhy_;
  std::string notice_;  // this rank's failure notice, kept while its sends are in flight
  std::vector<std::unique_ptr<Abandoned>> abandoned_;
};

}  // namespace

std::shared_ptr<interp::ProcessTransport> mpiTransport(std::chrono::duration<double> timeout) {
  return std::make_shared<MpiTransport>(timeout);
}

#endif

}  // namespace kiln::runtime
