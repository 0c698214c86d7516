// What every registered method promises, checked for each one the registry holds, with no list
// of methods to keep: the same seed gives the same bits; predictions on 0, 1 and many rows have
// the right size and are finite; options survive the canonical text a job's key is made from;
// an unknown option or a bad value is one line naming the method and the option. A method runs
// here under its registry entry's quick options (methods/registry.cpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "methods/core/rng.hpp"
#include "methods/registry.hpp"
#include "tests/support/canonical_options.hpp"

using namespace bnn;
using bnn::test::parse_canonical;

namespace {

RegressionData sine_data(Eigen::Index n) {
  Rng rng(11);
  RegressionData d{Eigen::MatrixXd(n, 2), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    d.X(i, 0) = standard_normal(rng);
    d.X(i, 1) = standard_normal(rng);
    d.y[i] = std::sin(d.X(i, 0)) + 0.1 * standard_normal(rng);
  }
  return d;
}

std::string rejection(const MethodEntry& method, ParamMap options) {
  Rng rng(1);
  try {
    method.fit(sine_data(24), options, rng);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<accepted>";
}

}  // namespace

TEST_CASE("every registered method keeps the promises of the registry", "[methods][conformance]") {
  const RegressionData train = sine_data(24);
  const Eigen::MatrixXd many = sine_data(7).X;
  for (const MethodEntry& method : method_registry()) {
    INFO("method " << method.name);
    REQUIRE(method.quick_options);
    const ParamMap& quick = *method.quick_options;

    // The same seed, the same bits; predictions of the right size, finite.
    Rng a(5), b(5);
    const auto first = method.fit(train, quick, a);
    const auto second = method.fit(train, quick, b);
    for (const Eigen::Index rows : {0, 1, 7}) {
      INFO(rows << " row(s)");
      const Eigen::MatrixXd X = many.topRows(rows);
      const auto p = first->predict(X), q = second->predict(X);
      REQUIRE(p->size() == rows);
      REQUIRE(q->size() == rows);
      for (Eigen::Index i = 0; i < rows; ++i) {
        CHECK(std::isfinite(p->mean(i)));
        CHECK(p->variance(i) > 0.0);
        CHECK(std::isfinite(p->log_density(i, 0.0)));
        CHECK(p->mean(i) == q->mean(i));
        CHECK(p->variance(i) == q->variance(i));
      }
    }

    // Options survive the canonical text: parsed back, they give the same text.
    const std::string canonical = method.canonical_config(quick);
    CHECK(method.canonical_config(parse_canonical(canonical)) == canonical);
    for (const OptionInfo& option : method.options) CHECK(option.name.find_first_of(";=") == std::string::npos);

    // An unknown option, and a value no option takes, are one line naming the method and option.
    const std::string unknown = rejection(method, {{"no_such_option", "1"}});
    CHECK(unknown.find(method.name) == 0);
    CHECK(unknown.find("'no_such_option'") != std::string::npos);
    CHECK(unknown.find('\n') == std::string::npos);
    REQUIRE_FALSE(method.options.empty());
    const std::string& name = method.options.front().name;
    const std::string bad = rejection(method, {{name, "not a value\nof anything"}});
    INFO(bad);
    CHECK(bad.find(method.name + ": ") == 0);
    CHECK(bad.find(name) != std::string::npos);
    CHECK(bad.find('\n') == std::string::npos);
  }
}
