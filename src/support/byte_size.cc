// parseByteSize and formatBytes (byte_size.h).
#include "support/byte_size.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "support/error.h"

namespace kiln {

int64_t parseByteSize(std::string_view text, std::string_view what) {
  auto fail = [&] {
    throw Error(ErrorKind::Usage, std::string(what) + ": '" + std::string(text) +
                                      "' is not a size in bytes (write 4G, 512M, 1.5GiB or a number of bytes)");
  };
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  double number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, number);
  if (end == 0 || ec != std::errc() || ptr != text.data() + end) fail();
  std::string suffix;
  for (char c : text.substr(end)) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string_view units = "KMGT";
  double scale = 1;
  if (!suffix.empty() && suffix != "B") {
    size_t power = units.find(suffix[0]);
    std::string_view rest = std::string_view(suffix).substr(1);
    if (power == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB")) fail();
    scale = std::ldexp(1.0, 10 * static_cast<int>(power + 1));
  }
  const double bytes = number * scale;
  if (!(bytes < 9.2e18)) fail();
  return static_cast<int64_t>(std::llround(bytes));
}

std::string formatBytes(int64_t bytes) {
  char out[32];
  if (bytes >= (int64_t{1} << 30)) std::snprintf(out, sizeof out, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  else if (bytes >= (1 << 20)) std::snprintf(out, sizeof out, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  else if (bytes >= (1 << 10)) std::snprintf(out, sizeof out, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  else std::snprintf(out, sizeof out, "%lld B", static_cast<long long>(bytes));
  return out;
}

}  // namespace kiln
