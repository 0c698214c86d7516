#pragma once
// An option that takes one of a few named values, held as an enum:
//
//   enum class Estimator { local, weights, graves };
//   constexpr std::array<ChoiceName<Estimator>, 3> choice_names(Estimator) {  // found by ADL
//     return {{{Estimator::local, "local"}, {Estimator::weights, "weights"}, {Estimator::graves, "graves"}}};
//   }
//   Choice<Estimator> estimator = Estimator::local;
//
// A Choice converts to its enum (switch, ==), prints as its name (the canonical option text,
// hashed into job keys, is the name exactly) and is set from a name: options.hpp reads it from
// text with a Stan-style message naming the method, the option, the value and the allowed names.
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bnn {

template <class E>
struct ChoiceName {
  E value;
  const char* name;
};

// "a, b or c" for the names of E.
template <class E>
std::string choice_list() {
  std::string out;
  const auto names = choice_names(E{});
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i].name);
  return out;
}

template <class E>
class Choice {
 public:
  using enum_type = E;
  constexpr Choice(E value) : value_(value) {}  // NOLINT: implicit, as for the enum itself
  // From a name; throws std::invalid_argument "'x' is not one of a, b or c".
  Choice(std::string_view name) : value_(parse(name)) {}               // NOLINT
  Choice(const char* name) : Choice(std::string_view(name)) {}         // NOLINT
  Choice(const std::string& name) : Choice(std::string_view(name)) {}  // NOLINT

  constexpr operator E() const { return value_; }  // NOLINT
  constexpr E value() const { return value_; }
  std::string_view name() const {
    for (const auto& entry : choice_names(E{}))
      if (entry.value == value_) return entry.name;
    return "?";
  }
  // The value named `name`, if any.
  static bool lookup(std::string_view name, E& out) {
    for (const auto& entry : choice_names(E{}))
      if (name == entry.name) {
        out = entry.value;
        return true;
      }
    return false;
  }

 private:
  static E parse(std::string_view name) {
    E value{};
    if (!lookup(name, value))
      throw std::invalid_argument("'" + std::string(name) + "' is not one of " + choice_list<E>());
    return value;
  }
  E value_;
};

// Comparison with a name (as code that held the option as text compares it).
template <class E>
bool operator==(const Choice<E>& choice, std::string_view name) {
  return choice.name() == name;
}

template <class T>
inline constexpr bool is_choice = false;
template <class E>
inline constexpr bool is_choice<Choice<E>> = true;

}  // namespace bnn
