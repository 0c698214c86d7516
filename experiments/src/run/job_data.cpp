#include "experiments/src/run/job_data.hpp"

namespace bnn::exp {

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
    out.train = {out.norm.transform_inputs(X_train), out.norm.transform_targets(y_train)};
    out.X_test = out.norm.transform_inputs(data::select_rows(pd.data.X, test));
  }
  out.y_test = data::select_rows(pd.data.y, test);
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
  out.train = {out.norm.transform_inputs(train.X), out.norm.transform_targets(train.y)};
  out.X_test = out.norm.transform_inputs(test.X);
  out.y_test = test.y;
  for (Eigen::Index i = 0; i < test.X.rows(); ++i) out.test_rows.push_back(i);
  out.train_header = !train.feature_names.empty();
  out.test_header = !test.feature_names.empty();
  return out;
}

}  // namespace bnn::exp
