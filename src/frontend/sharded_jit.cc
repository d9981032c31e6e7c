// jit with shardings (kiln/sharding.h): the staged program annotated with the given
// shardings in Shardy's form (one sdy.mesh), partitioned on the host and run over the
// mesh's devices of the session's plugin (runtime/sharded_program.h); arrays go to the
// devices as pieces and come back whole.
#include <map>
#include <mutex>

#include "frontend/array_impl.h"
#include "frontend/dispatch.h"
#include "frontend/session.h"
#include "frontend/sharding_spec.h"
#include "frontend/staging.h"
#include "frontend/trace.h"
#include "ir/ops/stablehlo.h"
#include "ir/sharded_literal.h"
#include "ir/sharding_attrs.h"
#include "kiln/transforms.h"
#include "runtime/sharded_program.h"
#include "stablehlo/printer.h"
#include "support/api_errors.h"

namespace kiln::detail {
namespace {

// Whether the program is one process of an MPI job (then sharded programs run one
// partition per process, their results gathered by the program).
bool acrossProcesses() { return runtime::defaultCommunicator() == runtime::Communicator::Mpi; }

// A client of the session's plugin with `n` devices (one per count, kept for the process:
// executables compiled for it refer to it); under mpirun, the job's client (count 0),
// whose one device is this process's.
std::shared_ptr<const runtime::Client> clientWith(int64_t n) {
  static std::mutex lock;
  // Never destroyed: at exit a client would be destroyed after the plugin registry it
  // calls through, when it was made first (statics end in reverse order of their start).
  static auto* clients = new std::map<int64_t, std::shared_ptr<const runtime::Client>>();
  std::lock_guard<std::mutex> guard(lock);
  const bool mpi = acrossProcesses();
  auto& client = (*clients)[mpi ? 0 : n];
  if (!client) {
    runtime::ClientOptions options;
    options.numDevices = mpi ? 0 : static_cast<int>(n);
    options.communicator = mpi ? runtime::Communicator::Mpi : runtime::Communicator::InProcess;
    client = std::make_shared<const runtime::Client>(runtime::Plugin::load(sessionBackend()), options);
  }
  return client;
}


// Whether pieces laid out as `a` are the pieces `b` needs (the same mesh and splits).
bool samePieces(const Sharding& a, const Sharding& b) {
  return a.kind == Sharding::Kind::Tiled && b.kind == Sharding::Kind::Tiled && a.mesh == b.mesh && a.dims == b.dims &&
         a.unreduced == b.unreduced && a.manualAxes.empty() && b.manualAxes.empty();
}

// Gives `module` the program's one mesh, "mesh", as `mesh` (kept when it is there).
void addMesh(Module& module, const kiln::Mesh& mesh) {
  DeviceMesh m;
  for (const auto& [name, size] : mesh.axes()) m.axes.push_back({name, size});
  if (const DeviceMesh* there = module.findMesh("mesh")) {
    if (!(*there == m)) throw Error(ErrorKind::Usage, "shardings over different meshes (one mesh per program)");
    return;
  }
  module.meshes.push_back({"mesh", m});
}

}  // namespace

Sharding irSharding(const NamedSharding& given, const kiln::Mesh& mesh, size_t rank, const std::string& what) {
  if (given.spec.size() > rank)
    throw Error(ErrorKind::Usage, what + ": a PartitionSpec of " + std::to_string(given.spec.size()) +
                                      " dimensions for an array of rank " + std::to_string(rank));
  Sharding s;
  s.meshName = "mesh";
  for (const auto& [name, size] : mesh.axes()) s.mesh.axes.push_back({name, size});
  s.dims.resize(rank);
  s.open.assign(rank, false);
  for (size_t d = 0; d < given.spec.size(); ++d) {
    for (const std::string& axis : given.spec[d])
      if (!s.mesh.axisIndex(axis)) throw Error(ErrorKind::Usage, what + ": the mesh has no axis \"" + axis + "\"");
    s.dims[d] = given.spec[d];
  }
  return s;
}

std::vector<Array> runSharded(const Staged& staged, const std::vector<Array>& inputs,
                              const std::vector<std::optional<NamedSharding>>& in,
                              const std::vector<std::optional<NamedSharding>>& out) {
  return translated([&] {
    std::shared_ptr<const runtime::ShardedExecutable> exe;
    {
      std::lock_guard<std::mutex> guard(staged.lock);
      if (!staged.sharded) {
        const Function& fn = *staged.module->lookup(staged.entry);
        const kiln::Mesh* mesh = nullptr;
        for (const auto* list : {&in, &out})
          for (const auto& s : *list) {
            if (!s) continue;
            if (mesh && mesh->axes() != s->mesh.axes())
              throw Error(ErrorKind::Usage, "jit: shardings over different meshes (one mesh per program)");
            mesh = &s->mesh;
          }
        if (in.size() > inputs.size() || out.size() > fn.resultTypes().size())
          throw Error(ErrorKind::Usage, "jit: " + std::to_string(in.size()) + " in_shardings for " +
                                            std::to_string(inputs.size()) + " inputs, " + std::to_string(out.size()) +
                                            " out_shardings for " + std::to_string(fn.resultTypes().size()) + " outputs");
        // The staged module stays as it is: the annotated copy is text. (Its mesh, if
        // with_sharding_constraint gave it one, is the in/out shardings' too.)
        std::string text;
        if (!mesh) {
          text = stablehlo::printModule(*staged.module);
        } else {
          const size_t meshes = staged.module->meshes.size();
          addMesh(*staged.module, *mesh);
          Function& f = *staged.module->lookup(staged.entry);
          std::vector<NamedAttrList> args = f.argAttrs, results = f.resultAttrs;
          for (size_t i = 0; i < in.size(); ++i)
            if (in[i])
              setAttr(f.argAttrs[i], std::string(kSdyShardingAttr),
                      Attribute::opaque(printSdySharding(irSharding(*in[i], *mesh, f.param(i)->type().rank(),
                                                                    "in_shardings[" + std::to_string(i) + "]"))));
          for (size_t i = 0; i < out.size(); ++i)
            if (out[i])
              setAttr(f.resultAttrs[i], std::string(kSdyShardingAttr),
                      Attribute::opaque(printSdySharding(irSharding(*out[i], *mesh, f.resultTypes()[i].rank(),
                                                                    "out_shardings[" + std::to_string(i) + "]"))));
          text = stablehlo::printModule(*staged.module);
          f.argAttrs = std::move(args);
          f.resultAttrs = std::move(results);
          staged.module->meshes.resize(meshes);
        }
        runtime::ShardedProgram program = runtime::partitionProgram(text, staged.label, staged.entry, acrossProcesses());
        staged.sharded = std::make_shared<runtime::ShardedExecutable>(*clientWith(program.report.numDevices), std::move(program));
      }
      exe = std::static_pointer_cast<const runtime::ShardedExecutable>(staged.sharded);
    }
    std::vector<Array> all = inputs;
    all.insert(all.end(), staged.captures.begin(), staged.captures.end());
    const passes::PartitionReport& report = exe->program().report;
    std::vector<Array> outputs;
    if (!report.partitioned || exe->devices().size() < static_cast<size_t>(report.numDevices)) {
      // One device, or one MPI rank's: whole arrays in, whole arrays out.
      std::vector<Literal> args;
      for (const Array& a : all) args.push_back(hostValue(a));
      for (const Literal& r : exe->run(args)) outputs.push_back(makeConcrete(Session::get().upload(r)));
      return outputs;
    }
    // The pieces stay on the devices: an argument already in the pieces its parameter
    // needs is passed as it is; the results keep their pieces.
    const std::shared_ptr<const runtime::Client> client = clientWith(report.numDevices);
    std::vector<std::vector<runtime::Buffer>> placed(exe->devices().size());
    for (size_t i = 0; i < all.size(); ++i) {
      const ArrayImpl& impl = implOf(all[i]);
      std::vector<runtime::Buffer> pieces =
          impl.shards && impl.shards->client == client && samePieces(impl.shards->sharding, report.params[i])
              ? impl.shards->pieces
              : exe->placeArgument(i, hostValue(all[i]));
      for (size_t d = 0; d < placed.size(); ++d) placed[d].push_back(std::move(pieces[d]));
    }
    std::vector<std::vector<runtime::Buffer>> results = exe->execute(placed);
    for (size_t r = 0; r < exe->program().results.size(); ++r) {
      Shards shards{client, report.results[r], {}};
      for (std::vector<runtime::Buffer>& device : results) shards.pieces.push_back(std::move(device[r]));
      outputs.push_back(makeSharded(exe->program().results[r], std::move(shards)));
    }
    return outputs;
  });
}

}  // namespace kiln::detail

