#include "sim/servers.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "sim/builtins.h"

namespace kmock::sim {
namespace {

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct HttpRequest {
  std::string method, target, version, line;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string path() const { return target.substr(0, target.find('?')); }
  std::string query(const std::string& key) const {
    size_t q = target.find('?');
    if (q == std::string::npos) return "";
    std::string rest = target.substr(q + 1);
    size_t i = 0;
    while (i <= rest.size()) {
      size_t j = rest.find('&', i);
      if (j == std::string::npos) j = rest.size();
      std::string kv = rest.substr(i, j - i);
      size_t eq = kv.find('=');
      if (kv.substr(0, eq) == key)
        return eq == std::string::npos ? "" : kv.substr(eq + 1);
      i = j + 1;
    }
    return "";
  }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 301:
      return "Moved Permanently";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Not Allowed";
    default:
      return "Internal Server Error";
  }
}

std::string MediaType(const std::string& path) {
  size_t dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  if (ext == "html" || ext == "htm") return "text/html";
  if (ext == "css") return "text/css";
  if (ext == "js") return "application/javascript";
  if (ext == "json") return "application/json";
  if (ext == "txt") return "text/plain";
  if (ext == "png") return "image/png";
  return "application/octet-stream";
}

std::string Hex(size_t v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%zx", v);
  return b;
}

// An HTTP/1.x server: requests parsed out of the byte stream, answered by
// Handle(), logged by Log().
class HttpConnection : public Connection {
 public:
  explicit HttpConnection(ServerInfo info) : info_(std::move(info)) {}

  std::string Receive(std::string_view data, TimePoint now,
                      std::vector<Output>* log) override {
    std::string out;
    buf_.append(data);
    while (!closed_) {
      size_t end = buf_.find("\r\n\r\n");
      size_t sep = 4;
      if (end == std::string::npos) {
        end = buf_.find("\n\n");
        sep = 2;
      }
      if (end == std::string::npos) {
        if (buf_.size() > 64 * 1024) {
          out += Answer(BadRequest(), nullptr, now, log);
          closed_ = true;
        }
        break;
      }
      HttpRequest req;
      if (!Parse(buf_.substr(0, end), &req)) {
        buf_.clear();
        out += Answer(BadRequest(), nullptr, now, log);
        closed_ = true;
        break;
      }
      size_t body = static_cast<size_t>(
          std::max(0L, std::atol(req.header("content-length").c_str())));
      if (buf_.size() < end + sep + body) break;
      buf_.erase(0, end + sep + body);
      HttpResponse res = Handle(req, now);
      bool close = Lower(req.header("connection")) == "close" ||
                   req.version == "HTTP/1.0" || ClosesAlways();
      out += Answer(res, &req, now, log, close);
      if (close) closed_ = true;
    }
    return out;
  }

  bool closed() const override { return closed_; }

 protected:
  virtual HttpResponse Handle(const HttpRequest& req, TimePoint now) = 0;
  virtual std::string ServerHeader() const { return ""; }
  // An HTTP/1.0 server: one request per connection.
  virtual bool ClosesAlways() const { return false; }
  virtual void Log(const HttpRequest&, const HttpResponse&, TimePoint,
                   std::vector<Output>*) {}
  virtual HttpResponse BadRequest() {
    HttpResponse r;
    r.status = 400;
    r.body = "400 Bad Request";
    return r;
  }

  // A file of the container under root: the file, a directory's
  // index.html, or nothing.
  std::optional<std::string> File(const std::string& root,
                                  const std::string& path,
                                  std::string* resolved) const {
    if (info_.fs == nullptr) return std::nullopt;
    std::string p = Filesystem::Normalize(root, "." + path);
    if (p.rfind(root, 0) != 0) return std::nullopt;  // ../ out of the root
    if (info_.fs->IsDir(p)) p = Filesystem::Normalize(p, "index.html");
    *resolved = p;
    return info_.fs->Read(p);
  }

  ServerInfo info_;

