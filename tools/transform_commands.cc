// `kiln grad`, `kiln jvp`, `kiln vjp`, `kiln vmap`: transform a function of a StableHLO
// file and print the result as a module whose @main is the transformed program (plain
// StableHLO: `kiln run`, `kiln fmt` and other tools read it). The program is cleaned up
// by the optimizer's target-independent passes (inline, simplify, CSE, DCE) unless
// --no-cleanup.
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.h"
#include "ir/verifier.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "stablehlo/parser.h"
#include "stablehlo/printer.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "transforms/autodiff.h"
#include "transforms/vmap.h"

namespace kiln::tool {
namespace {

enum class Mode { Grad, Jvp, Vjp, Vmap };

struct TransformOptions {
  std::string file;
  std::string entry = "main";
  std::string wrt = "0";
  std::string output;
  bool withValue = false;
  bool hasAux = false;
  bool noCleanup = false;
  int64_t loopBound = 0;
  std::string remat = "none";
  std::string inAxes, outAxes;
  int64_t batch = 0;
};

// "0,none,2" -> {0, nullopt, 2}; empty -> {}.
std::vector<std::optional<int64_t>> parseAxes(const std::string& text, const char* flag) {
  std::vector<std::optional<int64_t>> out;
  if (text.empty()) return out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == "none" || item == "None") {
      out.push_back(std::nullopt);
      continue;
    }
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < 0)
      throw Error(ErrorKind::Usage, std::string(flag) + " takes dimensions or 'none' separated by commas (e.g. 0,none), got '" +
                                        text + "'");
    out.push_back(v);
  }
  return out;
}

// "0,2" -> {0, 2}: parameter numbers.
std::vector<size_t> parseIndexList(const std::string& text) {
  std::vector<size_t> out;
  for (const auto& index : parseAxes(text, "--wrt")) {
    if (!index) throw Error(ErrorKind::Usage, "--wrt takes parameter numbers separated by commas (e.g. 0,2)");
    out.push_back(static_cast<size_t>(*index));
  }
  if (out.empty()) throw Error(ErrorKind::Usage, "--wrt names no parameter");
  return out;
}

transforms::VjpOptions vjpOptions(const TransformOptions& o) {
  transforms::VjpOptions v;
  v.loopBound = o.loopBound;
  if (o.remat == "none") v.remat = transforms::Remat::None;
  else if (o.remat == "all") v.remat = transforms::Remat::All;
  else if (o.remat == "dots") v.remat = transforms::Remat::Dots;
  else throw Error(ErrorKind::Usage, "--remat takes none, all or dots, got '" + o.remat + "'");
  return v;
}

int runTransform(Mode mode, const TransformOptions& o) {
  std::unique_ptr<Module> module = stablehlo::parseModule(readInput(o.file));
  verifyModule(*module);
  Function* f = module->lookup(o.entry);
  if (!f) throw Error(ErrorKind::Usage, "no function @" + o.entry + " in " + o.file);
  const char* suffix[] = {"grad", "jvp", "vjp", "vmap"};
  const std::string name = o.entry + "." + suffix[static_cast<int>(mode)];
  Function* d = nullptr;
  switch (mode) {
    case Mode::Grad: {
      transforms::GradOptions g;
      g.wrt = parseIndexList(o.wrt);
      g.withValue = o.withValue;
      g.hasAux = o.hasAux;
      g.vjp = vjpOptions(o);
      d = &transforms::grad(*module, *f, g, name);
      break;
    }
    case Mode::Jvp: d = &transforms::jvp(*module, *f, name); break;
    case Mode::Vjp: d = &transforms::vjp(*module, *f, name, vjpOptions(o)); break;
    case Mode::Vmap: {
      transforms::VmapOptions v;
      v.inAxes = parseAxes(o.inAxes, "--in-axes");
      for (const auto& axis : parseAxes(o.outAxes, "--out-axes")) {
        if (!axis) throw Error(ErrorKind::Usage, "--out-axes takes dimensions only");
        v.outAxes.push_back(*axis);
      }
      v.size = o.batch;
      d = &transforms::vmap(*module, *f, v, name);
      break;
    }
  }
  // The new program becomes @main; everything else is private, so inlining drops it.
  for (const auto& fn : module->functions()) fn->visibility = Visibility::Private;
  if (Function* old = module->lookup("main")) old->setName(o.entry == "main" ? "main.primal" : "main.original");
  d->setName("main");
  d->visibility = Visibility::Public;
  verifyModule(*module);
  if (!o.noCleanup) {
    passes::PassContext context;
    passes::runPipeline(*module, passes::parsePassList("inline,fixpoint(simplify),cse,dce"), context);
  }
  std::string text = stablehlo::printModule(*module);
  if (o.output.empty()) {
    std::cout << text;
    return 0;
  }
  writeFileAtomically(o.output, text);
  return 0;
}

