#include "sim/tar.h"

#include <cstdio>
#include <cstring>

namespace kmock::sim {
namespace {

constexpr size_t kBlock = 512;

void Octal(char* field, size_t width, uint64_t v) {
  // width-1 digits and a NUL, as tar writes numbers.
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(v));
}

uint64_t ReadOctal(const char* field, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    char c = field[i];
    if (c == ' ' && v == 0) continue;
    if (c < '0' || c > '7') break;
    v = v * 8 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

std::string Field(const char* p, size_t width) {
  size_t n = 0;
  while (n < width && p[n] != '\0') ++n;
  return std::string(p, n);
}

std::string Header(const std::string& name, char type, uint64_t size) {
  char h[kBlock];
  std::memset(h, 0, sizeof(h));
  std::string n = name, prefix;
  if (n.size() > 100) {
    // ustar splits a long name at a '/' into prefix and name.
    size_t cut = n.rfind('/', 155);
    if (cut != std::string::npos && n.size() - cut - 1 <= 100) {
      prefix = n.substr(0, cut);
      n = n.substr(cut + 1);
    }
  }
  std::memcpy(h, n.data(), std::min<size_t>(n.size(), 100));
  Octal(h + 100, 8, type == '5' ? 0755 : 0644);
  Octal(h + 108, 8, 0);
  Octal(h + 116, 8, 0);
  Octal(h + 124, 12, size);
  Octal(h + 136, 12, 0);
  std::memset(h + 148, ' ', 8);
  h[156] = type;
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memcpy(h + 265, "root", 4);
  std::memcpy(h + 297, "root", 4);
  std::memcpy(h + 345, prefix.data(), std::min<size_t>(prefix.size(), 155));
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);
  h[155] = ' ';
  return std::string(h, kBlock);
}

void Pad(std::string* out) {
  if (out->size() % kBlock) out->append(kBlock - out->size() % kBlock, '\0');
}

Status NotTar() { return Status(StatusCode::kInvalid, "invalid tar magic"); }

// The path record of a pax extended header, or empty.
std::string PaxPath(std::string_view records) {
  while (!records.empty()) {
    size_t sp = records.find(' ');
    if (sp == std::string_view::npos) break;
    size_t len = 0;
    for (size_t i = 0; i < sp; ++i) {
      if (records[i] < '0' || records[i] > '9') return "";
      len = len * 10 + static_cast<size_t>(records[i] - '0');
      if (len > records.size()) return "";
    }
    if (len <= sp || len > records.size()) return "";
    std::string_view rec = records.substr(sp + 1, len - sp - 1);
    if (!rec.empty() && rec.back() == '\n') rec.remove_suffix(1);
    if (rec.substr(0, 5) == "path=") return std::string(rec.substr(5));
    records.remove_prefix(len);
  }
  return "";
}

std::string Clean(std::string name) {
  while (!name.empty() && name.front() == '/') name.erase(name.begin());
  while (name.size() > 2 && name.compare(0, 2, "./") == 0) name.erase(0, 2);
  while (!name.empty() && name.back() == '/') name.pop_back();
  return name;
}

}  // namespace

std::string WriteTar(const std::vector<TarEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    std::string name = e.dir ? e.name + "/" : e.name;
    if (name.size() > 100 &&
        Header(name, '0', 0).compare(345, 1, "\0", 1) == 0) {
      // No ustar split fits: a GNU long name entry first.
      out += Header("././@LongLink", 'L', name.size() + 1);
      out += name;
      out.push_back('\0');
      Pad(&out);
    }
    out += Header(name, e.dir ? '5' : '0', e.dir ? 0 : e.data.size());
    if (!e.dir) {
      out += e.data;
      Pad(&out);
    }
  }
  out.append(2 * kBlock, '\0');
  return out;
}