 private:
  static bool Parse(const std::string& head, HttpRequest* req) {
    size_t eol = head.find('\n');
    std::string line = head.substr(0, eol);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t a = line.find(' ');
    size_t b = line.rfind(' ');
    if (a == std::string::npos || b == a) return false;
    req->line = line;
    req->method = line.substr(0, a);
    req->target = line.substr(a + 1, b - a - 1);
    req->version = line.substr(b + 1);
    if (req->version.rfind("HTTP/", 0) != 0 || req->target.empty())
      return false;
    size_t at = eol == std::string::npos ? head.size() : eol + 1;
    while (at < head.size()) {
      size_t e = head.find('\n', at);
      if (e == std::string::npos) e = head.size();
      std::string h = head.substr(at, e - at);
      if (!h.empty() && h.back() == '\r') h.pop_back();
      size_t colon = h.find(':');
      if (colon != std::string::npos) {
        std::string v = h.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.erase(v.begin());
        req->headers[Lower(h.substr(0, colon))] = v;
      }
      at = e + 1;
    }
    return true;
  }

  std::string Answer(const HttpResponse& res, const HttpRequest* req,
                     TimePoint now, std::vector<Output>* log,
                     bool close = true) {
    std::string out = std::string(ClosesAlways() ? "HTTP/1.0" : "HTTP/1.1") +
                      " " + std::to_string(res.status) + " " +
                      Reason(res.status) + "\r\n";
    std::string server = ServerHeader();
    if (!server.empty()) out += "Server: " + server + "\r\n";
    out += "Date: " + FormatTime(now, "%a, %d %b %Y %H:%M:%S GMT") + "\r\n";
    bool has_length = false;
    for (const auto& [k, v] : res.headers) {
      out += k + ": " + v + "\r\n";
      if (k == "Content-Length") has_length = true;
    }
    if (!has_length)
      out += "Content-Length: " + std::to_string(res.body.size()) + "\r\n";
    if (!ClosesAlways())
      out += std::string("Connection: ") + (close ? "close" : "keep-alive") +
             "\r\n";
    out += "\r\n";
    if (req == nullptr || req->method != "HEAD") out += res.body;
    if (req != nullptr) Log(*req, res, now, log);
    return out;
  }
  std::string buf_;
  bool closed_ = false;
};

// nginx and httpd: the document root, one access line per request.
class StaticServer : public HttpConnection {
 public:
  StaticServer(ServerInfo info, bool nginx)
      : HttpConnection(std::move(info)), nginx_(nginx) {}

 protected:
  std::string ServerHeader() const override {
    return nginx_ ? "nginx/" + info_.version
                  : "Apache/" + info_.version + " (Unix)";
  }

  HttpResponse Handle(const HttpRequest& req, TimePoint) override {
    HttpResponse r;
    if (req.method != "GET" && req.method != "HEAD" && nginx_)
      return Error(405);
    std::string root =
        nginx_ ? "/usr/share/nginx/html" : "/usr/local/apache2/htdocs";
    std::string resolved;
    std::optional<std::string> body = File(root, req.path(), &resolved);
    if (!body) return Error(404);
    r.headers.emplace_back("Content-Type", MediaType(resolved));
    r.headers.emplace_back("Content-Length", std::to_string(body->size()));
    r.headers.emplace_back(
        "ETag", "\"" + Hex(body->size()) + "-" +
                    Hex(std::hash<std::string>{}(*body) & 0xFFFFFFFFu) + "\"");
    r.headers.emplace_back("Accept-Ranges", "bytes");
    r.body = std::move(*body);
    return r;
  }

  HttpResponse BadRequest() override { return Error(400); }

  void Log(const HttpRequest& req, const HttpResponse& res, TimePoint now,
           std::vector<Output>* log) override {
    if (log == nullptr) return;
    std::string size =
        req.method == "HEAD" ? "0" : std::to_string(res.body.size());
    std::string line =
        info_.peer + " - - [" + FormatTime(now, "%d/%b/%Y:%H:%M:%S +0000") +
        "] \"" + req.line + "\" " + std::to_string(res.status) + " " + size;
    if (nginx_) {
      auto quoted = [&](const std::string& h) {
        std::string v = req.header(h);
        return "\"" + (v.empty() ? "-" : v) + "\"";
      };
      line += " " + quoted("referer") + " " + quoted("user-agent") + " \"-\"";
    }
    log->push_back(Output{now, 1, line + "\n"});
  }