namespace kiln {

Array with_sharding_constraint(const Array& x, const NamedSharding& sharding, Site site) {
  return translated([&]() -> Array {
    detail::TraceState* trace = detail::currentTrace();
    if (!trace) return x;  // outside jit arrays live on one device
    const Type type = detail::implOf(x).type;
    const Sharding s = detail::irSharding(sharding, sharding.mesh, type.rank(), "with_sharding_constraint");
    detail::addMesh(*trace->module, sharding.mesh);
    // Shardy's constraint: an identity reshape whose result carries the sharding.
    const std::string attribute = printSdySharding(s);
    const std::string perValue = "#sdy.sharding_per_value<[" + attribute.substr(attribute.find('<')) + "]>";
    return detail::emit1({x}, site, [&](Builder& b, const std::vector<Value*>& v) {
      return std::vector<Value*>{
          b.create1(ops::Reshape, {v[0]}, {{std::string(kSdyShardingAttr), Attribute::opaque(perValue)}}, {v[0]->type()})};
    }, detail::implOf(x).weak);
  });
}

Array device_put(const Array& x, const NamedSharding& sharding, Site site) {
  return translated([&]() -> Array {
    if (detail::currentTrace()) return with_sharding_constraint(x, sharding, site);
    if (detail::acrossProcesses()) return x;  // each process holds whole arrays
    const Type type = detail::implOf(x).type;
    const Sharding s = detail::irSharding(sharding, sharding.mesh, type.rank(), "device_put");
    const Literal value = detail::hostValue(x);
    detail::Shards shards{detail::clientWith(sharding.mesh.size()), s, {}};
    const std::vector<runtime::Device> devices = shards.client->devices();
    if (static_cast<int64_t>(devices.size()) < sharding.mesh.size())
      throw Error(ErrorKind::Usage, "device_put: the mesh has " + std::to_string(sharding.mesh.size()) +
                                        " devices; the plugin gives " + std::to_string(devices.size()));
    for (int64_t d = 0; d < sharding.mesh.size(); ++d)
      shards.pieces.push_back(shards.client->bufferFromHost(shardOf(value, s, d), devices[static_cast<size_t>(d)]));
    return detail::makeSharded(type, std::move(shards));
  });
}

std::optional<NamedSharding> sharding_of(const Array& x) {
  return translated([&]() -> std::optional<NamedSharding> {
    const detail::ArrayImpl& impl = detail::implOf(x);
    if (!impl.shards) return std::nullopt;
    std::vector<std::pair<std::string, int64_t>> axes;
    for (const MeshAxis& axis : impl.shards->sharding.mesh.axes) axes.emplace_back(axis.name, axis.size);
    return NamedSharding(Mesh(std::move(axes)), impl.shards->sharding.dims);
  });
}

std::vector<Array> addressable_shards(const Array& x) {
  return translated([&] {
    const detail::ArrayImpl& impl = detail::implOf(x);
    std::vector<Array> out;
    if (!impl.shards) {
      out.push_back(x);
      return out;
    }
    for (const runtime::Buffer& piece : impl.shards->pieces)
      out.push_back(detail::makeConcrete(detail::Session::get().upload(piece.toLiteral())));
    return out;
  });
}

int processIndex() {
  return detail::acrossProcesses() ? translated([] { return detail::clientWith(0)->processIndex(); }) : 0;
}

int processCount() {
  return detail::acrossProcesses() ? translated([] { return detail::clientWith(0)->numProcesses(); }) : 1;
}

}  // namespace kiln
