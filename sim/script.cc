#include "sim/script.h"

#include <cctype>
#include <set>

namespace kmock::sim {
namespace {

bool IsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

struct Token {
  enum class Type { kWord, kOp, kNewline, kEof };
  Type type = Type::kEof;
  std::string op;  // ";" "&" "&&" "||" "|" "(" ")" ">" ">>" "<" ">&" "&>"
  int fd = -1;     // redirection's explicit fd ("2>")
  Word word;
};

class Parser {
 public:
  explicit Parser(std::string_view src) : src_(src) {}

  Result<std::shared_ptr<const Script>> Parse() {
    auto script = std::make_shared<Script>();
    code_ = &script->code;
    Status st = Next();
    if (st.ok()) st = ParseList({});
    if (st.ok() && tok_.type != Token::Type::kEof) st = Unexpected();
    if (!st.ok()) return st;
    return std::shared_ptr<const Script>(std::move(script));
  }

 private:
  // ---- lexing ----

  Status Error(const std::string& what) {
    return Status(StatusCode::kInvalid, "syntax error: " + what);
  }
  Status Unexpected() {
    if (tok_.type == Token::Type::kEof) return Error("unexpected end of file");
    if (tok_.type == Token::Type::kNewline) return Error("unexpected newline");
    std::string text =
        tok_.type == Token::Type::kOp ? tok_.op : tok_.word.PlainText();
    return Error("unexpected \"" + text + "\"");
  }

  void SkipBlanks() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '\\' && pos_ + 1 < src_.size() &&
                 src_[pos_ + 1] == '\n') {
        pos_ += 2;
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  static bool IsMeta(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' ||
           c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
  }

  Status Next() {
    SkipBlanks();
    tok_ = Token{};
    if (pos_ >= src_.size()) return Status::Ok();
    char c = src_[pos_];
    if (c == '\n') {
      ++pos_;
      tok_.type = Token::Type::kNewline;
      return Status::Ok();
    }
    // A redirection with its fd: 2> 2>> 1>&2
    if (std::isdigit(static_cast<unsigned char>(c)) && pos_ + 1 < src_.size() &&
        (src_[pos_ + 1] == '>' || src_[pos_ + 1] == '<')) {
      tok_.fd = c - '0';
      ++pos_;
      c = src_[pos_];
    }
    static const char* kOps[] = {"&&", "||", ">>", ">&", "&>", ";",
                                 "&",  "|",  "(",  ")",  ">",  "<"};
    for (const char* op : kOps) {
      std::string_view o(op);
      if (src_.substr(pos_, o.size()) == o) {
        pos_ += o.size();
        tok_.type = Token::Type::kOp;
        tok_.op = op;
        return Status::Ok();
      }
    }
    tok_.type = Token::Type::kWord;
    return LexWord(&tok_.word);
  }

  void AddLiteral(Word* w, std::string_view text, bool quoted) {
    if (text.empty()) return;
    if (!w->parts.empty() && w->parts.back().kind == WordPart::Kind::kLiteral &&
        w->parts.back().quoted == quoted) {
      w->parts.back().text += text;
      return;
    }
    WordPart p;
    p.text = std::string(text);
    p.quoted = quoted;
    w->parts.push_back(std::move(p));
  }

  // The end of a $( ... ) starting after "$(": the matching ')'.
  Result<size_t> MatchParen(size_t from) {
    int depth = 1;
    size_t i = from;
    while (i < src_.size()) {
      char c = src_[i];
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == '\'') {
        size_t end = src_.find('\'', i + 1);
        if (end == std::string_view::npos) break;
        i = end + 1;
        continue;
      }
      if (c == '"') {
        ++i;
        while (i < src_.size() && src_[i] != '"') i += src_[i] == '\\' ? 2 : 1;
        ++i;
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) return i;
      ++i;
    }
    return Error("unterminated quoted string");
  }

  Status AddSubstitution(Word* w, std::string_view inner, bool quoted) {
    KMOCK_ASSIGN_OR_RETURN(auto script, Parser(inner).Parse());
    WordPart p;
    p.kind = WordPart::Kind::kCommand;
    p.quoted = quoted;
    p.script = std::move(script);
    w->parts.push_back(std::move(p));
    return Status::Ok();
  }

