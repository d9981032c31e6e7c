// What the cpu backend's tests share: a program parsed twice, once kept as the
// interpreter's reference and once optimized by the cpu pipeline and compiled.
#pragma once

#include <memory>
#include <string>

#include "backends/cpu/executable.h"
#include "passes/pass_manager.h"
#include "stablehlo/parser.h"

namespace kiln::cpu::test_util {

struct Compiled {
  std::unique_ptr<Module> reference, module;
  std::unique_ptr<Executable> exe;
};

inline Compiled compile(const std::string& text) {
  Compiled c{stablehlo::parseModule(text), stablehlo::parseModule(text), nullptr};
  passes::PassContext context;
  passes::runPipeline(*c.module, cpuPipeline(), context);
  c.exe = std::make_unique<Executable>(*c.module);
  return c;
}

}  // namespace kiln::cpu::test_util
