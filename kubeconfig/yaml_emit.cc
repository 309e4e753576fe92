#include "kubeconfig/yaml_emit.h"

#include <algorithm>
#include <cctype>

namespace kmock::kubeconfig {

namespace {

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void Emit(YAML::Emitter& out, const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out << YAML::Null;
      return;
    case YAML::NodeType::Scalar: {
      const std::string& tag = n.Tag();
      const std::string& value = n.Scalar();
      if (tag == "?") {  // plain in the input: keep it plain
        out << value;
      } else if (tag.empty() || tag == "!") {  // a string
        if (NeedsQuotesAsString(value)) out << YAML::DoubleQuoted;
        out << value;
      } else {
        out << YAML::VerbatimTag(tag) << value;
      }
      return;
    }
    case YAML::NodeType::Sequence:
      if (n.Style() == YAML::EmitterStyle::Flow || n.size() == 0)
        out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& item : n) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case YAML::NodeType::Map:
      if (n.Style() == YAML::EmitterStyle::Flow || n.size() == 0)
        out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& kv : n) {
        out << YAML::Key;
        Emit(out, kv.first);
        out << YAML::Value;
        Emit(out, kv.second);
      }
      out << YAML::EndMap;
      return;
  }
}

}  // namespace

bool NeedsQuotesAsString(const std::string& s) {
  if (s.empty()) return true;
  static const char* const kWords[] = {"~",    "null",  "true",  "false", "yes",
                                       "no",   "y",     "n",     "on",    "off",
                                       ".inf", "+.inf", "-.inf", ".nan"};
  std::string lower = Lower(s);
  if (std::find(std::begin(kWords), std::end(kWords), lower) !=
      std::end(kWords))
    return true;
  // Anything that starts like a number and holds only characters that
  // numbers use (decimal, hex, octal, exponent, 1_000, sexagesimal 1:20).
  char c = s[0];
  if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' ||
        c == '.')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isxdigit(static_cast<unsigned char>(ch)) ||
           std::string_view("xXoO._:+-").find(ch) != std::string_view::npos;
  });
}

std::string EmitYaml(const YAML::Node& node) {
  YAML::Emitter out;
  out.SetIndent(2);
  Emit(out, node);
  std::string text = out.c_str();
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

}  // namespace kmock::kubeconfig
