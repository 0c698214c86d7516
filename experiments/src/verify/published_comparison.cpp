#include "experiments/src/verify/published_comparison.hpp"

#include <sstream>

#include "experiments/src/io/files.hpp"
#include "experiments/src/report/reference.hpp"
#include "experiments/src/report/report_store.hpp"
#include "experiments/src/verify/split_comparison.hpp"
#include "experiments/src/verify/split_file.hpp"
#include "experiments/src/verify/verify.hpp"

namespace bnn::exp {

ComparisonOutcome compare_with_published(const ReportSource& source, const std::string& file, double tolerance) {
  const std::string published = read_text_file(file, "--compare");
  ReportStore opened(source);
  ResultsStore& store = *opened;
  ComparisonOutcome out;
  if (is_split_table(published)) {
    const SplitFileOutcome c =
        compare_with_split_file(source.spec.name, selected_jobs(store.jobs(source.spec.name, false), source.selection),
                                store.path(), file, published, tolerance);
    return {c.text, c.error, c.status};
  }
  const std::string ours = render_csv(build_report(source.spec, source.registry, store,
                                                   load_reference(source.spec, source.registry), source.selection));
  const TableComparison c = compare_report_tables(ours, published, file, tolerance);
  std::ostringstream text;
  text << "# " << source.spec.name << ": " << store.path() << " against " << file << "\n\n"
       << c.compared << " value(s) compared (timings excepted): " << c.identical << " identical, "
       << (tolerance > 0
               ? std::to_string(c.within) + " within the relative tolerance " + format_tolerance(tolerance) + ", "
               : std::string())
       << c.differing.size() << " differ; " << c.not_rerun << " published value(s) not rerun here, " << c.partial
       << " over a different number of splits, " << c.not_published << " of ours not in the published table\n";
  if (c.compared == 0) {
    out.error = "no value of " + file + " could be compared with this store's report";
    out.status = 1;
  }
  if (!c.differing.empty()) {
    text << "\n| data set | method | metric | ours | se | published | se | relative difference |\n"
            "|---|---|---|---|---|---|---|---|\n";
    for (const auto& d : c.differing)
      text << "| " << d.dataset << " | " << d.method << " | " << d.metric << " | " << d.ours << " | " << d.ours_se
           << " | " << d.theirs << " | " << d.theirs_se << " | " << d.relative << " |\n";
    out.status = 1;
  }
  out.text = text.str();
  return out;
}

}  // namespace bnn::exp