std::function<int()> addMode(CLI::App& app, Mode mode, const char* name, const char* help) {
  auto o = std::make_shared<TransformOptions>();
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->add_option("file", o->file, "Input .mlir file, or - for standard input")->required();
  cmd->add_option("--entry", o->entry, "The function to differentiate")->default_val("main");
  if (mode == Mode::Grad) {
    cmd->add_option("--wrt", o->wrt, "Parameters to differentiate with respect to, e.g. 0,2")->default_val("0");
    cmd->add_flag("--with-value", o->withValue, "Return the value before the gradients (value_and_grad)");
    cmd->add_flag("--has-aux", o->hasAux,
                  "The function returns the loss, then auxiliary outputs: returned after the gradients, not "
                  "differentiated");
  }
  if (mode == Mode::Vmap) {
    cmd->add_option("--in-axes", o->inAxes, "Per parameter: its batch dimension, or none (default: 0 for all)");
    cmd->add_option("--out-axes", o->outAxes, "Per result: where its batch dimension goes (default: 0 for all)");
    cmd->add_option("--batch", o->batch, "The batch size")->required()->check(CLI::PositiveNumber);
  }
  if (mode == Mode::Grad || mode == Mode::Vjp)
    cmd->add_option("--remat", o->remat,
                    "What the backward computation keeps: none (everything it needs, the default), all "
                    "(only the parameters: recompute the rest) or dots (parameters and dot/convolution outputs)");
  if (mode == Mode::Grad || mode == Mode::Vjp)
    cmd->add_option("--loop-bound", o->loopBound,
                    "Reverse a while loop whose trip count is only known at run time by storing up to this many "
                    "iterations (a run that iterates more fails)")
        ->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", o->output, "Write to this file instead of standard output");
  cmd->add_flag("--no-cleanup", o->noCleanup, "Print the program as built, without inline/simplify/CSE/DCE");
  return [o, mode] { return runTransform(mode, *o); };
}

}  // namespace

std::function<int()> addGradCommand(CLI::App& app) {
  return addMode(app, Mode::Grad, "grad",
                 "Print the gradient program of a function returning one float scalar: @main takes the "
                 "original parameters and returns the gradients (after the value with --with-value)");
}
std::function<int()> addJvpCommand(CLI::App& app) {
  return addMode(app, Mode::Jvp, "jvp",
                 "Print the forward-mode program: @main(primals..., tangents of the float parameters...) -> "
                 "(results..., tangents of the float results...)");
}
std::function<int()> addVmapCommand(CLI::App& app) {
  return addMode(app, Mode::Vmap, "vmap",
                 "Print the batched program: @main takes the parameters with a batch dimension at their "
                 "--in-axes (none: shared) and returns the results with it at their --out-axes");
}
std::function<int()> addVjpCommand(CLI::App& app) {
  return addMode(app, Mode::Vjp, "vjp",
                 "Print the reverse-mode program: @main(primals..., cotangents of the float results...) -> "
                 "(results..., cotangents of the float parameters...)");
}

}  // namespace kiln::tool
