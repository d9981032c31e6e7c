// The main job: train a small convolutional classifier on the handwritten digits that
// scikit-learn ships (1,797 8x8 images, Debian's python3-sklearn), with
// jit(value_and_grad(loss)) and Adam, using only the public API (include/kiln/kiln.h).
//
//   build/examples/digits_cnn [--epochs N] [--batch N] [--lr X] [--seed N]
//                             [--plot training.svg] [--data digits.csv.gz]
//
// Prints a progress bar per epoch with the training loss, the test accuracy and the time
// per step; exits non-zero when the final test accuracy is below 95%.
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Array;

constexpr const char* kDefaultData = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";

struct Digits {
  std::vector<float> pixels;  // [n, 8, 8, 1], scaled to [0, 1]
  std::vector<int32_t> labels;
  int64_t count() const { return static_cast<int64_t>(labels.size()); }
};

// digits.csv.gz: one image per line, 64 pixel values (0..16) then the label.
Digits loadDigits(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) {
    std::fprintf(stderr, "digits_cnn: cannot open %s (scripts/setup.sh installs python3-sklearn, which ships it)\n",
                 path.c_str());
    std::exit(1);
  }
  std::string text;
  char chunk[1 << 16];
  int n;
  while ((n = gzread(file, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<size_t>(n));
  gzclose(file);
  Digits d;
  std::istringstream lines(text);
  std::string line;
  int lineNo = 0;
  while (std::getline(lines, line)) {
    ++lineNo;
    if (line.empty()) continue;
    std::vector<int> values;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) values.push_back(std::atoi(field.c_str()));
    if (values.size() != 65) {
      std::fprintf(stderr, "digits_cnn: %s:%d: %zu fields, expected 65\n", path.c_str(), lineNo, values.size());
      std::exit(1);
    }
    for (int i = 0; i < 64; ++i) d.pixels.push_back(static_cast<float>(values[static_cast<size_t>(i)]) / 16.f);
    d.labels.push_back(values[64]);
  }
  return d;
}

// The images and labels at `rows`, on the device.
std::pair<Array, Array> subset(const Digits& d, const std::vector<int64_t>& rows) {
  std::vector<float> x;
  std::vector<int32_t> y;
  for (int64_t r : rows) {
    x.insert(x.end(), d.pixels.begin() + r * 64, d.pixels.begin() + (r + 1) * 64);
    y.push_back(d.labels[static_cast<size_t>(r)]);
  }
  int64_t n = static_cast<int64_t>(rows.size());
  return {Array::from_vector(x, {n, 8, 8, 1}), Array::from_vector(y, {n})};
}

// ---- the model ----
struct Conv {
  Array w, b;  // [3, 3, in, out], [out]
  KILN_TREE(w, b)
};
struct Dense {
  Array w, b;  // [in, out], [out]
  KILN_TREE(w, b)
};
struct Params {
  Conv conv1, conv2;
  Dense hidden, out;
  KILN_TREE(conv1, conv2, hidden, out)
};

// He-normal weights (variance 2 / fan-in), zero biases.
Array heNormal(std::mt19937& rng, const std::vector<int64_t>& shape, int64_t fanIn) {
  std::normal_distribution<float> normal(0.f, std::sqrt(2.f / static_cast<float>(fanIn)));
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(rng);
  return Array::from_vector(v, shape);
}

Params initParams(std::mt19937& rng) {
  Params p;
  p.conv1 = {heNormal(rng, {3, 3, 1, 16}, 9), kiln::zeros({16})};
  p.conv2 = {heNormal(rng, {3, 3, 16, 32}, 144), kiln::zeros({32})};
  p.hidden = {heNormal(rng, {4 * 4 * 32, 64}, 512), kiln::zeros({64})};
  p.out = {heNormal(rng, {64, 10}, 64), kiln::zeros({10})};
  return p;
}

