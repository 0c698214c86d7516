#include "experiments/src/records/artifact_table.hpp"

#include <stdexcept>

#include "experiments/src/io/csv.hpp"

namespace bnn::exp {

const ArtifactColumn& ArtifactTable::column(const std::string& column_name) const {
  for (const auto& c : columns)
    if (c.name == column_name) return c;
  throw std::invalid_argument("artifact table " + name + " has no column '" + column_name + "'");
}

ArtifactTable& ArtifactTable::add(std::string column_name, std::vector<double> numbers) {
  columns.push_back({std::move(column_name), false, std::move(numbers), {}});
  return *this;
}

ArtifactTable& ArtifactTable::add_text(std::string column_name, std::vector<std::string> texts) {
  columns.push_back({std::move(column_name), true, {}, std::move(texts)});
  return *this;
}

std::string artifact_csv(const std::vector<JobTable>& tables) {
  std::string out;
  const ArtifactTable* first = nullptr;
  for (const auto& t : tables) {
    if (!first) {
      first = t.table;
      out = "dataset,method,split";
      for (const auto& c : first->columns) out += "," + csv_field(c.name);
      out += "\n";
    }
    if (t.table->columns.size() != first->columns.size())
      throw std::logic_error("artifact tables " + first->name + " of different jobs have different columns");
    for (std::size_t r = 0; r < t.table->rows(); ++r) {
      out += csv_field(t.dataset) + "," + csv_field(t.method) + "," + std::to_string(t.split);
      for (const auto& c : t.table->columns) out += "," + (c.text ? csv_field(c.texts[r]) : exact_number(c.numbers[r]));
      out += "\n";
    }
  }
  return out;
}

}  // namespace bnn::exp
