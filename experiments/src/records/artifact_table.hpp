#pragma once
// The stored form of a job's artifacts: tables of named columns, each of numbers or of text,
// all of one length. Every artifact kind (kinds.hpp) writes its typed result as one or more
// such tables, so that the store, `verify` and the CSV files treat every kind alike.
#include <string>
#include <vector>

namespace bnn::exp {

struct ArtifactColumn {
  std::string name;
  bool text = false;
  std::vector<double> numbers;     // when !text
  std::vector<std::string> texts;  // when text
  std::size_t size() const { return text ? texts.size() : numbers.size(); }
};

struct ArtifactTable {
  std::string kind;  // the artifact kind that made it, e.g. "parameter-marginals"
  std::string name;  // unique within a job and the stem of its CSV file, e.g. "parameter_marginals"
  std::vector<ArtifactColumn> columns;

  std::size_t rows() const { return columns.empty() ? 0 : columns.front().size(); }
  // The named column; std::invalid_argument naming the table when it has none.
  const ArtifactColumn& column(const std::string& column_name) const;
  ArtifactTable& add(std::string column_name, std::vector<double> numbers);
  ArtifactTable& add_text(std::string column_name, std::vector<std::string> texts);
};

// Renders the tables of one name from several jobs as one tidy CSV: dataset, method, split,
// then the table's columns; numbers with 17 significant digits, so the file reads back to the
// same bits. `jobs` pairs each table with its job's (dataset, method label, split).
struct JobTable {
  std::string dataset, method;
  int split = 0;
  const ArtifactTable* table = nullptr;
};
std::string artifact_csv(const std::vector<JobTable>& tables);

}  // namespace bnn::exp
