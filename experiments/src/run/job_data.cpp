#include "experiments/src/run/job_data.hpp"

#include <cmath>

#include "datasets/src/data_error.hpp"

namespace bnn::exp {
namespace {

// Values whose square overflows once standardized (|z| > 1e150) would turn metrics into inf or
// NaN; the training part's are caught by its statistics, a test part's here. `lines` gives
// each row's line in `file` when known.
void check_standardized_range(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::string& file,
                              const std::vector<long>& lines, const std::string& unit) {
  constexpr double kLargest = 1e150;
  const auto fail = [&](Eigen::Index row, long column, double value, const char* what) {
    const auto r = static_cast<std::size_t>(row);
    char shown[64];
    std::snprintf(shown, sizeof shown, "%.6g", value);
    throw data::DataError(file, r < lines.size() ? lines[r] : 0, r < lines.size() ? column : 0,
                          std::string(what) + " " + shown +
                              (r < lines.size() ? "" : " in " + unit + " " + std::to_string(row)) +
                              " is beyond 1e150 training-part standard deviations from the training mean: too large to "
                              "score");
  };
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.cols(); ++j)
      if (!(std::abs(X(i, j)) <= kLargest)) fail(i, static_cast<long>(j + 1), X(i, j), "standardized input");
  for (Eigen::Index i = 0; i < y.size(); ++i)
    if (!(std::abs(y[i]) <= kLargest)) fail(i, 0, y[i], "standardized target");
}

}  // namespace

data::Standardizer identity_standardizer(Eigen::Index inputs) {
  data::Standardizer norm;
  norm.x_mean = Eigen::RowVectorXd::Zero(inputs);
  norm.x_scale = Eigen::RowVectorXd::Ones(inputs);
  return norm;
}

JobData prepare_job_data(const PreparedDataset& pd, const std::vector<Eigen::Index>& train,
                         const std::vector<Eigen::Index>& test, const std::string& what) {
  const Eigen::MatrixXd X_train = data::select_rows(pd.data.X, train);
  const Eigen::VectorXd y_train = data::select_rows(pd.data.y, train);
  JobData out;
  if (!pd.normalize) {
    out.norm = identity_standardizer(X_train.cols());
    out.train = {X_train, y_train};
    out.X_test = data::select_rows(pd.data.X, test);
  } else {  // normalization uses the training part only
    out.norm = data::Standardizer::fit(X_train, y_train, what, pd.config.constant_inputs);
    out.train = {out.norm.transform_inputs(X_train), out.norm.transform_targets(y_train), out.norm.y_scale};
    out.X_test = out.norm.transform_inputs(data::select_rows(pd.data.X, test));
  }
  out.y_test = data::select_rows(pd.data.y, test);
  if (pd.normalize) check_standardized_range(out.X_test, out.norm.transform_targets(out.y_test), what, {}, "test row");
  out.test_rows.assign(test.begin(), test.end());
  return out;
}

JobData prepare_job_data(const Plan& plan, const Job& job) {
  const PreparedDataset& pd = plan.datasets.at(job.dataset);
  const data::Split& split = pd.splits.at(static_cast<std::size_t>(job.key.split));
  return prepare_job_data(pd, split.train, split.test,
                          pd.data.origin + " (split " + std::to_string(job.key.split) + ")");
}

JobData user_job_data(const UserFiles& files) {
  data::Dataset train = data::load_user_table(files.train, files.target, files.format);
  data::Dataset test = data::load_user_table(files.test, files.target, files.format);
  data::apply_target_transform(train, files.transform);
  data::apply_target_transform(test, files.transform);
  if (train.X.cols() != test.X.cols())
    throw std::invalid_argument(files.test + " has " + std::to_string(test.X.cols()) + " feature columns but " +
                                files.train + " has " + std::to_string(train.X.cols()));
  if (!train.feature_names.empty() && !test.feature_names.empty())
    for (std::size_t c = 0; c < train.feature_names.size(); ++c)
      if (train.feature_names[c] != test.feature_names[c])
        throw std::invalid_argument(files.test + ": feature column " + std::to_string(c + 1) + " is '" +
                                    test.feature_names[c] + "' but in " + files.train + " it is '" +
                                    train.feature_names[c] + "' (columns are matched by position)");
  data::check_usable(train, 2);
  JobData out;
  out.norm = data::Standardizer::fit(train.X, train.y, files.train, files.constant_inputs);
  out.train = {out.norm.transform_inputs(train.X), out.norm.transform_targets(train.y), out.norm.y_scale};
  out.X_test = out.norm.transform_inputs(test.X);
  out.y_test = test.y;
  check_standardized_range(out.X_test, out.norm.transform_targets(out.y_test), files.test, test.row_lines, "row");
  out.warnings = data::data_warnings(train);
  for (Eigen::Index i = 0; i < test.X.rows(); ++i) out.test_rows.push_back(i);
  out.train_header = !train.feature_names.empty();
  out.test_header = !test.feature_names.empty();
  return out;
}

}  // namespace bnn::exp