 private:
  HttpResponse Error(int status) {
    HttpResponse r;
    r.status = status;
    r.headers.emplace_back(
        "Content-Type", nginx_ ? "text/html" : "text/html; charset=iso-8859-1");
    std::string title = std::to_string(status) + " " + Reason(status);
    if (nginx_) {
      r.body = "<html>\r\n<head><title>" + title +
               "</title></head>\r\n<body>\r\n<center><h1>" + title +
               "</h1></center>\r\n<hr><center>nginx/" + info_.version +
               "</center>\r\n</body>\r\n</html>\r\n";
    } else {
      std::string text = status == 404
                             ? "The requested URL was not found on this "
                               "server."
                             : "Your browser sent a request that this server "
                               "could not understand.";
      r.body =
          "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n"
          "<html><head>\n<title>" +
          title + "</title>\n</head><body>\n<h1>" + Reason(status) +
          "</h1>\n<p>" + text + "</p>\n</body></html>\n";
    }
    return r;
  }

  bool nginx_;
};

// python -m http.server: files and directory listings from its directory,
// HTTP/1.0, one line per request on stderr.
class FilesServer : public HttpConnection {
 public:
  using HttpConnection::HttpConnection;

 protected:
  std::string ServerHeader() const override {
    return "SimpleHTTP/0.6 Python/" + info_.version;
  }
  bool ClosesAlways() const override { return true; }

  HttpResponse Handle(const HttpRequest& req, TimePoint) override {
    HttpResponse r;
    std::string path = Filesystem::Normalize("/", "." + req.path());
    if (info_.fs != nullptr && info_.fs->IsDir(path) &&
        !info_.fs->IsFile(Filesystem::Normalize(path, "index.html"))) {
      std::string title = "Directory listing for " + req.path();
      r.body =
          "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n<title>" +
          title + "</title>\n</head>\n<body>\n<h1>" + title +
          "</h1>\n<hr>\n<ul>\n";
      for (const std::string& name : info_.fs->List(path)) {
        bool dir = info_.fs->IsDir(Filesystem::Normalize(path, name));
        std::string shown = name + (dir ? "/" : "");
        r.body += "<li><a href=\"" + shown + "\">" + shown + "</a></li>\n";
      }
      r.body += "</ul>\n<hr>\n</body>\n</html>\n";
      r.headers.emplace_back("Content-type", "text/html; charset=utf-8");
      return r;
    }
    std::string resolved;
    std::optional<std::string> body = File("/", req.path(), &resolved);
    if (!body) {
      r.status = 404;
      r.body = "File not found";
      return r;
    }
    r.headers.emplace_back("Content-type", MediaType(resolved));
    r.body = std::move(*body);
    return r;
  }

  void Log(const HttpRequest& req, const HttpResponse& res, TimePoint now,
           std::vector<Output>* log) override {
    if (log == nullptr) return;
    log->push_back(Output{
        now, 2,
        info_.peer + " - - [" + FormatTime(now, "%d/%b/%Y %H:%M:%S") + "] \"" +
            req.line + "\" " + std::to_string(res.status) + " -\n"});
  }
};

// agnhost's HTTP verbs (a Go net/http server).
class AgnhostServer : public HttpConnection {
 public:
  AgnhostServer(ServerInfo info, bool hostname_only)
      : HttpConnection(std::move(info)), hostname_only_(hostname_only) {}

 protected:
  HttpResponse Handle(const HttpRequest& req, TimePoint) override {
    HttpResponse r;
    r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    std::string path = req.path();
    if (hostname_only_ || path == "/hostname") {
      r.body = info_.hostname;
    } else if (path == "/echo") {
      r.body = req.query("msg");
    } else if (path == "/clientip") {
      r.body = info_.peer + ":" + std::to_string(40000 + info_.port % 20000);
    } else if (path == "/healthz" || path == "/") {
      r.body = path == "/" ? "NOW: " : "";
    } else {
      r.status = 404;
      r.body = "404 page not found\n";
    }
    return r;
  }

 private:
  bool hostname_only_;
};

// A small part of Redis: enough for `redis-cli ping` through a forwarded
// port and the tutorials' SET and GET.
class RedisConnection : public Connection {
 public:
  std::string Receive(std::string_view data, TimePoint,
                      std::vector<Output>*) override {
    buf_.append(data);
    std::string out;
    std::vector<std::string> args;
    while (!closed_ && Next(&args)) {
      if (args.empty()) continue;
      out += Run(args);
    }
    return out;
  }
  bool closed() const override { return closed_; }

