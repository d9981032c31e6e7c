// Uses kiln through its installed headers and libkiln.so alone: a StableHLO program run
// on the interpreter, and a jitted gradient run on the cpu plugin, which libkiln.so finds
// beside itself. Prints what install_test.sh checks.
#include <cstdio>

#include <kiln/kiln.h>

#if !KILN_VERSION_AT_LEAST(0, 1, 0)
#error "the installed headers are older than 0.1.0"
#endif

int main() {
  try {
    kiln::Program program = kiln::Program::parse(R"(
      func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
        %y = stablehlo.multiply %x, %x : tensor<3xf32>
        return %y : tensor<3xf32>
      })");
    std::vector<kiln::HostArray> squares = program.run({kiln::HostArray::of<float>({3}, {1, 2, 3})});
    std::vector<float> s = squares.at(0).values<float>();
    std::printf("kiln %s\nsquares %g %g %g\n", KILN_VERSION_STRING, s[0], s[1], s[2]);

    // d/dx sum(tanh(x) * x) at x = 0.5, jitted.
    auto f = [](const kiln::Array& x) { return kiln::sum(kiln::tanh(x) * x); };
    float slope = kiln::jit(kiln::grad(f))(kiln::full({}, 0.5)).item<float>();
    std::printf("slope %.5f\n", slope);
  } catch (const kiln::ApiError& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
