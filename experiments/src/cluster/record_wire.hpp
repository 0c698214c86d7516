#pragma once
// A job's record as bytes, and back: what an MPI worker sends to the process that owns the
// results store (cluster/mpi/). Every field travels, numbers as their exact bits, so the
// stored record is the one the worker made.
#include <string>

#include "experiments/src/records/job_record.hpp"

namespace bnn::exp {

std::string encode_record(const JobRecord& record);
// Throws std::runtime_error when `bytes` is not a whole record of this format.
JobRecord decode_record(const std::string& bytes);

}  // namespace bnn::exp
