#pragma once
// Derived tables the harness builds from original files, byte for byte reproducible.
#include <string>
#include <string_view>

namespace bnn::data {

// Communities and Crime Unnormalized -> the n = 1993, d = 102 table of the EP-NN paper.
// Recipe (1-based columns of the UCI file): target 146 ViolentCrimesPerPop, rows with a
// missing target dropped; inputs are the predictive columns 6-129 without the 22 police
// columns 104-120, 124-127, 129; rows still missing an input dropped; values copied as text,
// 102 inputs then the target, space-separated.
std::string derive_crime_n1993_d102(std::string_view original, const std::string& file);

// Runs a recipe by its registry name; throws std::invalid_argument for an unknown recipe.
std::string run_derivation(const std::string& recipe, std::string_view input, const std::string& file);

}  // namespace bnn::data
