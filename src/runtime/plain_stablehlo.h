// What kiln's client sends a PJRT plugin without the kiln extension (another vendor's),
// which takes plain StableHLO and enters a module at its @main.
#pragma once

#include <string>
#include <string_view>

namespace kiln::runtime {

// What a plugin without the kiln extension is sent: `text` as plain StableHLO, CHLO and
// kiln's composite ops (kiln.stop_gradient, ...) replaced by their decompositions
// (passes' lower-chlo), any other op of kiln's own, or of its test harness, an
// Unsupported error at the op; entered at @main: an `entry` of another name becomes the
// module's @main (the functions it calls stay, private), as the kiln extension's
// kiln.entry would choose it.
// `name` names the text in errors, `plugin` the plugin.
std::string plainStableHlo(std::string_view text, const std::string& name, const std::string& entry,
                           const std::string& plugin);

}  // namespace kiln::runtime
