// A small character-level transformer trained on the word list of Debian's wamerican
// package (/usr/share/dict/words), then asked for new words. The layers' weights are
// stacked along a leading axis and applied with lax::scan (one traced block, not one per
// layer); the step is jit(value_and_grad(loss)) with Adam; the weights start from
// kiln::random (JAX's threefry streams).
//
//   build/examples/char_transformer [--steps N] [--layers N] [--samples N] [--seed N]
//                                   [--words FILE]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

using kiln::Array;

constexpr int64_t kContext = 16;  // characters seen at once (words up to 14 letters)
constexpr int64_t kVocab = 27;    // '.' (begin / end) and a..z
constexpr int64_t kWidth = 64;
constexpr int64_t kHeads = 4;

// One block's weights; Params::layers holds them stacked: each leaf has a leading axis of
// the number of layers.
struct Block {
  Array ln1, qkv, out, ln2, up, upBias, down;
  KILN_TREE(ln1, qkv, out, ln2, up, upBias, down)
};
struct Params {
  Array embed, position, finalNorm;
  Block layers;
  KILN_TREE(embed, position, finalNorm, layers)
};

Array normalInit(const Array& key, std::vector<int64_t> shape, double scale) {
  return kiln::random::normal(key, shape) * scale;
}

Params initParams(const Array& seedKey, int64_t layers) {
  std::vector<Array> k = kiln::random::split(seedKey, 6);
  double s = 0.02;
  Block b{kiln::ones({layers, kWidth}),
          normalInit(k[2], {layers, kWidth, 3 * kWidth}, s),
          normalInit(k[3], {layers, kWidth, kWidth}, s / std::sqrt(2.0 * static_cast<double>(layers))),
          kiln::ones({layers, kWidth}),
          normalInit(k[4], {layers, kWidth, 4 * kWidth}, s),
          kiln::zeros({layers, 4 * kWidth}),
          normalInit(k[5], {layers, 4 * kWidth, kWidth}, s / std::sqrt(2.0 * static_cast<double>(layers)))};
  return {normalInit(k[0], {kVocab, kWidth}, s), normalInit(k[1], {kContext, kWidth}, s), kiln::ones({kWidth}), b};
}

Array rmsNorm(const Array& x, const Array& scale) {
  return x * kiln::rsqrt(kiln::mean(x * x, -1, true) + 1e-5) * scale;
}

// One pre-norm block on x [batch, time, width]: causal multi-head attention, then an MLP.
Array block(const Array& x, const Block& w) {
  int64_t batch = x.dim(0), dh = kWidth / kHeads;
  Array h = rmsNorm(x, w.ln1);
  std::vector<Array> qkv = kiln::split(kiln::matmul(h, w.qkv), 3, -1);
  auto heads = [&](const Array& a) { return kiln::reshape(a, {batch, kContext, kHeads, dh}); };
  Array scores = kiln::einsum("bthd,bshd->bhts", {heads(qkv[0]), heads(qkv[1])}) / std::sqrt(static_cast<double>(dh));
  Array causal = kiln::reshape(kiln::arange(kContext), {kContext, 1}) >= kiln::reshape(kiln::arange(kContext), {1, kContext});
  Array attention = kiln::nn::softmax(kiln::where(causal, scores, -1e9));
  Array mixed = kiln::reshape(kiln::einsum("bhts,bshd->bthd", {attention, heads(qkv[2])}), {batch, kContext, kWidth});
  Array y = x + kiln::matmul(mixed, w.out);
  Array m = kiln::nn::gelu(kiln::matmul(rmsNorm(y, w.ln2), w.up) + w.upBias);
  return y + kiln::matmul(m, w.down);
}

// tokens [batch, time] (int32) -> logits [batch, time, vocab]
Array forward(const Params& p, const Array& tokens) {
  Array x = kiln::take(p.embed, tokens) + p.position;
  auto [out, unused] = kiln::lax::scan(
      [](const Array& h, const Block& w) { return std::pair<Array, Array>{block(h, w), kiln::zeros({})}; }, x, p.layers);
  return kiln::matmul(rmsNorm(out, p.finalNorm), kiln::transpose(p.embed));  // tied embeddings
}

// Mean cross-entropy of the next character where `mask` is 1.
Array loss(const Params& p, const Array& inputs, const Array& targets, const Array& mask) {
  Array logp = kiln::nn::log_softmax(forward(p, inputs));
  Array picked = kiln::sum(logp * kiln::one_hot(targets, kVocab), -1);
  return -kiln::sum(picked * mask) / kiln::sum(mask);
}

struct Corpus {
  std::vector<int32_t> tokens;  // [words, context + 1]: '.', the letters, '.', then '.' padding
  std::vector<float> mask;      // [words, context]: 1 up to and including the end '.'
  int64_t words = 0;
};

