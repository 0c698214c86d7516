// The MPI run (cluster/mpi_run.hpp). Each process has a communicator, its main thread (the only
// one that calls MPI), and a team of --threads OpenMP threads that fit jobs. Messages:
//   worker -> 0   kRequest     a thread of the worker is free
//   0 -> worker   kJob         index into the shard's jobs + the stored steps it resumes from
//   0 -> worker   kStop        no job left for that thread
//   worker -> 0   kCheckpoint  a step of an active-learning job
//   worker -> 0   kResult      index + the job's record
// Every send is non-blocking (its bytes kept until it completes), so two processes that send
// to each other at once never wait on each other; messages between two processes arrive in the
// order sent (MPI's non-overtaking rule), so a job's steps arrive before its result.
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "experiments/src/cluster/mpi_run.hpp"
#include "experiments/src/cluster/record_wire.hpp"
#include "methods/core/rng.hpp"

namespace bnn::exp {
namespace {

enum Tag : int { kRequest = 1, kJob = 2, kStop = 3, kCheckpoint = 4, kResult = 5 };
// How long a communicator waits when nothing happened: 0.1 ms after any message, doubling
// while idle up to 10 ms. Answers are quick while jobs come and go, and a long fit is
// interrupted only about 100 times a second.
class IdleWait {
 public:
  std::chrono::microseconds next() {
    const auto wait = wait_;
    wait_ = std::min(2 * wait_, kLongest);
    return wait;
  }
  void reset() { wait_ = kShortest; }

 private:
  static constexpr std::chrono::microseconds kShortest{100}, kLongest{10000};
  std::chrono::microseconds wait_ = kShortest;
};

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

std::string with_index(std::uint64_t index, const std::string& body) {
  std::string out(sizeof index, '\0');
  std::memcpy(out.data(), &index, sizeof index);
  return out + body;
}

std::uint64_t index_of(const std::string& bytes) {
  std::uint64_t index = 0;
  if (bytes.size() < sizeof index) throw std::runtime_error("MPI: a message without its job index");
  std::memcpy(&index, bytes.data(), sizeof index);
  return index;
}

// Sends in flight; each keeps its bytes until MPI is done with them.
class Sends {
 public:
  void send(int destination, int tag, std::string bytes) {
    auto& out = inflight_.emplace_back(std::move(bytes), MPI_Request{});
    check(MPI_Isend(out.first.data(), static_cast<int>(out.first.size()), MPI_BYTE, destination, tag, MPI_COMM_WORLD,
                    &out.second),
          "MPI_Isend");
  }
  void progress() {
    for (auto it = inflight_.begin(); it != inflight_.end();) {
      int done = 0;
      check(MPI_Test(&it->second, &done, MPI_STATUS_IGNORE), "MPI_Test");
      it = done ? inflight_.erase(it) : std::next(it);
    }
  }
  bool idle() const { return inflight_.empty(); }

