// What the cpu backend's tests share: a program parsed twice, once kept as the
// interpreter's reference and once optimized by the cpu pipeline and compiled, and a
// check of its results against the interpreter's at several thread counts.
#pragma once

#include <memory>
#include <string>

#include "backends/cpu/executable.h"
#include "backends/cpu/threads.h"
#include "interp/interpreter.h"
#include "passes/pass_manager.h"
#include "passes/pass_test_util.h"
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

// Runs @main at 1, 2 and 8 threads, each time bit for bit against the interpreter.
inline void expectInterpreterBitsAtEveryThreadCount(Compiled& c) {
  const Function& fn = *c.module->lookup("main");
  interp::HostValues args;
  for (size_t i = 0; i < fn.numParams(); ++i)
    args.push_back(passes::test_util::ordinaryValues(fn.param(i)->type(), static_cast<int>(i)));
  interp::HostValues expected = interp::Interpreter(*c.reference).call("main", args);
  for (int threads : {1, 2, 8}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    setThreadCount(threads);
    passes::test_util::expectBitIdentical(expected, c.exe->call(fn, args), "");
  }
  setThreadCount(0);
}

}  // namespace kiln::cpu::test_util
