#include "experiments/src/report/html_page.hpp"

#include <sstream>
#include <string_view>

namespace bnn::exp {
namespace {

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

// Text with `code` spans.
std::string inline_html(std::string_view text) {
  std::string out;
  bool code = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '`') continue;
    out += escape(text.substr(start, i - start));
    if (i < text.size()) out += code ? "</code>" : "<code>";
    code = !code;
    start = i + 1;
  }
  if (!code) out += "</code>";  // an unmatched backtick: close what it opened
  return out;
}

std::vector<std::string> table_cells(std::string_view row) {
  std::vector<std::string> cells;
  if (!row.empty() && row.front() == '|') row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') row.remove_suffix(1);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= row.size(); ++i)
    if (i == row.size() || row[i] == '|') {
      std::string_view cell = row.substr(start, i - start);
      while (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);
      while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
      cells.emplace_back(cell);
      start = i + 1;
    }
  return cells;
}

bool is_rule(std::string_view line) { return line.starts_with("|---") || line.starts_with("|:--"); }

// A table cell: a value marked as beyond two standard errors of the paper's ("... *") gets a
// class the page styles.
std::string cell_html(const std::string& text, const char* tag) {
  const bool marked = text.size() > 2 && text.ends_with(" *");
  return std::string("<") + tag + (marked ? " class=\"differs\"" : "") + ">" + inline_html(text) + "</" + tag + ">";
}

}  // namespace

std::string markdown_to_html(const std::string& markdown) {
  std::istringstream in(markdown);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::ostringstream out;
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string& line = lines[i];
    if (line.empty()) {
      ++i;
    } else if (line.starts_with("### ") || line.starts_with("## ") || line.starts_with("# ")) {
      const std::size_t level = line.find(' ');
      out << "<h" << level << ">" << inline_html(std::string_view(line).substr(level + 1)) << "</h" << level << ">\n";
      ++i;
    } else if (line.starts_with("|") && i + 1 < lines.size() && is_rule(lines[i + 1])) {
      out << "<div class=\"wide\"><table>\n<thead><tr>";
      for (const auto& cell : table_cells(line)) out << cell_html(cell, "th");
      out << "</tr></thead>\n<tbody>\n";
      for (i += 2; i < lines.size() && lines[i].starts_with("|"); ++i) {
        out << "<tr>";
        for (const auto& cell : table_cells(lines[i])) out << cell_html(cell, "td");
        out << "</tr>\n";
      }
      out << "</tbody>\n</table></div>\n";
    } else if (line.starts_with("- ")) {
      out << "<ul>\n";
      for (; i < lines.size() && lines[i].starts_with("- "); ++i)
        out << "<li>" << inline_html(std::string_view(lines[i]).substr(2)) << "</li>\n";
      out << "</ul>\n";
    } else {
      out << "<p>";
      for (bool first = true; i < lines.size() && !lines[i].empty() && !lines[i].starts_with("#") &&
                              !lines[i].starts_with("|") && !lines[i].starts_with("- ");
           ++i, first = false)
        out << (first ? "" : "\n") << inline_html(lines[i]);
      out << "</p>\n";
    }
  }
  return out.str();
}

std::string html_page(const std::string& title, const std::string& markdown,
                      const std::vector<std::pair<std::string, std::string>>& figures,
                      const std::vector<std::string>& links) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << escape(title)
      << "</title>\n<style>\n"
         "body { font-family: sans-serif; margin: 2em auto; max-width: 90em; padding: 0 1em; color: #222; }\n"
         "div.wide { overflow-x: auto; }\n"
         "table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }\n"
         "th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; white-space: nowrap; }\n"
         "th:first-child, td:first-child { text-align: left; }\n"
         "thead th { background: #eee; }\n"
         "td.differs { background: #fde2d6; }\n"
         "code { background: #f4f4f4; padding: 0 0.2em; }\n"
         "figure { margin: 1em 0; }\n"
         "figure svg { max-width: 100%; height: auto; }\n"
         "</style>\n</head>\n<body>\n"
      << markdown_to_html(markdown);
  if (!figures.empty()) {
    out << "<h2>Figures</h2>\n";
    for (const auto& [name, svg] : figures) {
      // The SVG inline, without its XML declaration (not allowed inside HTML).
      std::string_view body = svg;
      if (body.starts_with("<?xml")) body.remove_prefix(body.find("?>") + 2);
      out << "<figure id=\"" << escape(name) << "\">\n"
          << body << "\n<figcaption>" << escape(name) << "</figcaption>\n</figure>\n";
    }
  }
  if (!links.empty()) {
    out << "<h2>Files</h2>\n<ul>\n";
    for (const auto& name : links) out << "<li><a href=\"" << escape(name) << "\">" << escape(name) << "</a></li>\n";
    out << "</ul>\n";
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace bnn::exp