Corpus readWords(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "char_transformer: cannot open %s (scripts/setup.sh installs wamerican)\n", path.c_str());
    std::exit(1);
  }
  Corpus c;
  std::string w;
  while (std::getline(in, w)) {
    if (w.empty() || static_cast<int64_t>(w.size()) > kContext - 2 ||
        !std::all_of(w.begin(), w.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; }))
      continue;
    std::vector<int32_t> t(kContext + 1, 0);
    for (size_t i = 0; i < w.size(); ++i) t[i + 1] = w[i] - 'a' + 1;
    c.tokens.insert(c.tokens.end(), t.begin(), t.end());
    for (int64_t i = 0; i < kContext; ++i) c.mask.push_back(i <= static_cast<int64_t>(w.size()) ? 1.f : 0.f);
    ++c.words;
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 1500, samples = 12;
  int64_t layers = 2, batch = 64;
  unsigned seed = 0;
  std::string words = "/usr/share/dict/words";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "char_transformer: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--steps") steps = std::atoi(value().c_str());
    else if (a == "--layers") layers = std::atoi(value().c_str());
    else if (a == "--samples") samples = std::atoi(value().c_str());
    else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(value().c_str()));
    else if (a == "--words") words = value();
    else {
      std::fprintf(stderr, "usage: char_transformer [--steps N] [--layers N] [--samples N] [--seed N] [--words FILE]\n");
      return 2;
    }
  }
  if (steps < 1 || layers < 1) {
    std::fprintf(stderr, "char_transformer: --steps and --layers must be positive\n");
    return 2;
  }
  try {
    Corpus corpus = readWords(words);
    std::printf("%lld words of at most %lld letters; a %lld-layer transformer of width %lld\n",
                static_cast<long long>(corpus.words), static_cast<long long>(kContext - 2),
                static_cast<long long>(layers), static_cast<long long>(kWidth));
    Array key = kiln::random::key(seed);
    Params params = initParams(key, layers);
    kiln::optim::Adam opt{.learning_rate = 3e-3};
    auto state = opt.init(params);
    auto step = kiln::jit(
        [opt](const Params& p, const kiln::optim::AdamState<Params>& s, const Array& in, const Array& out,
              const Array& mask) {
          auto [value, grads] = kiln::value_and_grad(loss)(p, in, out, mask);
          auto [updates, next] = opt.update(grads, s, p);
          return std::tuple{kiln::optim::apply_updates(p, updates), next, value};
        },
        {.name = "train_step"});

    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> pick(0, corpus.words - 1);
    bool terminal = isatty(STDOUT_FILENO);
    auto start = std::chrono::steady_clock::now();
    double recent = 0;
    for (int s = 1; s <= steps; ++s) {
      std::vector<int32_t> in, out;
      std::vector<float> mask;
      for (int64_t b = 0; b < batch; ++b) {
        int64_t w = pick(rng);
        auto row = corpus.tokens.begin() + w * (kContext + 1);
        in.insert(in.end(), row, row + kContext);
        out.insert(out.end(), row + 1, row + kContext + 1);
        auto m = corpus.mask.begin() + w * kContext;
        mask.insert(mask.end(), m, m + kContext);
      }
      Array value;
      std::tie(params, state, value) = step(params, state, Array::from_vector(in, {batch, kContext}),
                                            Array::from_vector(out, {batch, kContext}),
                                            Array::from_vector(mask, {batch, kContext}));
      recent += value.item<float>();
      if (s % 100 == 0 || s == steps) {
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / s;
        int n = s % 100 == 0 ? 100 : s % 100;
        std::printf("%sstep %5d/%d  loss %.3f  %.2f ms/step%s", terminal ? "\r" : "", s, steps, recent / n, ms,
                    terminal && s != steps ? "" : "\n");
        std::fflush(stdout);
        recent = 0;
      }
    }

    // Sampling: feed the word so far, draw the next letter from the last position.
    auto logitsAt = kiln::jit([](const Params& p, const Array& tokens, const Array& position) {
      Array logits = kiln::reshape(forward(p, tokens), {kContext, kVocab});
      return kiln::take(logits, kiln::reshape(position, {1}), 0);
    });
    std::printf("new words:");
    Array sampleKey = kiln::random::fold_in(key, 1);
    for (int i = 0; i < samples; ++i) {
      std::vector<int32_t> tokens(kContext, 0);
      std::string word;
      for (int64_t pos = 0; pos + 1 < kContext; ++pos) {
        std::vector<Array> keys = kiln::random::split(sampleKey);
        sampleKey = keys[0];
        Array logits = logitsAt(params, Array::from_vector(tokens, {1, kContext}), Array(static_cast<int32_t>(pos)));
        int next = kiln::random::categorical(keys[1], logits).item<int>();
        if (next == 0) break;
        tokens[static_cast<size_t>(pos + 1)] = next;
        word += static_cast<char>('a' + next - 1);
      }
      std::printf(" %s", word.c_str());
    }
    std::printf("\n");
    return 0;
  } catch (const kiln::ApiError& e) {
    std::fprintf(stderr, "char_transformer: %s\n", e.what());
    return 1;
  }
}