 private:
  // One command out of the buffer: a RESP array of bulk strings, or an
  // inline command line. False when the buffer holds no whole command.
  bool Next(std::vector<std::string>* args) {
    args->clear();
    if (buf_.empty()) return false;
    if (buf_[0] != '*') {
      size_t eol = buf_.find('\n');
      if (eol == std::string::npos) return false;
      std::string line = buf_.substr(0, eol);
      buf_.erase(0, eol + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && line[i] == ' ') ++i;
        size_t j = line.find(' ', i);
        if (j == std::string::npos) j = line.size();
        if (j > i) args->push_back(line.substr(i, j - i));
        i = j;
      }
      return true;
    }
    size_t at = 0;
    auto number = [&](char kind, long* n) -> bool {
      if (at >= buf_.size() || buf_[at] != kind) return false;
      size_t eol = buf_.find("\r\n", at);
      if (eol == std::string::npos) return false;
      *n = std::atol(buf_.substr(at + 1, eol - at - 1).c_str());
      at = eol + 2;
      return true;
    };
    long count = 0;
    if (!number('*', &count)) return false;
    for (long i = 0; i < count; ++i) {
      long len = 0;
      if (!number('$', &len) || len < 0) return false;
      if (buf_.size() < at + static_cast<size_t>(len) + 2) return false;
      args->push_back(buf_.substr(at, static_cast<size_t>(len)));
      at += static_cast<size_t>(len) + 2;
    }
    buf_.erase(0, at);
    return true;
  }

  static std::string Bulk(const std::string& s) {
    return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
  }

  std::string Run(const std::vector<std::string>& a) {
    std::string cmd = Lower(a[0]);
    auto wrong = [&] {
      return "-ERR wrong number of arguments for '" + cmd + "' command\r\n";
    };
    if (cmd == "ping")
      return a.size() > 1 ? Bulk(a[1]) : std::string("+PONG\r\n");
    if (cmd == "echo") return a.size() == 2 ? Bulk(a[1]) : wrong();
    if (cmd == "set") {
      if (a.size() < 3) return wrong();
      keys_[a[1]] = a[2];
      return "+OK\r\n";
    }
    if (cmd == "get") {
      if (a.size() != 2) return wrong();
      auto it = keys_.find(a[1]);
      return it == keys_.end() ? "$-1\r\n" : Bulk(it->second);
    }
    if (cmd == "del") {
      long n = 0;
      for (size_t i = 1; i < a.size(); ++i) n += keys_.erase(a[i]);
      return ":" + std::to_string(n) + "\r\n";
    }
    if (cmd == "incr") {
      if (a.size() != 2) return wrong();
      long v = std::atol(keys_[a[1]].c_str()) + 1;
      keys_[a[1]] = std::to_string(v);
      return ":" + std::to_string(v) + "\r\n";
    }
    if (cmd == "quit") {
      closed_ = true;
      return "+OK\r\n";
    }
    std::string first = a.size() > 1 ? "'" + a[1] + "' " : "";
    return "-ERR unknown command '" + a[0] +
           "', with args beginning with: " + first + "\r\n";
  }

  std::string buf_;
  std::map<std::string, std::string> keys_;
  bool closed_ = false;
};

// A port whose program's protocol we do not speak: it takes what it is
// sent and answers nothing.
class SilentConnection : public Connection {
 public:
  std::string Receive(std::string_view, TimePoint,
                      std::vector<Output>*) override {
    return "";
  }
  bool closed() const override { return false; }
};

}  // namespace

std::unique_ptr<Connection> Accept(const ServerInfo& info) {
  const std::string& p = info.protocol;
  if (p == "nginx" || p == "httpd")
    return std::make_unique<StaticServer>(info, p == "nginx");
  if (p == "http-files") return std::make_unique<FilesServer>(info);
  if (p == "agnhost-netexec" || p == "agnhost-hostname")
    return std::make_unique<AgnhostServer>(info, p == "agnhost-hostname");
  if (p == "redis") return std::make_unique<RedisConnection>();
  return std::make_unique<SilentConnection>();
}

}  // namespace kmock::sim
