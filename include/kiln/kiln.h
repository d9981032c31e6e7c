// kiln's public C++ API, all of it: programs as StableHLO text (kiln/program.h) and the
// numpy-like frontend (arrays, ops, transformations, random numbers, neural-network ops,
// optimizers).
// These headers need nothing but the standard library; everything else in kiln is
// internal and may change under them.
#pragma once

#include "kiln/array.h"
#include "kiln/error.h"
#include "kiln/indexing.h"
#include "kiln/lax.h"
#include "kiln/nn.h"
#include "kiln/numpy.h"
#include "kiln/optim.h"
#include "kiln/program.h"
#include "kiln/random.h"
#include "kiln/transforms.h"
#include "kiln/tree.h"
#include "kiln/version.h"
