// The StableHLO release whose portable artifacts kiln reads (each VHLO op at the version
// current then, the op table's VHLO column): what kiln's plugins declare as
// stablehlo_current_version, so that a framework serializes its programs for it. Older
// artifacts read too, as long as their ops are at these versions.
#pragma once

namespace kiln::stablehlo {

inline constexpr int kStablehloVersion[3] = {1, 17, 0};

}  // namespace kiln::stablehlo
