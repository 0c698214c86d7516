#pragma once
// A report as one self-contained HTML page: the Markdown report (tables with the papers'
// numbers and the two-SE marks, provenance, notes and warnings) turned into HTML, the figures
// inline as SVG, and links to the files published beside it. No script, nothing fetched when
// it is viewed.
#include <string>
#include <utility>
#include <vector>

namespace bnn::exp {

// HTML for the Markdown bnnbench writes: headings (#, ##, ###), pipe tables, "- " lists,
// paragraphs and `code`; everything else is text, escaped.
std::string markdown_to_html(const std::string& markdown);

// The page: `title`, the report's Markdown, figures (name, SVG text) and links (file names in
// the same folder).
std::string html_page(const std::string& title, const std::string& markdown,
                      const std::vector<std::pair<std::string, std::string>>& figures,
                      const std::vector<std::string>& links);

}  // namespace bnn::exp
