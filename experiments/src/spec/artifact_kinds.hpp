#pragma once
// The artifact kinds a spec can ask for (`[[artifacts]] kind = "..."`): what each stores, from
// which Model function (methods/core/model.hpp), and the figure `report` draws of it.
#include <string>
#include <vector>

namespace bnn::exp {

struct ArtifactKind {
  std::string name;                 // as written in a spec
  std::string summary;              // for `bnnbench list artifacts`
  std::vector<std::string> tables;  // the tables it stores (artifact_table.hpp), also its CSV files
};

const std::vector<ArtifactKind>& artifact_kinds();
// The kind of that name; std::invalid_argument listing the known kinds otherwise.
const ArtifactKind& find_artifact_kind(const std::string& name);

}  // namespace bnn::exp
