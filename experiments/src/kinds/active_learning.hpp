#pragma once
// An active-learning job (spec [active_learning], PBP paper section 5.4): fit on the split's
// training part, evaluate on its test part, move one point of the pool (every other row) to
// the training set, refit from scratch, ... `additions` times. The next point is the pool's
// largest predictive variance (selection "variance") or uniform over the pool ("random"); the
// pool's targets are read only once a point has left it. The experiment kind
// (spec/experiment_kind.hpp): its jobs' identity names the additions and the selection, the
// fits of both selections share their seeds, a job stopped part way resumes from its stored
// steps, and the report adds the paired differences of the two selections and the learning
// curves.
#include <functional>
#include <vector>

#include "experiments/src/plan/plan.hpp"
#include "experiments/src/records/job_record.hpp"
#include "experiments/src/spec/spec.hpp"
#include "methods/core/predictive.hpp"
#include "methods/core/rng.hpp"

namespace bnn::exp {

// The pool of a split: the rows of neither its training nor its test part, ascending.
std::vector<Eigen::Index> pool_rows(Eigen::Index rows, const data::Split& split);

// The position in `candidates` of the next point: the largest variance (the first of equal
// ones), or uniform with `rng`. `variance(i)` is asked only for "variance".
std::size_t select_next(const std::string& selection, std::size_t candidates,
                        const std::function<double(std::size_t)>& variance, Rng& rng);

// Runs (or resumes after the evaluations of `resume`) the job; `checkpoint` gets the record
// after every evaluation, with status "partial" until the last. Never throws.
JobRecord run_active_learning(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads,
                              const JobRecord* resume, const std::function<void(const JobRecord&)>& checkpoint);

}  // namespace bnn::exp
