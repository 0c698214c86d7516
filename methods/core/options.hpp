#pragma once
// Options of a method are a plain struct with defaults that lists its fields once:
//
//   struct Options {
//     int epochs = 40;
//     template <class Visitor> void visit(Visitor&& v) {
//       v("epochs", epochs, "passes over the training data");
//     }
//   };
//
// From that list this header sets fields from text (experiment specs, --set KEY=VALUE),
// describes them with their defaults (bnnbench list methods) and writes a canonical text
// form that identifies a configuration (hashed into job keys and seeds). A field is a bool,
// an integer, a real, text, an integer or real list or a Choice of named values (choice.hpp).
#include <charconv>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "choice.hpp"

namespace bnn {

using ParamMap = std::map<std::string, std::string, std::less<>>;

struct OptionInfo {
  std::string name;
  std::string type;
  std::string default_value;
  std::string help;
  // The value a configuration text without this option stands for (earlier_values below); the
  // default unless the option declares another.
  std::string earlier_value;
};

// An option added after results were stored, whose default is not what the method computed
// before it existed, names the value that is, in its options struct:
//   static ParamMap earlier_values() { return {{"validation", "last"}}; }
// The canonical text leaves an option at that value out, so jobs stored before the option
// existed keep their keys, and a stored text lacking it reads as that value.
template <class Options>
ParamMap earlier_values() {
  if constexpr (requires { Options::earlier_values(); })
    return Options::earlier_values();
  else
    return {};
}

namespace option_detail {

std::string format_double(double value);
[[noreturn]] void bad_value(std::string_view method, std::string_view name, std::string_view text,
                            std::string_view expected);
// "<method>: <name> is '<text>', but must be <allowed>", as validate() words its messages.
[[noreturn]] void bad_choice(std::string_view method, std::string_view name, std::string_view text,
                             std::string_view allowed);

template <class T>
std::string type_name() {
  if constexpr (is_choice<T>)
    return choice_list<typename T::enum_type>();
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_integral_v<T>)
    return "integer";
  else if constexpr (std::is_floating_point_v<T>)
    return "real";
  else if constexpr (std::is_same_v<T, std::string>)
    return "text";
  else if constexpr (std::is_floating_point_v<typename T::value_type>)
    return "real list";
  else
    return "integer list";
}

template <class T>
std::string to_text(const T& value) {
  if constexpr (is_choice<T>)
    return std::string(value.name());
  else if constexpr (std::is_same_v<T, bool>)
    return value ? "true" : "false";
  else if constexpr (std::is_integral_v<T>)
    return std::to_string(value);
  else if constexpr (std::is_floating_point_v<T>)
    return format_double(value);
  else if constexpr (std::is_same_v<T, std::string>)
    return value;
  else {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if constexpr (std::is_floating_point_v<typename T::value_type>)
        out += (i ? "," : "") + format_double(value[i]);
      else
        out += (i ? "," : "") + std::to_string(value[i]);
    }
    return out;
  }
}

template <class Int>
bool parse_integer(std::string_view text, Int& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

std::string_view trim(std::string_view text);
bool parse_double(std::string_view text, double& out);

template <class T>
void from_text(std::string_view method, std::string_view name, std::string_view raw, T& field) {
  const std::string_view text = trim(raw);
  if constexpr (is_choice<T>) {
    typename T::enum_type value{};
    if (!T::lookup(text, value)) bad_choice(method, name, raw, choice_list<typename T::enum_type>());
    field = value;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (text == "true" || text == "1")
      field = true;
    else if (text == "false" || text == "0")
      field = false;
    else
      bad_value(method, name, raw, "true or false");
  } else if constexpr (std::is_integral_v<T>) {
    T value{};
    if (!parse_integer(text, value)) bad_value(method, name, raw, "an integer");
    field = value;
  } else if constexpr (std::is_floating_point_v<T>) {
    double value = 0.0;
    if (!parse_double(text, value)) bad_value(method, name, raw, "a finite real number");
    field = static_cast<T>(value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    field = std::string(text);
  } else {
    using Elem = typename T::value_type;
    T values;
    std::string_view rest = text;
    if (!rest.empty() && rest.front() == '[' && rest.back() == ']') rest = trim(rest.substr(1, rest.size() - 2));
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view item = trim(rest.substr(0, comma));
      Elem value{};
      if constexpr (std::is_floating_point_v<Elem>) {
        double real = 0.0;
        if (!parse_double(item, real)) bad_value(method, name, raw, "a comma-separated list of finite real numbers");
        value = static_cast<Elem>(real);
      } else if (!parse_integer(item, value)) {
        bad_value(method, name, raw, "a comma-separated integer list");
      }
      values.push_back(value);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    field = std::move(values);
  }
}

}  // namespace option_detail

// Sets the fields named in `overrides`; an unknown name throws std::invalid_argument
// naming the method and the known options.
template <class Options>
void apply_overrides(Options& options, const ParamMap& overrides, std::string_view method) {
  std::map<std::string, bool, std::less<>> used;
  for (const auto& [key, value] : overrides) used[key] = false;
  std::string known;
  options.visit([&](const char* name, auto& field, const char*) {
    known += (known.empty() ? "" : ", ") + std::string(name);
    if (auto it = overrides.find(std::string_view(name)); it != overrides.end()) {
      option_detail::from_text(method, name, it->second, field);
      used[name] = true;
    }
  });
  for (const auto& [key, was_used] : used)
    if (!was_used)
      throw std::invalid_argument(std::string(method) + ": unknown option '" + key + "'; known options: " + known);
}

template <class Options>
std::vector<OptionInfo> describe_options(Options options) {
  std::vector<OptionInfo> out;
  const ParamMap earlier = earlier_values<Options>();
  options.visit([&](const char* name, auto& field, const char* help) {
    using T = std::decay_t<decltype(field)>;
    const std::string value = option_detail::to_text(field);
    const auto it = earlier.find(std::string_view(name));
    out.push_back({name, option_detail::type_name<T>(), value, help, it == earlier.end() ? value : it->second});
  });
  return out;
}

// "name=value;name=value" over all fields in declaration order (but those at their earlier
// value, see earlier_values).
template <class Options>
std::string canonical_options(Options options) {
  std::string out;
  const ParamMap earlier = earlier_values<Options>();
  options.visit([&](const char* name, auto& field, const char*) {
    const std::string value = option_detail::to_text(field);
    if (const auto it = earlier.find(std::string_view(name)); it != earlier.end() && it->second == value) return;
    out += (out.empty() ? "" : ";") + std::string(name) + "=" + value;
  });
  return out;
}

// Validation helpers: Stan-style messages, e.g. "pbp: epochs is 0, but must be >= 1".
void require_at_least(std::string_view method, std::string_view name, double value, double bound);
void require_positive(std::string_view method, std::string_view name, double value);
void require_in_open_unit(std::string_view method, std::string_view name, double value);
void require_below(std::string_view method, std::string_view name, double value, double bound);
// A network's hidden layers: at least one, each with at least one unit (require_units).
void require_hidden_layers(std::string_view method, const std::vector<int>& hidden_layers);
// A layer's width: from 1 to kMaxUnits, checked before anything is allocated, the message giving
// the memory such a layer would need ("pbp: hidden_layers has a layer of 100000000 units, but
// must be <= 100000 (...)").
inline constexpr long kMaxUnits = 100'000;
void require_units(std::string_view method, std::string_view name, long units);
// A count that sizes what a fit stores (passes, members, chains): from 1 to `most`; `each` says
// what one costs, for the message.
void require_count(std::string_view method, std::string_view name, long value, long most, std::string_view each);

}  // namespace bnn
