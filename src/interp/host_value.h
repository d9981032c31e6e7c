// The values the interpreter computes with: a tensor (a Literal), a tuple of values, or
// a token. Copying one is cheap: tensor storage is shared until written.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/literal.h"

namespace kiln::interp {

class HostValue {
 public:
  HostValue() : v_(Token{}) {}
  HostValue(Literal tensor) : v_(std::move(tensor)) {}  // NOLINT: tensors are the common case
  static HostValue tuple(std::vector<HostValue> elements);
  static HostValue token() { return HostValue(); }

  bool isTensor() const { return std::holds_alternative<Literal>(v_); }
  bool isTuple() const { return std::holds_alternative<Tuple>(v_); }
  bool isToken() const { return std::holds_alternative<Token>(v_); }

  const Literal& tensor() const;
  Literal& tensor();
  const std::vector<HostValue>& elements() const;

  // The IR type of this value.
  Type type() const;

  // Short description for messages: "tensor<2xf32> [1, 2]" (first elements only).
  std::string summary(size_t maxElements = 8) const;

 private:
  struct Token {};
  using Tuple = std::shared_ptr<const std::vector<HostValue>>;
  std::variant<Literal, Tuple, Token> v_;
};

using HostValues = std::vector<HostValue>;

}  // namespace kiln::interp
