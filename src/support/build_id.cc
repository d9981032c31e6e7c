// buildIdOf (build_id.h): the GNU build-id note of the object that maps the address.
#include "support/build_id.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>

namespace kiln {
namespace {

struct Search {
  uintptr_t address;
  std::string id;
  bool found = false;  // the object that maps `address` was seen
};

// The hex of an NT_GNU_BUILD_ID note among the notes of [notes, notes + bytes), or "".
std::string buildIdNote(const uint8_t* notes, size_t bytes) {
  auto padded = [](size_t n) { return (n + 3) & ~size_t{3}; };
  size_t at = 0;
  while (at + sizeof(ElfW(Nhdr)) <= bytes) {
    ElfW(Nhdr) header;
    std::memcpy(&header, notes + at, sizeof header);
    const uint8_t* name = notes + at + sizeof header;
    const uint8_t* desc = name + padded(header.n_namesz);
    const size_t next = sizeof header + padded(header.n_namesz) + padded(header.n_descsz);
    if (at + next > bytes) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
      static const char* digits = "0123456789abcdef";
      std::string hex;
      for (size_t i = 0; i < header.n_descsz; ++i) {
        hex += digits[desc[i] >> 4];
        hex += digits[desc[i] & 15];
      }
      return hex;
    }
    at += next;
  }
  return "";
}

int visit(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  bool maps = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && search->address >= start && search->address < start + segment.p_memsz)
      maps = true;
  }
  if (!maps) return 0;
  search->found = true;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum && search->id.empty(); ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_NOTE)
      search->id = buildIdNote(reinterpret_cast<const uint8_t*>(info->dlpi_addr + segment.p_vaddr), segment.p_memsz);
  }
  return 1;
}

}  // namespace

std::string buildIdOf(const void* address) {
  Search search{reinterpret_cast<uintptr_t>(address), ""};
  dl_iterate_phdr(visit, &search);
  if (!search.id.empty()) return search.id;
  // No note: the file itself stands for the build.
  Dl_info info{};
  if (dladdr(address, &info) && info.dli_fname) {
    struct stat st{};
    std::string id = info.dli_fname;
    if (stat(info.dli_fname, &st) == 0)
      id += " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
            std::to_string(st.st_mtim.tv_nsec);
    return id;
  }
  return "unknown build";
}

}  // namespace kiln