Result<std::vector<TarEntry>> ReadTar(std::string_view a) {
  std::vector<TarEntry> entries;
  std::string long_name;
  size_t at = 0;
  while (at + kBlock <= a.size()) {
    const char* h = a.data() + at;
    bool zero = true;
    for (size_t i = 0; i < kBlock && zero; ++i) zero = h[i] == '\0';
    if (zero) return entries;  // the end-of-archive blocks
    unsigned sum = 0, stored = static_cast<unsigned>(ReadOctal(h + 148, 8));
    for (size_t i = 0; i < kBlock; ++i)
      sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    if (sum != stored) return NotTar();
    uint64_t size = ReadOctal(h + 124, 12);
    at += kBlock;
    if (size > a.size() - at) return Status(StatusCode::kInvalid, "short read");
    std::string_view body = a.substr(at, size);
    at += (size + kBlock - 1) / kBlock * kBlock;
    char type = h[156];
    if (type == 'L') {
      long_name = Field(body.data(), body.size());
      continue;
    }
    if (type == 'x') {
      long_name = PaxPath(body);
      continue;
    }
    if (type == 'g') continue;
    std::string name = Field(h, 100);
    if (std::memcmp(h + 257, "ustar", 5) == 0) {
      std::string prefix = Field(h + 345, 155);
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    if (!long_name.empty()) name = std::move(long_name);
    long_name.clear();
    TarEntry e;
    e.dir = type == '5' || (!name.empty() && name.back() == '/');
    e.name = Clean(name);
    if (type == '0' || type == '\0' || type == '7') e.data = std::string(body);
    if (e.name.empty() || e.name == ".") continue;
    if (!e.dir && type != '0' && type != '\0' && type != '7')
      continue;  // links and devices: nothing a copy needs
    entries.push_back(std::move(e));
  }
  if (entries.empty()) return NotTar();
  return entries;  // no end blocks: tar accepts a truncated tail
}

void TarCommand(CommandRun& r) {
  char mode = 0;
  bool verbose = false;
  std::string archive, dir = r.shell->cwd;
  std::vector<std::string> paths;
  auto fail = [&](const std::string& msg) {
    r.err += "tar: " + msg + "\n";
    r.status = 1;
  };
  bool need_file = false;
  for (size_t i = 1; i < r.argv.size(); ++i) {
    const std::string& a = r.argv[i];
    if (need_file) {
      archive = a;
      need_file = false;
      continue;
    }
    if (a == "-C") {
      if (++i >= r.argv.size())
        return fail("option requires an argument -- 'C'");
      dir = Filesystem::Normalize(r.shell->cwd, r.argv[i]);
      continue;
    }
    if (a.rfind("--", 0) == 0) continue;  // --no-same-owner and friends
    bool flags = i == 1 || a[0] == '-';
    if (!flags || a == "-") {
      paths.push_back(a);
      continue;
    }
    for (char c : a) {
      switch (c) {
        case '-':
        case 'm':
        case 'o':
        case 'p':
          break;
        case 'c':
        case 'x':
        case 't':
          mode = c;
          break;
        case 'v':
          verbose = true;
          break;
        case 'f':
          need_file = true;
          break;
        case 'z':
        case 'j':
          return fail("invalid magic");  // no compression here
        default:
          return fail(std::string("invalid option -- '") + c + "'");
      }
    }
  }
  if (mode == 0) return fail("need at least one of c, t or x");
  if (!archive.empty() && archive != "-")
    return fail("can't open '" + archive + "': archives are read from stdin");
  Filesystem* fs = r.shell->fs;
  if (mode == 'c') {
    if (paths.empty()) return fail("empty archive");
    std::vector<TarEntry> entries;
    bool stripped = false;
    for (const std::string& p : paths) {
      std::string full = Filesystem::Normalize(dir, p);
      if (!fs->Exists(full)) {
        fail(p + ": No such file or directory");
        continue;
      }
      std::string name = p;
      if (!name.empty() && name[0] == '/') stripped = true;
      name = Clean(name);
      // Depth first: the path, then what is under it.
      std::vector<std::pair<std::string, std::string>> todo = {{full, name}};
      while (!todo.empty()) {
        auto [path, member] = todo.back();
        todo.pop_back();
        if (fs->IsDir(path)) {
          if (!member.empty()) entries.push_back({member, true, ""});
          std::vector<std::string> names = fs->List(path);
          for (auto it = names.rbegin(); it != names.rend(); ++it)
            todo.emplace_back(Filesystem::Normalize(path, *it),
                              member.empty() ? *it : member + "/" + *it);
        } else {
          entries.push_back({member, false, fs->Read(path).value_or("")});
        }
        if (verbose) r.err += member + "\n";
      }
    }
    if (stripped)
      r.err = "tar: removing leading '/' from member names\n" + r.err;
    r.out += WriteTar(entries);
    return;
  }
  Result<std::vector<TarEntry>> entries = ReadTar(r.in);
  if (!entries.ok()) return fail(entries.status().message());
  for (const TarEntry& e : *entries) {
    if (mode == 't') {
      r.out += e.name + (e.dir ? "/" : "") + "\n";
      continue;
    }
    std::string target = Filesystem::Normalize(dir, e.name);
    if (target.rfind(dir, 0) != 0) continue;  // ../ out of the directory
    if (verbose) r.out += e.name + "\n";
    bool ok = e.dir ? (fs->IsDir(target) || fs->MakeDir(target))
                    : fs->Write(target, e.data);
    if (!ok) fail("can't open '" + e.name + "': Read-only file system");
  }
}

}  // namespace kmock::sim
