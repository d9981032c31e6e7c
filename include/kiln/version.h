// kiln's version: the one place it is written (CMakeLists.txt reads it from here for the
// project, the CMake package and pkg-config; `kiln --version` prints it).
#pragma once

#define KILN_VERSION_MAJOR 0
#define KILN_VERSION_MINOR 1
#define KILN_VERSION_PATCH 0
#define KILN_VERSION_STRING "0.1.0"

// Whether the headers are at least version a.b.c: #if KILN_VERSION_AT_LEAST(0, 1, 0)
#define KILN_VERSION_AT_LEAST(a, b, c)                                                  \
  (KILN_VERSION_MAJOR > (a) || (KILN_VERSION_MAJOR == (a) && KILN_VERSION_MINOR > (b)) || \
   (KILN_VERSION_MAJOR == (a) && KILN_VERSION_MINOR == (b) && KILN_VERSION_PATCH >= (c)))
