#pragma once
// Seeded generators for the papers' toy problems; built in, no download needed.
// Where a paper does not print a detail, the choice made here is stated in the registry notes.
#include <Eigen/Core>
#include <functional>
#include <string>

#include "dataset.hpp"
#include "methods/core/rng.hpp"
#include "registry.hpp"

namespace bnn::data {

// Noise-free latent functions (for figures and tests).
double pbp_cubic_latent(double x);               // x^3
double epnn_case1_latent(double x1, double x2);  // cluster levels 1 / 0 / 0.8
double epnn_case2_effect(int input, double x);   // additive effect of input 1..10
double epnn_case3_latent(double x);              // step at 0
double bb_toy_latent(double x);                  // -2.5 sigma(-0.13 x)
double erf_sigmoid(double a);                    // B&B eq. (2): erf(a / sqrt 2)

// The noise-free latent function of a generator at an input row (NaN for a row of the wrong
// length); an empty function for an unknown generator.
using LatentFunction = std::function<double(const Eigen::Ref<const Eigen::VectorXd>& x)>;
LatentFunction synthetic_latent(const std::string& generator);

Dataset make_pbp_cubic(long n, Rng& rng);   // x ~ U[-4, 4], y = x^3 + N(0, 3^2)
Dataset make_epnn_case1(long n, Rng& rng);  // three clusters, noise sd 0.1
Dataset make_epnn_case2(long n, Rng& rng);  // ten inputs U[-pi, pi], noise sd 0.2
Dataset make_epnn_case3(long n, Rng& rng);  // x ~ U[-3, 3], noise sd 0.1
Dataset make_bb_toy(long n, Rng& rng);      // x ~ U(-2, 2), noise sd 0.1

// Generates the registry's synthetic data set `name`.
Dataset generate_synthetic(const std::string& name, const SyntheticSpec& spec);

// Appends `count` irrelevant inputs drawn uniformly on [0, 1) (EP-NN's Kin40k protocol).
void append_irrelevant_uniform_inputs(Dataset& data, long count, Rng& rng);

}  // namespace bnn::data