 private:
  std::list<std::pair<std::string, MPI_Request>> inflight_;
};

struct Message {
  int source = 0, tag = 0;
  std::string bytes;
};

std::optional<Message> receive_if_any(int source) {
  int flag = 0;
  MPI_Status status;
  check(MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  Message m{status.MPI_SOURCE, status.MPI_TAG, std::string(static_cast<std::size_t>(count), '\0')};
  check(MPI_Recv(m.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return m;
}

// What a thread of the compute team is given: a job of the shard (its index there) and, for an
// active-learning job stopped part way, the record it resumes from.
struct Assignment {
  std::size_t index = 0;
  std::optional<JobRecord> resume;
};

// The team of `threads` OpenMP threads on a thread of its own; each takes jobs from `next`
// until it gives none. No exception leaves the team: the first is kept for the communicator,
// which checks failed() as it waits and rethrows (the run then ends: MpiSession::abort).
class ComputeTeam {
 public:
  ComputeTeam(int threads, std::function<std::optional<Assignment>()> next, std::function<void(const Assignment&)> run)
      : thread_([this, threads, next = std::move(next), run = std::move(run)] {
          // The process's share of the machine is `threads`: a fit's parallel pieces
          // (run_pieces) get at most that many threads, as in a run of one process. (A team of
          // one is inactive, and its pieces would otherwise take every core of the node, beside
          // the other processes' pieces.)
          omp_set_num_threads(threads);
#pragma omp parallel num_threads(threads)
          try {
            for (std::optional<Assignment> a = next(); a; a = next()) run(*a);
          } catch (...) {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
            failed_ = true;
          }
          finished_ = true;
        }) {
  }
  // A team still running (its communicator gave up on an error) is left to the process's end:
  // its threads may wait for jobs that will not come.
  ~ComputeTeam() {
    if (thread_.joinable()) finished_ ? thread_.join() : thread_.detach();
  }
  bool finished() const { return finished_.load(); }
  void rethrow_if_failed() {
    if (!failed_.load()) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    std::rethrow_exception(error_);
  }
  void join() {
    thread_.join();
    rethrow_if_failed();
  }

 private:
  std::atomic<bool> finished_{false}, failed_{false};
  std::mutex mutex_;
  std::exception_ptr error_;
  std::thread thread_;
};

// Between a worker's communicator and its compute team: assignments in, messages out.
class Mailbox {
 public:
  // A compute thread: asks rank 0 for a job and waits for the answer (none: stop).
  std::optional<Assignment> next_job() {
    std::unique_lock<std::mutex> lock(mutex_);
    outbox_.emplace_back(kRequest, std::string());
    outbox_ready_.notify_one();
    inbox_ready_.wait(lock, [&] { return !inbox_.empty(); });
    std::optional<Assignment> a = std::move(inbox_.front());
    inbox_.pop_front();
    return a;
  }
  void post(int tag, std::string bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    outbox_.emplace_back(tag, std::move(bytes));
    outbox_ready_.notify_one();
  }
  // The communicator: hands an answer to a waiting compute thread.
  void deliver(std::optional<Assignment> a) {
    const std::lock_guard<std::mutex> lock(mutex_);
    inbox_.push_back(std::move(a));
    inbox_ready_.notify_one();
  }
  // The communicator: what the compute team wants sent, waiting up to `wait` for something.
  std::deque<std::pair<int, std::string>> take_outgoing(std::chrono::microseconds wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    outbox_ready_.wait_for(lock, wait, [&] { return !outbox_.empty(); });
    return std::exchange(outbox_, {});
  }

 private:
  std::mutex mutex_;
  std::condition_variable inbox_ready_, outbox_ready_;
  std::deque<std::optional<Assignment>> inbox_;
  std::deque<std::pair<int, std::string>> outbox_;
};

// The shard's jobs, which every process must plan alike: a hash of their identities and seeds,
// the thread count and the build.
std::uint64_t plan_fingerprint(const std::vector<Job>& share, const RunOptions& options) {
  std::string text = code_version() + "|threads=" + std::to_string(options.threads);
  for (const Job& job : share)
    text += "|" + job.key.describe() + "#" + job.key.config_hash + "#" + std::to_string(job.seed);
  return hash_bytes(text);
}

void warn_if_bound_too_tight(const MpiSession& session, int threads) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  const int cpus = CPU_COUNT(&set);
  if (cpus < threads)
    print_line(process_name(session.rank()) + ": warning: bound to " + std::to_string(cpus) + " CPU(s) but runs " +
               std::to_string(threads) + " threads; start mpirun with --bind-to none (or --map-by slot:PE=" +
               std::to_string(threads) + "), srun with --cpus-per-task=" + std::to_string(threads));
}

RunSummary run_rank0(const MpiSession& session, const ExperimentSpec& spec, const Plan& plan, ResultsStore& store,
                     const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RunSummary summary;
  const PendingJobs todo(spec, plan, store, options);
  summary.planned = static_cast<long>(todo.share.size());
  summary.already_done = todo.already_done;
  summary.data_changed = todo.data_changed;
  const std::string processes = session.describe();
  RunRecord run = new_run_record(spec, options, static_cast<long>(todo.jobs.size()));
  run.machine += "; MPI: " + processes + ", " + std::to_string(options.threads) + " thread(s) each";
  run.run_id = store.begin_run(run);
  if (!options.quiet) print_line(spec.name + ": MPI run over " + processes);
  warn_if_bound_too_tight(session, options.threads);

  ResultsSink sink(store, run.run_id);
  Progress progress(job_costs(plan, todo.jobs), session.size() * options.threads, options.progress_bar);
  std::mutex next_mutex;
  std::size_t next_position = 0;  // into todo.jobs, largest first
  const auto take = [&]() -> std::optional<std::size_t> {
    const std::lock_guard<std::mutex> lock(next_mutex);
    if (sink.storage_failed() || next_position == todo.jobs.size()) return std::nullopt;  // none after a failure
    if (!options.quiet) progress.job_started(next_position);
    return next_position++;
  };
  const auto share_index = [&](std::size_t position) {
    return static_cast<std::size_t>(todo.jobs[position] - todo.share.data());
  };
  const auto done = [&](std::size_t position, JobRecord& rec) {
    const std::string store_error = sink.finished(rec);
    if (!options.quiet)
      progress.job_done(position, rec.key.describe(), rec.status == "ok" && store_error.empty(),
                        rec.fit_seconds + rec.predict_seconds, store_error.empty() ? rec.error : store_error);
  };

  ComputeTeam team(
      options.threads,
      [&]() -> std::optional<Assignment> {
        const auto position = take();
        if (!position) return std::nullopt;
        return Assignment{*position, std::nullopt};
      },
      [&](const Assignment& a) {
        const Job& job = *todo.jobs[a.index];
        JobRecord rec =
            execute_job(spec, plan, job, 1, todo.resume_of(job), [&](const JobRecord& step) { sink.checkpoint(step); });
        done(a.index, rec);
      });

  Sends sends;
  std::map<std::size_t, std::size_t> handed_out;  // to other ranks, not back yet: share index -> position
  const long stops_due = static_cast<long>(session.size() - 1) * options.threads;
  long stops_sent = 0;
  IdleWait idle;
  while (stops_sent < stops_due || !handed_out.empty() || !team.finished() || !sends.idle()) {
    team.rethrow_if_failed();
    sends.progress();
    const std::optional<Message> m = receive_if_any(MPI_ANY_SOURCE);
    if (!m) {
      std::this_thread::sleep_for(idle.next());
      continue;
    }
    idle.reset();
    if (m->tag == kRequest) {
      const auto position = take();
      if (!position) {
        sends.send(m->source, kStop, {});
        ++stops_sent;
        continue;
      }
      const std::size_t index = share_index(*position);
      const JobRecord* resume = todo.resume_of(*todo.jobs[*position]);
      sends.send(m->source, kJob, with_index(index, resume ? encode_record(*resume) : std::string()));
      handed_out[index] = *position;
    } else if (m->tag == kCheckpoint) {
      sink.checkpoint(decode_record(m->bytes));
    } else if (m->tag == kResult) {
      const std::size_t index = index_of(m->bytes);
      const auto found = handed_out.find(index);
      if (found == handed_out.end())
        throw std::runtime_error("MPI: rank " + std::to_string(m->source) + " sent a result of a job not handed out");
      const std::size_t position = found->second;
      handed_out.erase(found);
      JobRecord rec = decode_record(m->bytes.substr(sizeof(std::uint64_t)));
      done(position, rec);
    } else {
      throw std::runtime_error("MPI: rank 0 got a message of unknown tag " + std::to_string(m->tag));
    }
  }
  team.join();
  if (!options.quiet) progress.finish();
  sink.summarize(summary, static_cast<long>(todo.jobs.size()));
  end_run_record(run, store, summary, start);
  return summary;
}

void run_worker(const MpiSession& session, const ExperimentSpec& spec, const Plan& plan, const RunOptions& options) {
  const std::vector<Job> share = shard_jobs(plan.jobs, options.shard_index, options.shard_count);
  (void)session.describe();  // collective, with rank 0's
  warn_if_bound_too_tight(session, options.threads);
  Mailbox mailbox;
  ComputeTeam team(
      options.threads, [&] { return mailbox.next_job(); },
      [&](const Assignment& a) {
        if (a.index >= share.size()) throw std::runtime_error("MPI: rank 0 handed out a job this rank does not plan");
        const auto checkpoint = [&](const JobRecord& step) { mailbox.post(kCheckpoint, encode_record(step)); };
        JobRecord rec = execute_job(spec, plan, share[a.index], 1, a.resume ? &*a.resume : nullptr, checkpoint);
        mailbox.post(kResult, with_index(a.index, encode_record(rec)));
      });
  Sends sends;
  int stops = 0;
  IdleWait idle;
  while (stops < options.threads || !team.finished() || !sends.idle()) {
    team.rethrow_if_failed();
    auto outgoing = mailbox.take_outgoing(idle.next());
    if (!outgoing.empty()) idle.reset();
    for (auto& [tag, bytes] : outgoing) sends.send(0, tag, std::move(bytes));
    sends.progress();
    while (const std::optional<Message> m = receive_if_any(0)) {
      idle.reset();
      if (m->tag == kStop) {
        ++stops;
        mailbox.deliver(std::nullopt);
      } else if (m->tag == kJob) {
        Assignment a{static_cast<std::size_t>(index_of(m->bytes)), std::nullopt};
        if (m->bytes.size() > sizeof(std::uint64_t)) a.resume = decode_record(m->bytes.substr(sizeof(std::uint64_t)));
        mailbox.deliver(std::move(a));
      } else {
        throw std::runtime_error("MPI: rank " + std::to_string(session.rank()) + " got a message of unknown tag " +
                                 std::to_string(m->tag));
      }
    }
  }
  team.join();
}

}  // namespace

bool built_with_mpi() { return true; }

bool same_jobs_everywhere(const MpiSession& session, const Plan& plan, const RunOptions& options) {
  const std::vector<Job> share = shard_jobs(plan.jobs, options.shard_index, options.shard_count);
  std::uint64_t mine[2] = {plan_fingerprint(share, options), share.size()};
  std::uint64_t root[2] = {mine[0], mine[1]};
  check(MPI_Bcast(root, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  const bool same = mine[0] == root[0];
  if (!same) {
    std::string notes;
    for (const auto& note : plan.notes) notes += "; " + note;
    print_line(process_name(session.rank()) + ": error: this process plans " + std::to_string(mine[1]) +
               " job(s), rank 0 " + std::to_string(root[1]) +
               " or other ones (a different spec, registry, data directory, --threads or bnnbench build?)" + notes);
  }
  return session.all_true(same);
}

MpiSession::MpiSession() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("MPI: this MPI library offers no threads");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

bool MpiSession::all_true(bool mine) const {
  int in = mine ? 1 : 0, out = 0;
  check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  return out == 1;
}

std::string MpiSession::describe() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  check(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                      MPI_COMM_WORLD),
        "MPI_Allgather");
  std::set<std::string> hosts;
  for (int r = 0; r < size_; ++r)
    hosts.insert(std::string(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME));
  return std::to_string(size_) + " processes on " + std::to_string(hosts.size()) +
         (hosts.size() == 1 ? " host" : " hosts");
}

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

RunSummary run_plan_mpi(const MpiSession& session, const ExperimentSpec& spec, const Plan& plan, ResultsStore* store,
                        const RunOptions& options) {
  if (session.rank() == 0) return run_rank0(session, spec, plan, *store, options);
  run_worker(session, spec, plan, options);
  return {};
}

}  // namespace bnn::exp