// x [batch, 8, 8, 1] -> logits [batch, 10]
Array forward(const Params& p, const Array& x) {
  Array h = kiln::nn::relu(kiln::nn::conv(x, p.conv1.w) + p.conv1.b);
  h = kiln::nn::relu(kiln::nn::conv(h, p.conv2.w) + p.conv2.b);
  h = kiln::nn::max_pool(h, {.window = {2, 2}});
  h = kiln::reshape(h, {h.dim(0), -1});
  h = kiln::nn::relu(kiln::matmul(h, p.hidden.w) + p.hidden.b);
  return kiln::matmul(h, p.out.w) + p.out.b;
}

Array loss(const Params& p, const Array& x, const Array& y) {
  Array logp = kiln::nn::log_softmax(forward(p, x));
  return -kiln::mean(kiln::sum(kiln::one_hot(y, 10) * logp, -1));
}

Array accuracy(const Params& p, const Array& x, const Array& y) {
  return kiln::mean(kiln::argmax(forward(p, x), -1) == y);
}

// The training loss of every step (left axis) and the test accuracy after each epoch
// (right axis) as an SVG line chart with labelled axes.
void writePlot(const std::string& path, const std::vector<float>& losses, const std::vector<double>& accuracies,
               int stepsPerEpoch) {
  const double w = 640, h = 360, left = 55, right = 55, top = 30, bottom = 40;
  const double plotW = w - left - right, plotH = h - top - bottom;
  const float hi = *std::max_element(losses.begin(), losses.end());
  auto xAt = [&](double step) { return left + plotW * step / std::max<double>(1, losses.size() - 1); };
  auto text = [](double x, double y, const char* anchor, const std::string& s, int size = 10) {
    return "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" text-anchor=\"" + anchor +
           "\" font-size=\"" + std::to_string(size) + "\" font-family=\"sans-serif\">" + s + "</text>\n";
  };
  std::ofstream out(path + ".tmp");
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << text(w / 2, 16, "middle", "digits_cnn: training loss and test accuracy", 13)
      << "<path d=\"M" << left << " " << top << " V" << h - bottom << " H" << w - right << " V" << top
      << "\" fill=\"none\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double y = h - bottom - plotH * i / 4;
    out << text(left - 5, y + 4, "end", std::to_string(hi * i / 4).substr(0, 4))
        << text(w - right + 5, y + 4, "start", std::to_string(25 * i) + "%");
  }
  out << text(w / 2, h - 8, "middle", "training step (" + std::to_string(stepsPerEpoch) + " per epoch)", 11)
      << "<text transform=\"translate(14 " << top + plotH / 2 << ") rotate(-90)\" text-anchor=\"middle\" "
      << "font-size=\"11\" font-family=\"sans-serif\" fill=\"#1f77b4\">training loss (cross-entropy)</text>\n"
      << "<text transform=\"translate(" << w - 12 << " " << top + plotH / 2 << ") rotate(90)\" "
      << "text-anchor=\"middle\" font-size=\"11\" font-family=\"sans-serif\" fill=\"#d62728\">test accuracy</text>\n"
      << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.2\" points=\"";
  for (size_t i = 0; i < losses.size(); ++i)
    out << xAt(static_cast<double>(i)) << "," << h - bottom - plotH * losses[i] / hi << " ";
  out << "\"/>\n<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"";
  for (size_t e = 0; e < accuracies.size(); ++e)
    out << xAt(static_cast<double>((e + 1) * stepsPerEpoch - 1)) << "," << h - bottom - plotH * accuracies[e] << " ";
  out << "\"/>\n</svg>\n";
  out.close();
  std::rename((path + ".tmp").c_str(), path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 20, batch = 64;
  unsigned seed = 0;
  double lr = 3e-3;
  std::string plot, data = kDefaultData;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "digits_cnn: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--epochs") epochs = std::atoi(next().c_str());
    else if (a == "--batch") batch = std::atoi(next().c_str());
    else if (a == "--lr") lr = std::atof(next().c_str());
    else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(next().c_str()));
    else if (a == "--plot") plot = next();
    else if (a == "--data") data = next();
    else {
      std::fprintf(stderr,
                   "usage: digits_cnn [--epochs N] [--batch N] [--lr X] [--seed N] [--plot FILE.svg] [--data FILE]\n");
      return 2;
    }
  }
  if (epochs < 1 || batch < 1) {
    std::fprintf(stderr, "digits_cnn: --epochs and --batch must be positive\n");
    return 2;
  }

  try {
    Digits digits = loadDigits(data);
    std::mt19937 rng(seed);
    std::vector<int64_t> order(static_cast<size_t>(digits.count()));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    int64_t numTest = digits.count() / 5;
    std::vector<int64_t> testRows(order.begin(), order.begin() + numTest);
    std::vector<int64_t> trainRows(order.begin() + numTest, order.end());
    auto [xTest, yTest] = subset(digits, testRows);
    std::printf("digits: %lld train, %lld test images of 8x8; backend %s\n", static_cast<long long>(trainRows.size()),
                static_cast<long long>(numTest), kiln::backend().c_str());

    Params params = initParams(rng);
    kiln::optim::Adam opt{.learning_rate = lr};
    auto state = opt.init(params);

    auto step = kiln::jit(
        [opt](const Params& p, const kiln::optim::AdamState<Params>& s, const Array& x, const Array& y) {
          auto [value, grads] = kiln::value_and_grad(loss)(p, x, y);
          auto [updates, next] = opt.update(grads, s, p);
          return std::tuple{kiln::optim::apply_updates(p, updates), next, value};
        },
        {.name = "train_step", .donateArgnums = {0, 1}});  // the old parameters and state are not used again
    auto evaluate = kiln::jit(accuracy, {.name = "accuracy"});

    int stepsPerEpoch = static_cast<int>(trainRows.size()) / batch;
    bool terminal = isatty(STDOUT_FILENO);  // the bar moves per step only on a terminal
    std::vector<float> losses;
    std::vector<double> accuracies;  // after each epoch
    double accuracyNow = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      std::shuffle(trainRows.begin(), trainRows.end(), rng);
      auto start = std::chrono::steady_clock::now();
      double epochLoss = 0;
      for (int s = 0; s < stepsPerEpoch; ++s) {
        std::vector<int64_t> rows(trainRows.begin() + s * batch, trainRows.begin() + (s + 1) * batch);
        auto [x, y] = subset(digits, rows);
        Array value;
        std::tie(params, state, value) = step(params, state, x, y);
        float l = value.item<float>();
        losses.push_back(l);
        epochLoss += l;
        if (!terminal) continue;
        int filled = (s + 1) * 30 / stepsPerEpoch;
        std::printf("\repoch %2d/%d [%s%s] %d/%d loss %.4f", epoch, epochs, std::string(filled, '#').c_str(),
                    std::string(30 - filled, '.').c_str(), s + 1, stepsPerEpoch, l);
        std::fflush(stdout);
      }
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      accuracyNow = evaluate(params, xTest, yTest).item<double>();
      accuracies.push_back(accuracyNow);
      std::printf("%sepoch %2d/%d [%s] loss %.4f  test accuracy %5.1f%%  %.2f ms/step\n", terminal ? "\r" : "", epoch, epochs,
                  std::string(30, '#').c_str(), epochLoss / stepsPerEpoch, 100 * accuracyNow, ms / stepsPerEpoch);
    }
    std::printf("programs compiled: %lld (train step %lld, accuracy %lld)\n",
                static_cast<long long>(kiln::compile_count()), static_cast<long long>(step.compiles()),
                static_cast<long long>(evaluate.compiles()));
    if (!plot.empty()) {
      writePlot(plot, losses, accuracies, stepsPerEpoch);
      std::printf("loss and accuracy plot written to %s\n", plot.c_str());
    }
    std::printf("final test accuracy %.1f%% (target: at least 95%%)\n", 100 * accuracyNow);
    return accuracyNow >= 0.95 ? 0 : 1;
  } catch (const kiln::ApiError& e) {
    std::fprintf(stderr, "digits_cnn: %s\n", e.what());
    return 1;
  }
}
