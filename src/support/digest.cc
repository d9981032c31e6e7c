#include "support/digest.h"

#include <cstdio>

namespace kiln {

std::string Fingerprint::hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return text;
}

Fingerprint fingerprint(std::string_view bytes) {
  Hasher h;
  h.str(bytes);
  return h.result();
}

}  // namespace kiln
