#include "response.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "methods/core/draws_predictive.hpp"
#include "npy.hpp"

namespace bnn::external {
namespace {

using nlohmann::json;
constexpr const char* kFile = "response.json";

[[noreturn]] void bad_response(const std::string& field, const std::string& what) {
  throw std::runtime_error(std::string(kFile) + ": " + field + " " + what);
}

const json& member(const json& object, const std::string& key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) bad_response(where + key, "is missing");
  return *it;
}

constexpr Eigen::Index kAny = -1;

std::string shape_text(const std::vector<long>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// The array a field names, 1-D of `rows` (cols 0) or 2-D rows x cols; kAny matches any size.
NpyMatrix array_field(const std::string& folder, const json& prediction, const std::string& key,
                      const std::string& where, Eigen::Index rows, Eigen::Index cols = 0) {
  const json& value = member(prediction, key, where);
  if (!value.is_string()) bad_response(where + key, "must be the name of a .npy file");
  const std::string name = value.get<std::string>();
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    bad_response(where + key, "must name a file in the job's folder, not '" + name + "'");
  const NpyArray array = read_npy(folder + "/" + name, std::string(kFile) + ": " + where + key + " (" + name + ")");
  const auto matches = [](long size, Eigen::Index wanted) { return wanted == kAny || size == wanted; };
  const std::size_t dimensions = cols == 0 ? 1 : 2;
  const bool fits = array.shape.size() == dimensions && matches(array.shape[0], rows) &&
                    (dimensions == 1 || matches(array.shape[1], cols));
  if (!fits) {
    const auto size = [](Eigen::Index n, const char* any) { return n == kAny ? std::string(any) : std::to_string(n); };
    const std::string wanted =
        dimensions == 1 ? "(" + size(rows, "K") + ",)" : "(" + size(rows, "m") + ", " + size(cols, "K") + ")";
    bad_response(where + key, "(" + name + ") has shape " + shape_text(array.shape) + ", but must be " + wanted);
  }
  return array.values;
}

double number_field(const json& prediction, const std::string& key, const std::string& where) {
  const json& value = member(prediction, key, where);
  if (!value.is_number()) bad_response(where + key, "must be a number");
  return value.get<double>();
}

void require_finite(const Eigen::Ref<const Eigen::MatrixXd>& values, const std::string& field) {
  for (Eigen::Index i = 0; i < values.size(); ++i)
    if (!std::isfinite(values.data()[i]))
      bad_response(field, "has a non-finite value at index " + std::to_string(i) + " (" +
                              std::to_string(values.data()[i]) + ")");
}

void require_positive(const Eigen::Ref<const Eigen::MatrixXd>& values, const std::string& field) {
  require_finite(values, field);
  for (Eigen::Index i = 0; i < values.size(); ++i)
    if (!(values.data()[i] > 0.0))
      bad_response(field, "must be > 0, but is " + std::to_string(values.data()[i]) + " at index " + std::to_string(i));
}

Prediction read_prediction(const std::string& folder, const json& p, std::size_t index, Eigen::Index rows) {
  const std::string where = "predictions[" + std::to_string(index) + "].";
  if (!p.is_object()) bad_response(where.substr(0, where.size() - 1), "must be an object");
  const json& form = member(p, "form", where);
  if (!form.is_string()) bad_response(where + "form", "must be a text");
  Prediction out;
  out.form = form.get<std::string>();
  if (out.form == "gaussian" || out.form == "student_t") {
    const bool gaussian = out.form == "gaussian";
    const std::string a = gaussian ? "mean" : "location", b = gaussian ? "variance" : "scale";
    out.first = array_field(folder, p, a, where, rows);
    out.second = array_field(folder, p, b, where, rows);
    require_finite(out.first, where + a);
    require_positive(out.second, where + b);
    if (!gaussian) {
      out.number = number_field(p, "dof", where);
      if (!(out.number > 0.0) || !std::isfinite(out.number)) bad_response(where + "dof", "must be a finite number > 0");
    }
  } else if (out.form == "mixture") {
    out.weights = array_field(folder, p, "weights", where, kAny);
    const Eigen::Index components = out.weights.size();
    if (components < 1) bad_response(where + "weights", "has no components");
    out.means = array_field(folder, p, "means", where, rows, components);
    out.variances = array_field(folder, p, "variances", where, rows, components);
    require_finite(out.weights, where + "weights");
    if ((out.weights.array() < 0.0).any()) bad_response(where + "weights", "has a negative weight");
    if (std::abs(out.weights.sum() - 1.0) > 1e-9)
      bad_response(where + "weights", "sum to " + std::to_string(out.weights.sum()) + ", but must sum to 1");
    require_finite(out.means, where + "means");
    require_positive(out.variances, where + "variances");
  } else if (out.form == "draws") {
    const NpyMatrix draws = array_field(folder, p, "draws", where, rows, -1);
    require_finite(draws, where + "draws");
    if (draws.cols() < 1) bad_response(where + "draws", "has no draws");
    out.draws = draws.cast<float>();
    out.number = number_field(p, "noise_variance", where);
    if (!(out.number > 0.0) || !std::isfinite(out.number))
      bad_response(where + "noise_variance", "must be a finite number > 0");
  } else {
    bad_response(where + "form", "is '" + out.form + "', but must be gaussian, student_t, mixture or draws");
  }
  return out;
}

}  // namespace

Eigen::Index Prediction::size() const {
  if (form == "mixture") return means.rows();
  if (form == "draws") return draws.rows();
  return first.size();
}

std::unique_ptr<Predictive> Prediction::predictive() const {
  if (form == "gaussian") return std::make_unique<GaussianPredictive>(first, second);
  if (form == "student_t") return std::make_unique<StudentTPredictive>(first, second, number);
  if (form == "mixture") return std::make_unique<GaussianMixturePredictive>(means, variances, weights);
  return std::make_unique<DrawsPredictive>(draws, number);
}

Response read_response(const std::string& folder, const std::vector<Eigen::Index>& rows) {
  std::ifstream in(folder + "/" + kFile);
  if (!in) throw std::runtime_error(std::string(kFile) + ": missing (the program wrote no response)");
  json root;
  try {
    root = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(std::string(kFile) + ": not valid JSON at byte " + std::to_string(e.byte));
  }
  if (!root.is_object()) bad_response("(the whole file)", "must be a JSON object");
  const json& protocol = member(root, "protocol", "");
  if (!protocol.is_number_integer() || protocol.get<long>() != 1)
    bad_response("protocol", "is " + protocol.dump() + ", but this bnnbench speaks protocol 1");
  Response response;
  const json& status = member(root, "status", "");
  const std::string status_text = status.is_string() ? status.get<std::string>() : status.dump();
  if (status_text == "ok")
    response.report.status = FitStatus::ok;
  else if (status_text == "not_converged")
    response.report.status = FitStatus::not_converged;
  else if (status_text == "numerical_error")
    response.report.status = FitStatus::numerical_error;
  else if (status_text == "failed")
    response.failed = true;
  else
    bad_response("status", "is '" + status_text + "', but must be ok, not_converged, numerical_error or failed");
  if (const auto m = root.find("message"); m != root.end()) {
    if (!m->is_string()) bad_response("message", "must be a text");
    response.report.message = m->get<std::string>();
  }
  if (response.failed) return response;
  if (const auto it = root.find("iterations"); it != root.end()) {
    if (!it->is_number_integer()) bad_response("iterations", "must be an integer");
    response.report.iterations = it->get<long>();
  }
  if (const auto d = root.find("diagnostics"); d != root.end()) {
    if (!d->is_object()) bad_response("diagnostics", "must be an object of names and numbers");
    for (const auto& [name, value] : d->items()) {
      if (!value.is_number()) bad_response("diagnostics." + name, "must be a number");
      response.report.diagnostics.emplace_back(name, value.get<double>());
    }
  }
  if (const auto w = root.find("warnings"); w != root.end()) {
    if (!w->is_array()) bad_response("warnings", "must be an array of texts");
    for (const auto& text : *w) {
      if (!text.is_string()) bad_response("warnings", "must be an array of texts");
      response.report.warnings.push_back(text.get<std::string>());
    }
  }
  const json& predictions = member(root, "predictions", "");
  if (!predictions.is_array() || predictions.size() != rows.size())
    bad_response("predictions",
                 "must be an array of " + std::to_string(rows.size()) + " (one per point set asked for)");
  for (std::size_t i = 0; i < rows.size(); ++i)
    response.predictions.push_back(read_prediction(folder, predictions[i], i, rows[i]));
  return response;
}

}  // namespace bnn::external
