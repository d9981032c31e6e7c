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
#include <iostream>
#include <mutex>
#include <optional>
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
bool weInitialized = false;

void finalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  std::fflush(nullptr);
  if (anyBroken.load()) MPI_Abort(MPI_COMM_WORLD, 1);
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

// ---- messages: the collective's name, then each value ----------------------------------

void putBytes(std::string& out, const void* data, size_t size) { out.append(static_cast<const char*>(data), size); }

template <typename T>
void put(std::string& out, T value) {
  putBytes(out, &value, sizeof(T));
}

void putString(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

std::string encode(const std::string& what, const interp::HostValues& values) {
  std::string out;
  putString(out, what);
  put<uint64_t>(out, values.size());
  for (const interp::HostValue& v : values) {
    if (v.isTuple()) throw Error(ErrorKind::Unsupported, "unsupported: a tuple in a collective between OS processes");
    put<uint8_t>(out, v.isTensor() ? 1 : 0);
    if (!v.isTensor()) continue;
    const Literal& t = v.tensor();
    putString(out, t.type().str());
    put<uint8_t>(out, t.isSplat() ? 1 : 0);
    put<uint64_t>(out, t.storageSize());
    putBytes(out, t.storage(), t.storageSize());
  }
  return out;
}

// Reads what encode() wrote; `mine` (this rank's values) gives the types, which every
// member of a collective shares.
class Decoder {
 public:
  Decoder(const std::vector<char>& bytes, int from) : bytes_(bytes), from_(from) {}

  std::string string() {
    const auto size = get<uint64_t>();
    need(size);
    std::string s(bytes_.data() + at_, size);
    at_ += size;
    return s;
  }

  interp::HostValues values(const interp::HostValues& mine) {
    const auto count = get<uint64_t>();
    if (count != mine.size()) mismatch(std::to_string(count) + " values where this rank has " + std::to_string(mine.size()));
    interp::HostValues out;
    for (const interp::HostValue& own : mine) {
      const bool tensor = get<uint8_t>() != 0;
      if (tensor != own.isTensor()) mismatch("a token where this rank has a tensor, or the other way around");
      if (!tensor) {
        out.push_back(interp::HostValue::token());
        continue;
      }
      const Type& type = own.tensor().type();
      if (const std::string sent = string(); sent != type.str())
        mismatch("a " + sent + " where this rank has a " + type.str());
      const bool splat = get<uint8_t>() != 0;
      const auto size = get<uint64_t>();
      need(size);
      const auto* data = reinterpret_cast<const uint8_t*>(bytes_.data() + at_);
      at_ += size;
      if (splat) {
        out.emplace_back(Literal::splat(type, data));
      } else {
        out.emplace_back(Literal::fromStorage(type, std::vector<uint8_t>(data, data + size)));
      }
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
    const std::string payload = encode(what, values);
    std::vector<std::optional<interp::HostValues>> received(members.size());
    std::vector<int> waiting;  // the members whose values have not arrived
    std::vector<MPI_Request> sends;
    {
      std::lock_guard<std::mutex> lock(mpiLock);
      for (size_t i = 0; i < members.size(); ++i) {
        if (members[i] == rank_) continue;
        if (members[i] >= size_)
          throw Error(ErrorKind::Internal, what + " names rank " + std::to_string(members[i]) + " of " + std::to_string(size_));
        waiting.push_back(static_cast<int>(members[i]));
        sends.emplace_back();
        MPI_Isend(payload.data(), static_cast<int>(payload.size()), MPI_BYTE, waiting.back(), kDataTag, comm_,
                  &sends.back());
      }
    }
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == rank_) received[i] = std::move(values);
    const interp::HostValues& mine = *received[indexOf(members, rank_)];
    const auto start = std::chrono::steady_clock::now();
    for (int polls = 0;; ++polls) {
      bool sent = false;
      {
        std::lock_guard<std::mutex> lock(mpiLock);
        checkFailureNotices();
        for (auto it = waiting.begin(); it != waiting.end();) {
          std::optional<std::vector<char>> message = tryReceive(*it);
          if (!message) {
            ++it;
            continue;
          }
          Decoder decoder(*message, *it);
          if (const std::string theirs = decoder.string(); theirs != what)
            breakWith("rank " + std::to_string(*it) + " is in " + theirs + " while rank " + std::to_string(rank_) +
                      " is in " + what + ": the processes do not run the same program");
          try {
            received[indexOf(members, static_cast<size_t>(*it))] = decoder.values(mine);
          } catch (const Error& e) {
            breakWith(what + ": " + e.message());
          }
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
      if (now - start > timeout_) abortJob(what, waiting);
      // Spin briefly (a collective's members usually arrive close together), then sleep
      // so that a rank waiting does not take the core another rank computes on.
      if (polls < 2000) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
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
    notice_ = why;
    // Not waited for: the process ends soon, and aborts the job at exit (anyBroken).
    for (size_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      MPI_Request request;
      MPI_Isend(notice_.data(), static_cast<int>(notice_.size()), MPI_BYTE, static_cast<int>(r), kFailureTag, comm_,
                &request);
      MPI_Request_free(&request);
    }
  }

 private:
  static size_t indexOf(const std::vector<size_t>& members, size_t rank) {
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] == rank) return i;
    throw Error(ErrorKind::Internal, "rank " + std::to_string(rank) + " is not a member of its own exchange");
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
    std::fflush(nullptr);
    std::cerr << "kiln: error: rank " << rank_ << " waited " << timeout_.count() << " s in " << what << " for rank(s) "
              << rankList(missing) << ", which did not arrive; ending the job (MPI_Abort)" << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // MPI_Abort does not return
  }

  std::chrono::duration<double> timeout_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  size_t rank_ = 0, size_ = 1;
  bool broken_ = false;
  std::string brokenWhy_;
  std::string notice_;  // this rank's failure notice, kept while its sends are in flight
};

}  // namespace

std::shared_ptr<interp::ProcessTransport> mpiTransport(std::chrono::duration<double> timeout) {
  return std::make_shared<MpiTransport>(timeout);
}

#endif

}  // namespace kiln::runtime
