// What a conformance kit needs whatever C API it checks: a check's verdicts (Fail and
// Skip, thrown with why), running one check with what it owns cleaned up after it, and
// the reports of a plugin that crashes or hangs inside a check (naming the check).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "testing/plugin_check.h"

namespace kiln::testing::kit {

struct Fail {
  std::string why;
};
struct Skip {
  std::string why;
};

inline void require(bool ok, const std::string& why) {
  if (!ok) throw Fail{why};
}

// The check now running, for the crash and hang reports; endCheck: none.
void beginCheck(const std::string& name);
void endCheck();
// Signals that end the process print "CRASH <check>" first.
void installCrashHandlers();
// Ends the process when a check runs past `seconds` (a plugin that hangs), printing
// "HANG <check>".
void startWatchdog(double seconds);

// Runs checks, printing a line for each ("PASS", "FAIL" or "SKIP", its name, and why),
// and counts them. What a check creates is handed to own(): undone when it ends, last
// first.
class CheckRunner {
 public:
  explicit CheckRunner(std::ostream& out) : out_(out) {}

  void check(const std::string& name, const std::function<void()>& body) {
    beginCheck(name);
    std::string verdict, why;
    try {
      body();
      verdict = "PASS";
    } catch (const Fail& f) {
      verdict = "FAIL";
      why = f.why;
    } catch (const Skip& s) {
      verdict = "SKIP";
      why = s.why;
    } catch (const std::exception& e) {
      verdict = "FAIL";
      why = std::string("the kit caught an exception: ") + e.what();
    }
    cleanUp();
    endCheck();
    (verdict == "PASS" ? summary_.passed : verdict == "FAIL" ? summary_.failed : summary_.skipped)++;
    out_ << "  " << verdict << "  " << name << (why.empty() ? "" : ": " + why) << "\n" << std::flush;
  }

  void own(std::function<void()> undo) { cleanup_.push_back(std::move(undo)); }
  PluginCheckSummary summary() const { return summary_; }

 private:
  void cleanUp() {
    while (!cleanup_.empty()) {
      auto f = std::move(cleanup_.back());
      cleanup_.pop_back();
      f();
    }
  }

  std::ostream& out_;
  PluginCheckSummary summary_;
  std::vector<std::function<void()>> cleanup_;
};

}  // namespace kiln::testing::kit
