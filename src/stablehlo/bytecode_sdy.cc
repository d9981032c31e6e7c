// Shardy's attribute codes (bytecode_sdy.h): the order of SdyDialectTypes in Shardy's
// bytecode.td, which Shardy never renumbers. Lists are a varint count then their
// elements; nested attributes are attribute indices; optional ones a varint with a flag.
#include "stablehlo/bytecode_sdy.h"

#include <vector>

#include "support/error.h"

namespace kiln::stablehlo::bytecode {

std::string quotedText(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

}  // namespace

SdyText readSdyAttribute(ByteReader& r, const std::function<SdyText(uint64_t)>& nested,
                         const std::function<const std::string&(uint64_t)>& string) {
  auto count = [&](const char* what) {
    const uint64_t n = r.varint(what);
    if (n > (uint64_t{1} << 24)) r.fail(std::string(what) + ": " + std::to_string(n) + " of them");
    return n;
  };
  auto innerList = [&](const char* what) {
    std::vector<std::string> parts;
    for (uint64_t i = 0, n = count(what); i < n; ++i) parts.push_back(nested(r.varint(what)).inner);
    return parts;
  };
  auto signedList = [&](const char* what) {
    std::vector<std::string> parts;
    for (uint64_t i = 0, n = count(what); i < n; ++i) parts.push_back(std::to_string(r.signedVarint(what)));
    return parts;
  };
  auto same = [](std::string s) { return SdyText{s, s}; };
  const uint64_t code = r.varint("a Shardy attribute code");
  switch (code) {
    case 0: {  // manual axes: their names
      std::vector<std::string> names;
      for (uint64_t i = 0, n = count("manual axes"); i < n; ++i) names.push_back(nested(r.varint("a manual axis")).inner);
      const std::string inner = "{" + joined(names) + "}";
      return {"#sdy<manual_axes" + inner + ">", inner};
    }
    case 1: {  // a mesh axis: its name and size
      const std::string name = quotedText(string(r.varint("a mesh axis's name")));
      return same(name + "=" + std::to_string(r.signedVarint("a mesh axis's size")));
    }
    case 2: {  // a mesh: its axes, then its device ids
      const std::vector<std::string> axes = innerList("a mesh's axes");
      const std::vector<std::string> ids = signedList("a mesh's device ids");
      const std::string inner = "<[" + joined(axes) + "]" + (ids.empty() ? "" : ", device_ids=[" + joined(ids) + "]") + ">";
      return {"#sdy.mesh" + inner, inner};
    }
    case 3: {  // a sub-axis: the product of the sizes before it, and its size
      const int64_t pre = r.signedVarint("a sub-axis's pre-size");
      return same("(" + std::to_string(pre) + ")" + std::to_string(r.signedVarint("a sub-axis's size")));
    }
    case 4: {  // an axis reference: the axis's name, and an optional sub-axis
      std::string text = quotedText(string(r.varint("an axis reference's name")));
      bool present = false;
      const uint64_t sub = r.varintWithFlag(present, "an axis reference's sub-axis");
      if (present) text += ":" + nested(sub).inner;
      else if (sub != 0) r.fail("an absent sub-axis with a value");
      return same(text);
    }
    case 5: {  // a dimension's sharding: its axes, whether it is closed, its priority
      std::vector<std::string> axes = innerList("a dimension's axes");
      const uint8_t closed = r.byte("whether a dimension sharding is closed");
      if (closed > 1) r.fail("a boolean of " + std::to_string(closed));
      if (!closed) axes.push_back("?");
      bool present = false;
      const uint64_t priority = r.varintWithFlag(present, "a dimension sharding's priority");
      return same("{" + joined(axes) + "}" + (present ? "p" + std::to_string(priority) : ""));
    }
    case 6:
    case 15: {  // a tensor's sharding: its mesh or mesh name, dimensions, replicated (and unreduced) axes
      const SdyText mesh = nested(r.varint("a sharding's mesh"));
      const std::string meshText = mesh.text.rfind("#sdy.mesh", 0) == 0 ? "mesh" + mesh.inner : mesh.inner;
      std::string inner = "<" + meshText + ", [" + joined(innerList("a sharding's dimensions")) + "]";
      const std::vector<std::string> replicated = innerList("a sharding's replicated axes");
      if (!replicated.empty()) inner += ", replicated={" + joined(replicated) + "}";
      if (code == 15) {
        const std::vector<std::string> unreduced = innerList("a sharding's unreduced axes");
        if (!unreduced.empty()) inner += ", unreduced={" + joined(unreduced) + "}";
      }
      inner += ">";
      return {"#sdy.sharding" + inner, inner};
    }
    case 7:
    case 16: {  // one sharding per value
      const std::string inner = "[" + joined(innerList("shardings per value")) + "]";
      return {"#sdy.sharding_per_value<" + inner + ">", inner};
    }
  }
  static const char* const kOthers[] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                        "a dimension mapping", "a tensor mapping", "a sharding rule",
                                        "an axis reference list", "a list of axis reference lists",
                                        "an all-to-all parameter", "an all-to-all parameter list", nullptr, nullptr,
                                        "a sharding with a reduction other than sum"};
  if (code < std::size(kOthers) && kOthers[code])
    throw Error(ErrorKind::Unsupported, std::string("Shardy's ") + kOthers[code] + " attribute");
  r.fail("Shardy attribute code " + std::to_string(code) + ", which Shardy does not have");
}

}  // namespace kiln::stablehlo::bytecode
