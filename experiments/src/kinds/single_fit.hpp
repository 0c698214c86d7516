#pragma once
// A job that fits once on its split's training part and scores the test part: the job of a
// table and of a figure (`grid`: also its predictions on the figure's grid), with the artifacts
// its [[artifacts]] ask for. Never throws: a failure is the record's.
#include "experiments/src/plan/plan.hpp"
#include "experiments/src/records/job_record.hpp"
#include "experiments/src/spec/spec.hpp"

namespace bnn::exp {

JobRecord run_single_fit(const ExperimentSpec& spec, const Plan& plan, const Job& job, int threads,
                         const GridSpec* grid);

}  // namespace bnn::exp
