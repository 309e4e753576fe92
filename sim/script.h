// A container's shell script, compiled: the small POSIX shell subset the
// simulated containers understand (`sh -c "..."`), parsed in one pass into
// flat instructions so that a running script is a program counter and a few
// stacks, and can stop at a `sleep` and resume later (process.h).
//
// Understood: simple commands with VAR=value prefixes and redirections
// (> >> < 2> 2>> 2>&1 >&2 &>), pipelines (|, !), lists (; & && || and
// newlines), { ...; }, ( ... ), if/elif/else, while, until, for ... in,
// comments, quoting ('...', "...", \x), and expansions $VAR ${VAR} $? $$ $#
// $0..$9 $@ $* $(...) `...` $((arithmetic)). Not understood: functions,
// case, here-documents, globbing (words stay literal).
//
// Thread safety: a compiled Script is immutable and may be shared.
#ifndef KMOCK_SIM_SCRIPT_H_
#define KMOCK_SIM_SCRIPT_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace kmock::sim {

struct Script;

struct WordPart {
  enum class Kind {
    kLiteral,  // text as written (quotes removed)
    kVar,      // $text
    kCommand,  // $(...) or `...`: script
    kArith,    // $((text))
  };
  Kind kind = Kind::kLiteral;
  std::string text;
  bool quoted = false;  // inside "..." or '...': no field splitting
  std::shared_ptr<const Script> script;
};

struct Word {
  std::vector<WordPart> parts;
  // The literal text when the word is one unquoted literal (reserved
  // words are recognised only then), else empty.
  std::string PlainText() const;
};

struct Redirect {
  enum class Op { kWrite, kAppend, kRead, kDup };
  int fd = 1;
  Op op = Op::kWrite;
  Word target;      // file name (kWrite, kAppend, kRead)
  int dup_to = -1;  // kDup: fd becomes a copy of dup_to
};

struct Command {
  std::vector<std::pair<std::string, Word>> assigns;
  std::vector<Word> words;
  std::vector<Redirect> redirects;
};

enum class Op {
  kPipeline,         // run `pipeline`; $? is the last command's status
  kJump,             // pc = target
  kJumpIfFailed,     // if $? != 0: pc = target
  kJumpIfSucceeded,  // if $? == 0: pc = target
  kNot,              // $? = !$?
  kSetStatus,        // $? = value
  kForBegin,         // expand `words`, push a loop over them
  kForNext,          // next value into `var`, or pop and pc = target
};

struct Instr {
  Op op = Op::kPipeline;
  std::vector<Command> pipeline;
  bool background = false;  // ended by &
  int target = 0;
  int value = 0;
  std::string var;
  std::vector<Word> words;
};

struct Script {
  std::vector<Instr> code;
};

// Compiles a script. Errors are the shell's message without the "sh: "
// prefix, as busybox prints them: `syntax error: unexpected "fi"`,
// `syntax error: unterminated quoted string`.
Result<std::shared_ptr<const Script>> ParseScript(std::string_view source);

// A script that runs one command with the given words, all literal
// (a container whose command is not a shell: ["sleep", "30"]).
std::shared_ptr<const Script> CommandScript(
    const std::vector<std::string>& argv);

}  // namespace kmock::sim

#endif  // KMOCK_SIM_SCRIPT_H_