  // After a '$' at pos_ (not yet consumed).
  Status LexDollar(Word* w, bool quoted) {
    size_t start = pos_;
    ++pos_;
    if (pos_ >= src_.size()) {
      AddLiteral(w, "$", quoted);
      return Status::Ok();
    }
    char c = src_[pos_];
    WordPart p;
    p.quoted = quoted;
    if (c == '(' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '(') {
      size_t end = src_.find("))", pos_ + 2);
      if (end == std::string_view::npos)
        return Error("unterminated quoted string");
      p.kind = WordPart::Kind::kArith;
      p.text = std::string(src_.substr(pos_ + 2, end - pos_ - 2));
      pos_ = end + 2;
    } else if (c == '(') {
      KMOCK_ASSIGN_OR_RETURN(size_t end, MatchParen(pos_ + 1));
      std::string_view inner = src_.substr(pos_ + 1, end - pos_ - 1);
      pos_ = end + 1;
      return AddSubstitution(w, inner, quoted);
    } else if (c == '{') {
      size_t end = src_.find('}', pos_);
      if (end == std::string_view::npos) return Error("missing '}'");
      p.kind = WordPart::Kind::kVar;
      p.text = std::string(src_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
    } else if (IsNameStart(c)) {
      size_t end = pos_;
      while (end < src_.size() && IsNameChar(src_[end])) ++end;
      p.kind = WordPart::Kind::kVar;
      p.text = std::string(src_.substr(pos_, end - pos_));
      pos_ = end;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '?' ||
               c == '$' || c == '#' || c == '@' || c == '*' || c == '!') {
      p.kind = WordPart::Kind::kVar;
      p.text = std::string(1, c);
      ++pos_;
    } else {
      AddLiteral(w, src_.substr(start, 1), quoted);
      return Status::Ok();
    }
    w->parts.push_back(std::move(p));
    return Status::Ok();
  }

  Status LexBacktick(Word* w, bool quoted) {
    size_t end = src_.find('`', pos_ + 1);
    if (end == std::string_view::npos)
      return Error("unterminated quoted string");
    std::string_view inner = src_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return AddSubstitution(w, inner, quoted);
  }

  Status LexWord(Word* w) {
    while (pos_ < src_.size() && !IsMeta(src_[pos_])) {
      char c = src_[pos_];
      if (c == '\'') {
        size_t end = src_.find('\'', pos_ + 1);
        if (end == std::string_view::npos)
          return Error("unterminated quoted string");
        AddLiteral(w, src_.substr(pos_ + 1, end - pos_ - 1), true);
        if (end == pos_ + 1) AddEmptyQuoted(w);
        pos_ = end + 1;
      } else if (c == '"') {
        ++pos_;
        bool any = false;
        while (true) {
          if (pos_ >= src_.size()) return Error("unterminated quoted string");
          char d = src_[pos_];
          if (d == '"') {
            ++pos_;
            break;
          }
          any = true;
          if (d == '\\' && pos_ + 1 < src_.size() &&
              std::string_view("$`\"\\\n").find(src_[pos_ + 1]) !=
                  std::string_view::npos) {
            if (src_[pos_ + 1] != '\n')
              AddLiteral(w, src_.substr(pos_ + 1, 1), true);
            pos_ += 2;
          } else if (d == '$') {
            KMOCK_RETURN_IF_ERROR(LexDollar(w, true));
          } else if (d == '`') {
            KMOCK_RETURN_IF_ERROR(LexBacktick(w, true));
          } else {
            AddLiteral(w, src_.substr(pos_, 1), true);
            ++pos_;
          }
        }
        if (!any) AddEmptyQuoted(w);
      } else if (c == '\\') {
        if (pos_ + 1 < src_.size()) {
          if (src_[pos_ + 1] != '\n')
            AddLiteral(w, src_.substr(pos_ + 1, 1), true);
          pos_ += 2;
        } else {
          ++pos_;
        }
      } else if (c == '$') {
        KMOCK_RETURN_IF_ERROR(LexDollar(w, false));
      } else if (c == '`') {
        KMOCK_RETURN_IF_ERROR(LexBacktick(w, false));
      } else {
        AddLiteral(w, src_.substr(pos_, 1), false);
        ++pos_;
      }
    }
    return Status::Ok();
  }

  // "" or '': a word that expands to one empty field.
  static void AddEmptyQuoted(Word* w) {
    WordPart p;
    p.quoted = true;
    w->parts.push_back(std::move(p));
  }

  // ---- parsing ----

  bool AtReserved(const char* word) const {
    return tok_.type == Token::Type::kWord && tok_.word.PlainText() == word;
  }
  bool AtOp(const char* op) const {
    return tok_.type == Token::Type::kOp && tok_.op == op;
  }
  Status SkipNewlines() {
    while (tok_.type == Token::Type::kNewline) KMOCK_RETURN_IF_ERROR(Next());
    return Status::Ok();
  }
  Status Expect(const char* word) {
    KMOCK_RETURN_IF_ERROR(SkipNewlines());
    if (!AtReserved(word)) {
      if (tok_.type == Token::Type::kEof)
        return Error(std::string("unexpected end of file (expecting \"") +
                     word + "\")");
      return Unexpected();
    }
    return Next();
  }

  int Here() const { return static_cast<int>(code_->size()); }
  int Emit(Op op, int target = 0) {
    Instr in;
    in.op = op;
    in.target = target;
    code_->push_back(std::move(in));
    return Here() - 1;
  }
  void Patch(int at) { (*code_)[at].target = Here(); }

  bool AtListEnd(const std::set<std::string>& terminators) const {
    if (tok_.type == Token::Type::kEof || AtOp(")")) return true;
    if (tok_.type != Token::Type::kWord) return false;
    return terminators.count(tok_.word.PlainText()) > 0;
  }

  // A list up to (not including) one of the terminators, EOF or ')'.
  Status ParseList(const std::set<std::string>& terminators) {
    while (true) {
      KMOCK_RETURN_IF_ERROR(SkipNewlines());
      if (AtOp(";")) return Unexpected();  // a leading ';', as in sh
      if (AtListEnd(terminators)) return Status::Ok();
      for (const char* closer :
           {"then", "elif", "else", "fi", "do", "done", "}"}) {
        if (AtReserved(closer)) return Unexpected();
      }
      KMOCK_RETURN_IF_ERROR(ParseAndOr());
      if (AtOp(";") || AtOp("&")) {
        if (AtOp("&") && !code_->empty() && code_->back().op == Op::kPipeline) {
          code_->back().background = true;
        }
        KMOCK_RETURN_IF_ERROR(Next());
      } else if (tok_.type == Token::Type::kNewline) {
        KMOCK_RETURN_IF_ERROR(Next());
      } else if (!AtListEnd(terminators)) {
        return Unexpected();
      }
    }
  }

  Status ParseAndOr() {
    KMOCK_RETURN_IF_ERROR(ParsePipeline());
    while (AtOp("&&") || AtOp("||")) {
      int jump = Emit(AtOp("&&") ? Op::kJumpIfFailed : Op::kJumpIfSucceeded);
      KMOCK_RETURN_IF_ERROR(Next());
      KMOCK_RETURN_IF_ERROR(SkipNewlines());
      KMOCK_RETURN_IF_ERROR(ParsePipeline());
      Patch(jump);
    }
    return Status::Ok();
  }

  Status ParsePipeline() {
    bool negate = false;
    if (AtReserved("!")) {
      negate = true;
      KMOCK_RETURN_IF_ERROR(Next());
    }
    if (++depth_ > 100) return Error("nested too deeply");
    Status st = ParseCommandOrPipeline();
    --depth_;
    KMOCK_RETURN_IF_ERROR(st);
    if (negate) Emit(Op::kNot);
    return Status::Ok();
  }

  Status ParseCommandOrPipeline() {
    if (AtCompound()) return ParseCompound();
    Instr in;
    in.op = Op::kPipeline;
    while (true) {
      Command cmd;
      KMOCK_RETURN_IF_ERROR(ParseSimple(&cmd));
      in.pipeline.push_back(std::move(cmd));
      if (!AtOp("|")) break;
      KMOCK_RETURN_IF_ERROR(Next());
      KMOCK_RETURN_IF_ERROR(SkipNewlines());
      if (AtCompound())
        return Error("unsupported: a compound command in a pipeline");
    }
    code_->push_back(std::move(in));
    return Status::Ok();
  }

  bool AtCompound() const {
    return AtReserved("if") || AtReserved("while") || AtReserved("until") ||
           AtReserved("for") || AtReserved("{") || AtOp("(");
  }

  Status ParseCompound() {
    if (AtReserved("if")) return ParseIf();
    if (AtReserved("while") || AtReserved("until")) return ParseLoop();
    if (AtReserved("for")) return ParseFor();
    if (AtReserved("{")) {
      KMOCK_RETURN_IF_ERROR(Next());
      KMOCK_RETURN_IF_ERROR(ParseList({"}"}));
      return Expect("}");
    }
    KMOCK_RETURN_IF_ERROR(Next());  // (
    KMOCK_RETURN_IF_ERROR(ParseList({}));
    if (!AtOp(")")) return Unexpected();
    return Next();
  }

  Status ParseIf() {
    KMOCK_RETURN_IF_ERROR(Next());  // if / elif
    KMOCK_RETURN_IF_ERROR(ParseList({"then"}));
    KMOCK_RETURN_IF_ERROR(Expect("then"));
    int skip = Emit(Op::kJumpIfFailed);
    KMOCK_RETURN_IF_ERROR(ParseList({"elif", "else", "fi"}));
    int to_end = Emit(Op::kJump);
    Patch(skip);
    if (AtReserved("elif")) {
      KMOCK_RETURN_IF_ERROR(ParseIf());  // consumes through "fi"
      Patch(to_end);
      return Status::Ok();
    }
    if (AtReserved("else")) {
      KMOCK_RETURN_IF_ERROR(Next());
      KMOCK_RETURN_IF_ERROR(ParseList({"fi"}));
    } else {
      Instr in;
      in.op = Op::kSetStatus;
      code_->push_back(std::move(in));
    }
    Patch(to_end);
    return Expect("fi");
  }

  Status ParseLoop() {
    bool until = AtReserved("until");
    KMOCK_RETURN_IF_ERROR(Next());
    int top = Here();
    KMOCK_RETURN_IF_ERROR(ParseList({"do"}));
    KMOCK_RETURN_IF_ERROR(Expect("do"));
    int exit = Emit(until ? Op::kJumpIfSucceeded : Op::kJumpIfFailed);
    KMOCK_RETURN_IF_ERROR(ParseList({"done"}));
    Emit(Op::kJump, top);
    Patch(exit);
    Instr in;
    in.op = Op::kSetStatus;
    code_->push_back(std::move(in));
    return Expect("done");
  }

  Status ParseFor() {
    KMOCK_RETURN_IF_ERROR(Next());
    if (tok_.type != Token::Type::kWord) return Unexpected();
    std::string var = tok_.word.PlainText();
    if (var.empty() || !IsNameStart(var[0])) return Unexpected();
    KMOCK_RETURN_IF_ERROR(Next());
    Instr begin;
    begin.op = Op::kForBegin;
    KMOCK_RETURN_IF_ERROR(SkipNewlines());
    if (AtReserved("in")) {
      KMOCK_RETURN_IF_ERROR(Next());
      while (tok_.type == Token::Type::kWord) {
        begin.words.push_back(tok_.word);
        KMOCK_RETURN_IF_ERROR(Next());
      }
    } else {
      WordPart all;
      all.kind = WordPart::Kind::kVar;
      all.text = "@";
      begin.words.push_back(Word{{all}});
    }
    if (AtOp(";")) KMOCK_RETURN_IF_ERROR(Next());
    code_->push_back(std::move(begin));
    int top = Emit(Op::kForNext);
    (*code_)[top].var = var;
    KMOCK_RETURN_IF_ERROR(Expect("do"));
    KMOCK_RETURN_IF_ERROR(ParseList({"done"}));
    Emit(Op::kJump, top);
    Patch(top);
    return Expect("done");
  }

  static bool IsAssignment(const Word& w, std::string* name, Word* value) {
    if (w.parts.empty() || w.parts[0].kind != WordPart::Kind::kLiteral ||
        w.parts[0].quoted)
      return false;
    const std::string& t = w.parts[0].text;
    size_t eq = t.find('=');
    if (eq == std::string::npos || eq == 0 || !IsNameStart(t[0])) return false;
    for (size_t i = 0; i < eq; ++i)
      if (!IsNameChar(t[i])) return false;
    *name = t.substr(0, eq);
    *value = w;
    value->parts[0].text = t.substr(eq + 1);
    if (value->parts[0].text.empty()) value->parts.erase(value->parts.begin());
    return true;
  }

  Status ParseSimple(Command* cmd) {
    while (true) {
      if (tok_.type == Token::Type::kWord) {
        std::string name;
        Word value;
        if (cmd->words.empty() && IsAssignment(tok_.word, &name, &value)) {
          cmd->assigns.emplace_back(std::move(name), std::move(value));
        } else {
          cmd->words.push_back(std::move(tok_.word));
        }
        KMOCK_RETURN_IF_ERROR(Next());
      } else if (AtOp(">") || AtOp(">>") || AtOp("<") || AtOp(">&") ||
                 AtOp("&>")) {
        KMOCK_RETURN_IF_ERROR(ParseRedirect(cmd));
      } else {
        break;
      }
    }
    if (cmd->words.empty() && cmd->assigns.empty() && cmd->redirects.empty())
      return Unexpected();
    return Status::Ok();
  }

  Status ParseRedirect(Command* cmd) {
    std::string op = tok_.op;
    int fd = tok_.fd;
    KMOCK_RETURN_IF_ERROR(Next());
    if (tok_.type != Token::Type::kWord) return Unexpected();
    Redirect r;
    if (op == ">&") {
      std::string t = tok_.word.PlainText();
      if (t.size() != 1 || !std::isdigit(static_cast<unsigned char>(t[0]))) {
        // >&file: both streams to the file.
        r.op = Redirect::Op::kWrite;
        r.fd = 1;
        r.target = tok_.word;
        cmd->redirects.push_back(r);
        r.op = Redirect::Op::kDup;
        r.fd = 2;
        r.dup_to = 1;
        cmd->redirects.push_back(std::move(r));
        return Next();
      }
      r.op = Redirect::Op::kDup;
      r.fd = fd < 0 ? 1 : fd;
      r.dup_to = t[0] - '0';
    } else if (op == "&>") {
      r.op = Redirect::Op::kWrite;
      r.fd = 1;
      r.target = tok_.word;
      cmd->redirects.push_back(r);
      Redirect dup;
      dup.op = Redirect::Op::kDup;
      dup.fd = 2;
      dup.dup_to = 1;
      cmd->redirects.push_back(std::move(dup));
      return Next();
    } else {
      r.op = op == ">"    ? Redirect::Op::kWrite
             : op == ">>" ? Redirect::Op::kAppend
                          : Redirect::Op::kRead;
      r.fd = fd >= 0 ? fd : (op == "<" ? 0 : 1);
      r.target = tok_.word;
    }
    cmd->redirects.push_back(std::move(r));
    return Next();
  }

  std::string_view src_;
  size_t pos_ = 0;
  Token tok_;
  std::vector<Instr>* code_ = nullptr;
  int depth_ = 0;
};

}  // namespace

std::string Word::PlainText() const {
  if (parts.size() != 1 || parts[0].kind != WordPart::Kind::kLiteral ||
      parts[0].quoted)
    return "";
  return parts[0].text;
}

Result<std::shared_ptr<const Script>> ParseScript(std::string_view source) {
  return Parser(source).Parse();
}

std::shared_ptr<const Script> CommandScript(
    const std::vector<std::string>& argv) {
  auto script = std::make_shared<Script>();
  Instr in;
  in.op = Op::kPipeline;
  Command cmd;
  for (const auto& a : argv) {
    WordPart p;
    p.text = a;
    p.quoted = true;
    cmd.words.push_back(Word{{p}});
  }
  in.pipeline.push_back(std::move(cmd));
  script->code.push_back(std::move(in));
  return script;
}

}  // namespace kmock::sim
