// A first kiln program, using only the public API (include/kiln/kiln.h): load a StableHLO
// file, run it on the interpreter, optimize it, and check it still computes the same.
//   build/examples/hello_kiln examples/softmax.mlir
#include <cstdio>
#include <vector>

#include <kiln/kiln.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hello_kiln FILE.mlir (a @main taking one f32 tensor)\n");
    return 2;
  }
  try {
    kiln::Program program = kiln::Program::load(argv[1]);
    program.verify();

    // @main of softmax.mlir takes a 4x8 f32 array: 0, 0.1, 0.2, ...
    std::vector<float> values(32);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0.1f * static_cast<float>(i);
    kiln::HostArray x = kiln::HostArray::of<float>({4, 8}, values);
    std::vector<kiln::HostArray> before = program.run({x});

    std::printf("%s", program.optimize().c_str());  // the report of every pass
    std::vector<kiln::HostArray> after = program.run({x});

    std::vector<float> y = after.at(0).values<float>();
    std::printf("row 0 of the result: ");
    for (size_t i = 0; i < 8; ++i) std::printf("%.4f ", y[i]);
    std::printf("\n");
    // The optimizer never changes an answer: the same bits before and after.
    bool same = before.at(0).bytes() == after.at(0).bytes();
    std::printf(same ? "same results after optimizing\n" : "results differ after optimizing\n");
    return same ? 0 : 1;
  } catch (const kiln::ApiError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return e.kind() == "usage" ? 2 : 1;
  }
}
