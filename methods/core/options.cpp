#include "options.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "one_line.hpp"

namespace bnn {
namespace option_detail {

std::string format_double(double value) {
  char buffer[64];
  // Shortest text that reads back to the same double.
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, ptr) : std::to_string(value);
}

void bad_value(std::string_view method, std::string_view name, std::string_view text, std::string_view expected) {
  throw std::invalid_argument(std::string(method) + ": option " + std::string(name) + " is '" + one_line(text) +
                              "', but must be " + std::string(expected));
}

void bad_choice(std::string_view method, std::string_view name, std::string_view text, std::string_view allowed) {
  throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " is '" + one_line(text) +
                              "', but must be " + std::string(allowed));
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

bool parse_double(std::string_view text, double& out) {
  if (text.empty()) return false;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return false;
  out = value;
  return true;
}

}  // namespace option_detail

namespace {
std::string number(double value) { return option_detail::format_double(value); }
}  // namespace

void require_at_least(std::string_view method, std::string_view name, double value, double bound) {
  if (!(value >= bound))
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " is " + number(value) +
                                ", but must be >= " + number(bound));
}

void require_positive(std::string_view method, std::string_view name, double value) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " is " + number(value) +
                                ", but must be finite and > 0");
}

void require_in_open_unit(std::string_view method, std::string_view name, double value) {
  if (!(value > 0.0 && value < 1.0))
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " is " + number(value) +
                                ", but must be in (0, 1)");
}

void require_below(std::string_view method, std::string_view name, double value, double bound) {
  if (!(value < bound))
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " is " + number(value) +
                                ", but must be < " + number(bound));
}

void require_hidden_layers(std::string_view method, const std::vector<int>& hidden_layers) {
  if (hidden_layers.empty())
    throw std::invalid_argument(std::string(method) + ": hidden_layers is empty, but must list >= 1 layer");
  if (hidden_layers.size() > 100)
    throw std::invalid_argument(std::string(method) + ": hidden_layers lists " + std::to_string(hidden_layers.size()) +
                                " layers, but must list <= 100");
  for (int units : hidden_layers) require_units(method, "hidden_layers", units);
}

void require_units(std::string_view method, std::string_view name, long units) {
  const std::string what =
      name == "hidden_layers" ? "has a layer of " + std::to_string(units) + " units" : "is " + std::to_string(units);
  if (units < 1)
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " " + what + ", but must be >= 1");
  if (units > kMaxUnits) {
    char memory[96];
    std::snprintf(memory, sizeof memory, "%.3g GB", static_cast<double>(units) * 8.0 / 1e9);
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " " + what +
                                ", but must be <= " + std::to_string(kMaxUnits) + " (a layer that wide needs " +
                                memory + " for each input's weights alone, more for a network's copies and gradients)");
  }
}

void require_count(std::string_view method, std::string_view name, long value, long most, std::string_view each) {
  if (value < 1)
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " is " + std::to_string(value) +
                                ", but must be >= 1");
  if (value > most)
    throw std::invalid_argument(std::string(method) + ": " + std::string(name) + " is " + std::to_string(value) +
                                ", but must be <= " + std::to_string(most) + " (" + std::string(each) + ")");
}

}  // namespace bnn
