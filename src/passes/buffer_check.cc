// The independent check of a buffer assignment: liveness recomputed from the use lists
// (not from the assigner's walk), then every pair of values that are live at the same
// time must sit in different bytes — except a result written in place over the operand
// that dies at its op. Tests run it over every conformance program.
#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "passes/buffer_assignment.h"

namespace kiln::passes {
std::vector<std::string> checkBufferAssignment(const Function& fn, const BufferAssignment& a) {
  std::vector<std::string> problems;
  const Region& body = fn.body();
  std::unordered_map<const Op*, int64_t> positionOf;
  std::vector<const Value*> values;
  for (size_t i = 0; i < body.numArguments(); ++i) values.push_back(body.argument(i));
  int64_t n = 0;
  for (const auto& op : body.ops()) {
    positionOf[op.get()] = n++;
    if (!op->info().isTerminator())
      for (const Value* r : op->results()) values.push_back(r);
  }
  std::unordered_map<const Value*, const BufferedValue*> assigned;
  for (const BufferedValue& v : a.values) assigned[v.value] = &v;
  if (assigned.size() != values.size())
    problems.push_back(fmt::format("{} values assigned, the function has {}", assigned.size(), values.size()));

  for (const Value* v : values) {
    auto it = assigned.find(v);
    if (it == assigned.end()) {
      problems.push_back("a value of type " + v->type().str() + " has no assignment");
      continue;
    }
    const BufferedValue& b = *it->second;
    int64_t def = v->isArgument() ? -1 : positionOf.at(v->definingOp());
    int64_t last = def;
    for (const Use& use : v->uses()) last = std::max(last, positionOf.at(body.findAncestorOp(use.user)));
    if (b.start > def || b.end < last)
      problems.push_back(fmt::format("{} from {} is live [{}, {}] but defined at {} and read until {}",
                                     v->type().str(), b.producer, b.start, b.end, def, last));
    bool keptByCaller = b.kind == BufferedValue::Kind::Parameter && !b.donated;
    if ((keptByCaller || b.kind == BufferedValue::Kind::Constant) && (b.offset >= 0 || b.inParameter >= 0))
      problems.push_back(b.producer + " has a buffer of ours but is not ours to place");
    if (b.bytes > 0 && !keptByCaller && b.kind != BufferedValue::Kind::Constant && b.kind != BufferedValue::Kind::Parameter &&
        b.offset < 0)
      problems.push_back(fmt::format("{} from {} has no buffer", v->type().str(), b.producer));
  }

  // Occupants of each space: (space, start, end, offset, bytes, value index).
  struct Occupant {
    int64_t space, start, end, lo, hi;
    size_t index;
  };
  std::vector<Occupant> occupants;
  for (size_t i = 0; i < a.values.size(); ++i) {
    const BufferedValue& v = a.values[i];
    if (v.bytes == 0) continue;
    if (v.kind == BufferedValue::Kind::Parameter && v.donated) {
      occupants.push_back({static_cast<int64_t>(i), v.start, v.end, 0, v.bytes, i});
      continue;
    }
    if (v.offset < 0) continue;
    occupants.push_back({v.inParameter, v.start, v.end, v.offset, v.offset + v.bytes, i});
    if (v.inParameter < 0 && v.offset + v.bytes > a.arenaBytes)
      problems.push_back(fmt::format("{} at arena +{} ends past the arena ({} B)", v.producer, v.offset, a.arenaBytes));
    if (v.inParameter >= 0 && v.offset + v.bytes > a.values.at(v.inParameter).bytes)
      problems.push_back(v.producer + " does not fit the donated buffer it is in");
  }
  std::sort(occupants.begin(), occupants.end(),
            [](const Occupant& x, const Occupant& y) { return std::tie(x.space, x.start) < std::tie(y.space, y.start); });
  auto sharesLegally = [&](size_t x, size_t y) {  // y written in place over x at x's last read
    const BufferedValue& vy = a.values[y];
    return vy.reusesBufferOf == static_cast<int64_t>(x) && vy.start == a.values[x].end;
  };
  std::vector<const Occupant*> active;
  for (const Occupant& o : occupants) {
    std::erase_if(active, [&](const Occupant* p) { return p->space != o.space || p->end < o.start; });
    for (const Occupant* p : active) {
      bool bytesOverlap = p->lo < o.hi && o.lo < p->hi;
      if (bytesOverlap && !sharesLegally(p->index, o.index) && !sharesLegally(o.index, p->index))
        problems.push_back(fmt::format("{} (live [{}, {}]) and {} (live [{}, {}]) share bytes", a.values[p->index].producer,
                                       p->start, p->end, a.values[o.index].producer, o.start, o.end));
    }
    active.push_back(&o);
  }
  return problems;
}

}  // namespace kiln::passes
