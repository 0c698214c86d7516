#pragma once
// Independent pieces of one fit (NN-MC's chains, a GP's optimizer starts) as OpenMP tasks.
// Inside the harness's team of job workers, a thread that has run out of jobs picks up the
// pieces of a job still running; called outside any team, the pieces get a team of their
// own. Each piece must own its RNG stream and its output slot, so that the result does not
// depend on which thread ran which piece.
#include <functional>

namespace bnn {

// Runs piece(0), ..., piece(count - 1), each exactly once, and returns when all are done.
// With its own team it uses at most max_threads threads (<= 0: omp_get_max_threads()), and no
// more than count unless the pieces split into pieces of their own (nested): then every thread
// allowed, for the nested pieces to use. If pieces throw, every piece still runs and the
// exception of the lowest index is rethrown afterwards: none escapes an OpenMP region.
// The CPU time the pieces (and the pieces they split into) spend on threads other than the
// caller's is added to the caller thread's total below; the caller's own thread CPU clock
// holds the rest. Nested calls count each CPU second once: a nested call's time goes into the
// call whose piece made it, and only the outermost call's into its caller thread's total.
void run_pieces(int count, const std::function<void(int)>& piece, int max_threads = 0, bool nested = false);

// The CPU time that pieces of the run_pieces calls made by this thread (not inside a piece of
// an enclosing call) spent on other threads, since the thread started. A job's CPU time is its
// thread's clock plus the change in this total over its fit.
double pieces_cpu_seconds_elsewhere();

}  // namespace bnn
