/* tests/llm_server.c: a scripted HTTP/1.1 server for the LLM client's tests (not a library).
 *
 *   llm_server SCRIPT LOG SECONDS
 *
 * Binds 127.0.0.1 on a free port, prints the port on stdout, then answers one request per
 * script entry, in order, each on its own connection (Connection: close). It appends every
 * request (request line, headers, body) to LOG before answering, so a test can check what the
 * client sent. It exits after the last entry, or after SECONDS whatever happens, so a test that
 * goes wrong cannot leave it behind.
 *
 * The script, one directive a line ('#' starts a comment):
 *   respond STATUS        an answer with this status; the following lines belong to it:
 *   header NAME: VALUE    an extra response header
 *   body TEXT             the response body (several body lines are joined with newlines)
 *   stall                 read the request and never answer (until the client hangs up)
 *   close                 read the request and close the connection without answering */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { RESPOND, STALL, CLOSE };

typedef struct Entry {
  int kind, status;
  char headers[2048];
  char *body;
} Entry;

static double deadline;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int left_ms(void) {
  double l = deadline - now();
  return l <= 0 ? 0 : (int)(l * 1000) + 1;
}

static void die(const char *msg) {
  fprintf(stderr, "llm_server: %s\n", msg);
  exit(1);
}

static void append(char **dst, const char *s) {
  size_t n = *dst ? strlen(*dst) : 0;
  char *r = realloc(*dst, n + strlen(s) + 2);
  if (!r) die("out of memory");
  if (n) r[n++] = '\n';
  strcpy(r + n, s);
  *dst = r;
}

static int load(const char *path, Entry *e, int max) {
  FILE *f = fopen(path, "r");
  if (!f) die("cannot open the script");
  char line[65536];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    if (n == max) die("too many script entries");
    if (strncmp(line, "respond ", 8) == 0)
      e[n++] = (Entry){.kind = RESPOND, .status = atoi(line + 8)};
    else if (strcmp(line, "stall") == 0)
      e[n++] = (Entry){.kind = STALL};
    else if (strcmp(line, "close") == 0)
      e[n++] = (Entry){.kind = CLOSE};
    else if (n && e[n - 1].kind == RESPOND && strncmp(line, "header ", 7) == 0)
      snprintf(e[n - 1].headers + strlen(e[n - 1].headers),
               sizeof e[n - 1].headers - strlen(e[n - 1].headers), "%s\r\n", line + 7);
    else if (n && e[n - 1].kind == RESPOND && strncmp(line, "body ", 5) == 0)
      append(&e[n - 1].body, line + 5);
    else
      die("bad script line");
  }
  fclose(f);
  return n;
}

/* Reads one request (headers, then Content-Length bytes of body) into a malloc'd string. */
static char *read_request(int fd) {
  size_t cap = 1 << 16, len = 0, want = 0;
  char *buf = malloc(cap + 1);
  char *hend = NULL;
  if (!buf) die("out of memory");
  for (;;) {
    if (hend && len >= (size_t)(hend - buf) + 4 + want) break;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left_ms()) <= 0) break;
    if (len == cap && !(buf = realloc(buf, (cap *= 2) + 1))) die("out of memory");
    ssize_t r = read(fd, buf + len, cap - len);
    if (r <= 0) break;
    len += (size_t)r;
    buf[len] = 0;
    if (!hend && (hend = strstr(buf, "\r\n\r\n"))) {
      for (char *h = buf; h < hend; h = strstr(h, "\r\n") + 2)
        if (strncasecmp(h, "content-length:", 15) == 0) want = strtoul(h + 15, NULL, 10);
    }
  }
  buf[len] = 0;
  return buf;
}

static void log_request(const char *path, int i, const char *req) {
  FILE *f = fopen(path, "a");
  if (!f) die("cannot open the log");
  fprintf(f, "=== request %d\n%s\n", i, req);
  fclose(f);
}

static void respond(int fd, const Entry *e) {
  const char *body = e->body ? e->body : "";
  char head[4096];
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 %d Scripted\r\nContent-Type: application/json\r\n"
                   "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
                   e->status, strlen(body), e->headers);
  if (write(fd, head, (size_t)n) < 0 || write(fd, body, strlen(body)) < 0) return;
  shutdown(fd, SHUT_WR);
}

/* Never answers; returns when the client hangs up or the time is up. */
static void stall(int fd) {
  char b[256];
  for (;;) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left_ms()) <= 0 || read(fd, b, sizeof b) <= 0) return;
  }
}

static int listen_local(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 8) < 0 ||
      getsockname(s, (struct sockaddr *)&a, &al) < 0)
    die("cannot listen on 127.0.0.1");
  printf("%d\n", ntohs(a.sin_port));
  fflush(stdout);
  return s;
}

int main(int argc, char **argv) {
  static Entry script[64];
  if (argc != 4) die("usage: llm_server SCRIPT LOG SECONDS");
  signal(SIGPIPE, SIG_IGN);
  deadline = now() + atof(argv[3]);
  int n = load(argv[1], script, 64);
  int s = listen_local();
  for (int i = 0; i < n; i++) {
    struct pollfd p = {s, POLLIN, 0};
    if (poll(&p, 1, left_ms()) <= 0) die("time limit reached before the script ended");
    int fd = accept(s, NULL, NULL);
    if (fd < 0) die("accept failed");
    char *req = read_request(fd);
    log_request(argv[2], i + 1, req);
    free(req);
    if (script[i].kind == RESPOND) respond(fd, &script[i]);
    if (script[i].kind == STALL) stall(fd);
    close(fd);
  }
  close(s);
  return 0;
}
