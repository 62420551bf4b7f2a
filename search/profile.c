/* search/profile.c: profiling feedback from Nsight Compute (profile.h): the metric table, running
 * ncu on krewrite's own launch-once mode, reading its CSV, classifying the longest launch and
 * keeping only the metrics of its class, as prompt text and as JSON. */
#include "search/profile.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "recipes/recipe.h"
#include "runtime/cuda.h"
#include "runtime/cuda_once.h"
#include "search/candidate.h"

/* ---- The metrics ----------------------------------------------------------------------------------
 * Names as Nsight Compute 2025 (CUDA 13) defines them for sm_90, taken from its own section files:
 * SpeedOfLight.section (the two SOL throughputs, duration, DRAM/L2/L1 throughput; on CC 8.9 to
 * 10.0 DRAM throughput is gpu__dram_throughput, not dram__throughput),
 * ComputeWorkloadAnalysis.section (issue slots, IPC, the FMA and "Tensor (All)" pipes over active
 * cycles), MemoryWorkloadAnalysis.section (L2 hit rate), Occupancy.section and
 * LaunchStatistics.section (occupancy, its block limits, registers, waves), and
 * WarpStateStatistics.section (warp cycles per issued instruction and the stall reasons).
 * `classes` says for which classes a metric is handed to the proposer; every metric is collected,
 * because the class is only known once the SOL values are in. */

enum {
  C = 1u << KR_BOUND_COMPUTE,
  M = 1u << KR_BOUND_MEMORY,
  L = 1u << KR_BOUND_LATENCY,
};

typedef enum { F_PCT, F_BYTES, F_RATIO, F_COUNT, F_STALL } Format;

typedef struct MetricDef {
  const char *name, *label;
  unsigned classes;
  Format format;
} MetricDef;

#define KR_M_DURATION "gpu__time_duration.sum"
#define KR_M_COMPUTE_SOL "sm__throughput.avg.pct_of_peak_sustained_elapsed"
#define KR_M_MEMORY_SOL "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
#define KR_STALL(reason, label) \
  {"smsp__average_warps_issue_stalled_" reason "_per_issue_active.ratio", label, L, F_STALL}

static const MetricDef kMetrics[] = {
  {KR_M_DURATION, "duration", 0, F_RATIO},
  /* Compute-bound: how busy the SM is and on which pipe. */
  {KR_M_COMPUTE_SOL, "compute SOL", C, F_PCT},
  {"sm__inst_issued.avg.pct_of_peak_sustained_elapsed", "issue slots busy", C, F_PCT},
  {"sm__inst_executed.avg.per_cycle_active", "IPC", C, F_RATIO},
  {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "FMA pipe", C, F_PCT},
  {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipe", C, F_PCT},
  /* Memory-bandwidth-bound: which level of the hierarchy carries the traffic, and how much. */
  {KR_M_MEMORY_SOL, "memory SOL", M, F_PCT},
  {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM", M, F_PCT},
  {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2", M, F_PCT},
  {"l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/TEX", M, F_PCT},
  {"lts__t_sector_hit_rate.pct", "L2 hit rate", M, F_PCT},
  {"dram__bytes_read.sum", "DRAM read", M, F_BYTES},
  {"dram__bytes_write.sum", "DRAM written", M, F_BYTES},
  /* Latency-bound: enough warps to hide latency, what limits them, and what they wait for. */
  {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy", L, F_PCT},
  {"sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy", L, F_PCT},
  {"launch__occupancy_limit_registers", "block limit (registers)", L, F_COUNT},
  {"launch__occupancy_limit_shared_mem", "block limit (shared memory)", L, F_COUNT},
  {"launch__occupancy_limit_warps", "block limit (warps)", L, F_COUNT},
  {"launch__waves_per_multiprocessor", "waves per SM", L, F_RATIO},
  {"launch__registers_per_thread", "registers/thread", C | L, F_COUNT},
  {"smsp__average_warp_latency_per_inst_issued.ratio", "warp cycles per issued instruction", L, F_RATIO},
  KR_STALL("long_scoreboard", "long scoreboard"),
  KR_STALL("short_scoreboard", "short scoreboard"),
  KR_STALL("barrier", "barrier"),
  KR_STALL("mio_throttle", "MIO throttle"),
  KR_STALL("lg_throttle", "LG throttle"),
  KR_STALL("math_pipe_throttle", "math pipe throttle"),
  KR_STALL("wait", "wait"),
};
#define KR_NMETRICS (sizeof kMetrics / sizeof kMetrics[0])

/* The SOL threshold. Nsight Compute's own bottleneck rule (the SOLBottleneck rule that ships with
 * SpeedOfLight.section, sections/SpeedOfLight.py: latency_bound_threshold = 60) reports "Latency
 * Issue" when compute and memory throughput are both below 60% of peak, with the message
 * "Achieved compute throughput and/or memory bandwidth below 60.0% of peak typically indicate
 * latency issues"; the Profiling Guide's Speed Of Light section says the same of a unit's
 * throughput against its theoretical maximum. So a unit at 60% or more is "near its peak", and
 * the busier unit names the bound; a tie goes to memory, the commoner limit of the two. */
static const double kSolThreshold = 60.0;

const char *kr_profile_metric_list(KrArena *a) {
  KrBuf b = {0};
  for (size_t i = 0; i < KR_NMETRICS; i++) kr_buf_printf(&b, "%s%s", i ? "," : "", kMetrics[i].name);
  char *r = kr_arena_strdup(a, b.data);
  kr_buf_free(&b);
  return r;
}

static const MetricDef *metric_def(const char *name) {
  for (size_t i = 0; i < KR_NMETRICS; i++)
    if (strcmp(kMetrics[i].name, name) == 0) return &kMetrics[i];
  return NULL;
}

/* ---- Finding ncu ----------------------------------------------------------------------------------- */

KrStatus kr_profile_find_ncu(const char *explicit_path, const char *path_var,
                             const char *default_path, const char **path, KrArena *a, KrDiags *d) {
  *path = NULL;
  if (explicit_path && *explicit_path) {
    bool has_slash = strchr(explicit_path, '/') != NULL;
    *path = has_slash ? (kr_is_executable(explicit_path) ? kr_arena_strdup(a, explicit_path) : NULL)
                      : kr_path_search(explicit_path, path_var, a);
    if (*path) return KR_OK;
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "ncu '%s' is not an executable file%s", explicit_path,
                has_slash ? "" : " in PATH");
    return KR_ERR;
  }
  *path = kr_path_search("ncu", path_var, a);
  if (!*path && default_path && kr_is_executable(default_path)) *path = kr_arena_strdup(a, default_path);
  if (*path) return KR_OK;
  const char *dir = default_path ? kr_arena_strdup(a, default_path) : "";
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
              "ncu not found (looked in PATH and %s); install Nsight Compute or name it with --ncu",
              *dir ? dir : "the default location");
  return KR_ERR;
}

/* ---- Reading the CSV --------------------------------------------------------------------------------- */

typedef KrVec(const char *) Fields;

/* Splits one CSV line: fields separated by commas, each quoted ("" is a quote inside) or bare.
 * False when a quote is not closed or text follows a closing quote. */
static bool split_fields(const char *s, size_t n, KrArena *a, Fields *out) {
  out->len = 0;
  size_t i = 0;
  for (;;) {
    KrBuf f = {0};
    if (i < n && s[i] == '"') {
      for (i++;; i++) {
        if (i >= n) {
          kr_buf_free(&f);
          return false;
        }
        if (s[i] == '"' && i + 1 < n && s[i + 1] == '"') kr_buf_putc(&f, '"'), i++;
        else if (s[i] == '"') break;
        else kr_buf_putc(&f, s[i]);
      }
      i++;
      if (i < n && s[i] != ',') {
        kr_buf_free(&f);
        return false;
      }
    } else {
      size_t j = i;
      while (j < n && s[j] != ',') j++;
      kr_buf_append(&f, s + i, j - i);
      i = j;
    }
    const char *field = kr_arena_strndup(a, f.data ? f.data : "", f.len);
    kr_buf_free(&f);
    kr_vec_push(a, out, field);
    if (i >= n) return true;
    i++; /* the comma */
  }
}

/* A number as ncu prints it: "1,234.5", " 87.10", "4.0e-05"; NAN for "n/a", "" and words. */
static double number(const char *s) {
  char buf[64];
  size_t k = 0;
  for (const char *p = s; *p; p++) {
    if (*p == ',' || *p == ' ') continue;
    if (k + 1 >= sizeof buf) return NAN;
    buf[k++] = *p;
  }
  buf[k] = 0;
  if (k == 0) return NAN;
  char *end;
  double v = strtod(buf, &end);
  return *end == 0 && isfinite(v) ? v : NAN;
}

/* ncu scales units unless told not to (--print-units base); back to nsecond and byte, so that
 * run.json does not depend on the size of the numbers. Byte prefixes are powers of 1000 as ncu
 * prints them (64 MiB reads "67.11 Mbyte"); the binary spellings are there in case. */
static const char *normalise_unit(const char *unit, double *v) {
  static const struct {
    const char *from, *to;
    double factor;
  } kUnits[] = {
    {"nsecond", "nsecond", 1}, {"ns", "nsecond", 1}, {"usecond", "nsecond", 1e3},
    {"us", "nsecond", 1e3}, {"msecond", "nsecond", 1e6}, {"ms", "nsecond", 1e6},
    {"second", "nsecond", 1e9}, {"s", "nsecond", 1e9}, {"byte", "byte", 1}, {"Kbyte", "byte", 1e3},
    {"Mbyte", "byte", 1e6}, {"Gbyte", "byte", 1e9}, {"Tbyte", "byte", 1e12},
    {"Kibyte", "byte", 1024.0}, {"Mibyte", "byte", 1048576.0}, {"Gibyte", "byte", 1073741824.0},
  };
  for (size_t i = 0; i < sizeof kUnits / sizeof kUnits[0]; i++)
    if (strcmp(unit, kUnits[i].from) == 0) {
      *v *= kUnits[i].factor;
      return kUnits[i].to;
    }
  return unit;
}

static long column(const Fields *h, const char *name) {
  for (size_t i = 0; i < h->len; i++)
    if (strcmp(h->data[i], name) == 0) return (long)i;
  return -1;
}

typedef struct Table {
  Fields header, units;
  long id, kernel, grid, block;
} Table;

static bool is_header(const Fields *f) {
  return f->len > 1 && strcmp(f->data[0], "ID") == 0 && column(f, "Kernel Name") >= 0;
}

static void add_launch(const Table *t, const Fields *row, KrArena *a, KrProfile *p) {
  KrProfileLaunch l = {.id = row->data[t->id], .kernel = row->data[t->kernel], .duration_ms = NAN};
  l.grid = t->grid >= 0 ? row->data[t->grid] : "";
  l.block = t->block >= 0 ? row->data[t->block] : "";
  for (size_t i = 0; i < row->len; i++) {
    const char *name = t->header.data[i];
    if (!strstr(name, "__")) continue; /* info columns; metric names are unit__counter... */
    const MetricDef *def = metric_def(name);
    double v = number(row->data[i]);
    const char *unit = normalise_unit(t->units.len ? t->units.data[i] : "", &v);
    KrProfileMetric m = {name, def ? def->label : name, unit, v};
    kr_vec_push(a, &l.metrics, m);
    if (strcmp(name, KR_M_DURATION) == 0)
      l.duration_ms = strcmp(unit, "nsecond") == 0 ? v / 1e6 : NAN;
  }
  kr_vec_push(a, &p->launches, l);
}

static KrStatus csv_error(KrDiags *d, size_t line, const char *what) {
  if (line) kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "ncu's CSV, line %zu: %s", line, what);
  else kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "ncu's output: %s", what);
  return KR_ERR;
}

KrStatus kr_profile_parse_csv(const char *text, size_t len, KrArena *a, KrProfile *p, KrDiags *d) {
  Table t = {.id = -1};
  Fields f = {0};
  size_t lineno = 0;
  for (size_t at = 0; at < len;) {
    const char *s = text + at, *nl = memchr(s, '\n', len - at);
    size_t n = nl ? (size_t)(nl - s) : len - at;
    at += n + 1, lineno++;
    if (n && s[n - 1] == '\r') n--;
    if (n == 0 || s[0] != '"') continue; /* ==PROF== lines, the program's own output */
    if (!split_fields(s, n, a, &f)) {
      if (t.id < 0) continue;            /* not CSV, before the table */
      return csv_error(d, lineno, "a quoted field is not closed");
    }
    if (is_header(&f)) {                 /* a second table (another process) repeats it */
      if (t.id >= 0 && f.len != t.header.len)
        return csv_error(d, lineno, "a second header row with other columns");
      t.header = f, t.units.len = 0, t.units.data = NULL;
      f = (Fields){0};
      t.id = 0, t.kernel = column(&t.header, "Kernel Name");
      t.grid = column(&t.header, "Grid Size"), t.block = column(&t.header, "Block Size");
      continue;
    }
    if (t.id < 0) continue;
    if (f.len != t.header.len)
      return csv_error(d, lineno, kr_arena_printf(a, "%zu fields where the header has %zu", f.len,
                                                  t.header.len));
    if (f.data[0][0] == 0) {             /* the units row: no ID */
      t.units = f;
      f = (Fields){0};
      continue;
    }
    add_launch(&t, &f, a, p);
  }
  if (t.id < 0)
    return csv_error(d, 0, "no CSV table (no header row \"ID\",...,\"Kernel Name\",...)");
  if (p->launches.len == 0) return csv_error(d, 0, "a CSV header but no kernel launches");
  return KR_OK;
}

/* ---- Classifying ------------------------------------------------------------------------------------- */

KrBound kr_profile_bound(double compute_sol, double memory_sol) {
  if (memory_sol >= kSolThreshold && memory_sol >= compute_sol) return KR_BOUND_MEMORY;
  if (compute_sol >= kSolThreshold && compute_sol > memory_sol) return KR_BOUND_COMPUTE;
  return KR_BOUND_LATENCY;
}

const char *kr_profile_bound_name(KrBound b) {
  switch (b) {
  case KR_BOUND_COMPUTE: return "compute-bound";
  case KR_BOUND_MEMORY: return "memory-bandwidth-bound";
  case KR_BOUND_LATENCY: break;
  }
  return "latency-bound";
}

static const KrProfileMetric *find_metric(const KrProfileMetrics *ms, const char *name) {
  for (size_t i = 0; i < ms->len; i++)
    if (strcmp(ms->data[i].name, name) == 0) return &ms->data[i];
  return NULL;
}

/* The launch that took longest; the first when no duration was reported. */
static size_t longest(const KrProfile *p) {
  size_t best = 0;
  for (size_t i = 1; i < p->launches.len; i++) {
    double t = p->launches.data[i].duration_ms, b = p->launches.data[best].duration_ms;
    if (!isnan(t) && (isnan(b) || t > b)) best = i;
  }
  return best;
}

static const char *why_text(KrBound b, double cs, double ms, KrArena *a) {
  switch (b) {
  case KR_BOUND_MEMORY:
    return kr_arena_printf(a, "memory SOL %.1f%% >= %.0f%% and >= compute SOL %.1f%%", ms,
                           kSolThreshold, cs);
  case KR_BOUND_COMPUTE:
    return kr_arena_printf(a, "compute SOL %.1f%% >= %.0f%% and > memory SOL %.1f%%", cs,
                           kSolThreshold, ms);
  case KR_BOUND_LATENCY: break;
  }
  return kr_arena_printf(a, "compute SOL %.1f%% and memory SOL %.1f%%, both below %.0f%% of peak",
                         cs, ms, kSolThreshold);
}

static void put_value(KrBuf *b, Format f, double v) {
  switch (f) {
  case F_PCT: kr_buf_printf(b, "%.1f%%", v); break;
  case F_BYTES:
    if (v >= 1e9) kr_buf_printf(b, "%.2f GB", v / 1e9);
    else if (v >= 1e6) kr_buf_printf(b, "%.1f MB", v / 1e6);
    else if (v >= 1e3) kr_buf_printf(b, "%.1f KB", v / 1e3);
    else kr_buf_printf(b, "%.0f B", v);
    break;
  case F_COUNT: kr_buf_printf(b, "%.0f", v); break;
  case F_RATIO:
  case F_STALL: kr_buf_printf(b, "%.2f", v); break;
  }
}

static int by_value_desc(const void *x, const void *y) {
  double a = (*(const KrProfileMetric *const *)x)->value, b = (*(const KrProfileMetric *const *)y)->value;
  return a < b ? 1 : a > b ? -1 : 0;
}

static const char *const kHints[] = {
  [KR_BOUND_COMPUTE] = "cut instructions per result or move work to faster pipes (tensor cores, "
                       "fast math, less index arithmetic)",
  [KR_BOUND_MEMORY] = "move fewer bytes or move them better (vector and read-only loads, reuse "
                      "through shared memory or registers, fusion)",
  [KR_BOUND_LATENCY] = "hide latency: more warps or more independent work per warp (occupancy "
                       "limits, block size, unrolling), and the largest stall",
};

/* The prompt text: the class and its metrics, the stalls largest first, the launch, a hint. */
static const char *profile_text(const KrProfile *p, KrArena *a) {
  KrBuf b = {0};
  kr_buf_printf(&b, "profile (Nsight Compute, --clock-control none): %s", p->bound_name);
  const KrProfileMetric **stalls = kr_arena_alloc(a, (p->metrics.len + 1) * sizeof *stalls);
  size_t nstalls = 0, shown = 0;
  for (size_t i = 0; i < p->metrics.len; i++) {
    const KrProfileMetric *m = &p->metrics.data[i];
    const MetricDef *def = metric_def(m->name);
    if (isnan(m->value) || !def) continue;
    if (def->format == F_STALL) {
      stalls[nstalls++] = m;
      continue;
    }
    kr_buf_printf(&b, "%s%s ", shown++ ? ", " : "; ", m->label);
    put_value(&b, def->format, m->value);
  }
  kr_buf_putc(&b, '\n');
  if (nstalls) {
    qsort(stalls, nstalls, sizeof *stalls, by_value_desc);
    kr_buf_puts(&b, "  warp stalls (cycles per issued instruction, largest first): ");
    for (size_t i = 0; i < nstalls; i++)
      kr_buf_printf(&b, "%s%s %.2f", i ? ", " : "", stalls[i]->label, stalls[i]->value);
    kr_buf_putc(&b, '\n');
  }
  kr_buf_printf(&b, "  kernel '%s', launch %zu of %zu%s, ", p->kernel, p->launch + 1,
                p->launches.len, p->launches.len > 1 ? " (the longest)" : "");
  if (isnan(p->duration_ms)) kr_buf_puts(&b, "duration not reported");
  else kr_buf_printf(&b, "%.4g ms", p->duration_ms);
  kr_buf_printf(&b, "; %s\n  hint: %s\n", p->why, kHints[p->bound]);
  const char *r = kr_arena_strdup(a, b.data);
  kr_buf_free(&b);
  return r;
}

static const char *profile_json(const KrProfile *p, KrArena *a) {
  KrBuf b = {0};
  kr_buf_puts(&b, "{\"tool\": \"ncu\", \"clock_control\": \"none\", \"class\": ");
  kr_buf_json_str(&b, p->bound_name);
  kr_buf_puts(&b, ", \"why\": "), kr_buf_json_str(&b, p->why);
  kr_buf_puts(&b, ", \"kernel\": "), kr_buf_json_str(&b, p->kernel);
  kr_buf_printf(&b, ", \"launch\": %zu, \"duration_ms\": ", p->launch);
  kr_buf_json_num(&b, p->duration_ms);
  kr_buf_puts(&b, ", \"compute_sol_pct\": "), kr_buf_json_num(&b, p->compute_sol);
  kr_buf_puts(&b, ", \"memory_sol_pct\": "), kr_buf_json_num(&b, p->memory_sol);
  kr_buf_puts(&b, ", \"metrics\": {");
  for (size_t i = 0; i < p->metrics.len; i++) {
    const KrProfileMetric *m = &p->metrics.data[i];
    kr_buf_puts(&b, i ? ", " : ""), kr_buf_json_str(&b, m->name);
    kr_buf_puts(&b, ": {\"label\": "), kr_buf_json_str(&b, m->label);
    kr_buf_puts(&b, ", \"unit\": "), kr_buf_json_str(&b, m->unit);
    kr_buf_puts(&b, ", \"value\": "), kr_buf_json_num(&b, m->value);
    kr_buf_putc(&b, '}');
  }
  kr_buf_puts(&b, "}, \"launches\": [");
  for (size_t i = 0; i < p->launches.len; i++) {
    const KrProfileLaunch *l = &p->launches.data[i];
    kr_buf_puts(&b, i ? ", {\"kernel\": " : "{\"kernel\": "), kr_buf_json_str(&b, l->kernel);
    kr_buf_puts(&b, ", \"grid\": "), kr_buf_json_str(&b, l->grid);
    kr_buf_puts(&b, ", \"block\": "), kr_buf_json_str(&b, l->block);
    kr_buf_puts(&b, ", \"duration_ms\": "), kr_buf_json_num(&b, l->duration_ms);
    kr_buf_putc(&b, '}');
  }
  kr_buf_puts(&b, "]}");
  const char *r = kr_arena_strdup(a, b.data);
  kr_buf_free(&b);
  return r;
}

KrStatus kr_profile_classify(KrProfile *p, KrArena *a, KrDiags *d) {
  if (p->launches.len == 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "ncu reported no kernel launches to classify");
    return KR_ERR;
  }
  p->launch = longest(p);
  const KrProfileLaunch *l = &p->launches.data[p->launch];
  const KrProfileMetric *cs = find_metric(&l->metrics, KR_M_COMPUTE_SOL);
  const KrProfileMetric *ms = find_metric(&l->metrics, KR_M_MEMORY_SOL);
  if (!cs || !ms || isnan(cs->value) || isnan(ms->value)) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "ncu reported no value for %s of kernel '%s' (launch %zu), so it cannot be "
                "classified", !cs || isnan(cs->value) ? KR_M_COMPUTE_SOL : KR_M_MEMORY_SOL,
                l->kernel, p->launch + 1);
    return KR_ERR;
  }
  p->kernel = l->kernel;
  p->duration_ms = l->duration_ms;
  p->compute_sol = cs->value, p->memory_sol = ms->value;
  p->bound = kr_profile_bound(cs->value, ms->value);
  p->bound_name = kr_profile_bound_name(p->bound);
  p->why = why_text(p->bound, cs->value, ms->value, a);
  p->metrics.len = 0;
  for (size_t i = 0; i < KR_NMETRICS; i++) {
    const KrProfileMetric *m = find_metric(&l->metrics, kMetrics[i].name);
    if (m && (kMetrics[i].classes & (1u << p->bound))) kr_vec_push(a, &p->metrics, *m);
  }
  p->text = profile_text(p, a);
  p->json = profile_json(p, a);
  return KR_OK;
}

/* ---- What went wrong --------------------------------------------------------------------------------- */

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *kr_profile_failure_line(const char *output, KrArena *a, KrProfileFailure *failure) {
  const char *ours = NULL, *error = NULL, *generic = NULL, *none = NULL;
  size_t ours_n = 0, error_n = 0, generic_n = 0, none_n = 0;
  for (const char *s = output; s && *s;) {
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    const char *line = s;
    s = nl ? nl + 1 : s + n;
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' ')) n--;
    if (!ours && starts_with(line, KR_LAUNCH_ONCE_PREFIX)) ours = line, ours_n = n;
    else if (!starts_with(line, "==ERROR==")) {
      if (!none && starts_with(line, "==WARNING==") && strstr(line, "No kernels were profiled"))
        none = line, none_n = n;
    } else if (strstr(line, "returned an error code")) {
      if (!generic) generic = line, generic_n = n;
    } else if (!error) {
      error = line, error_n = n;
    }
  }
  *failure = KR_PROFILE_OK;
  if (ours) {
    const char *msg = kr_arena_strndup(a, ours + strlen(KR_LAUNCH_ONCE_PREFIX),
                                       ours_n - strlen(KR_LAUNCH_ONCE_PREFIX));
    *failure = starts_with(msg, "no GPU") ? KR_PROFILE_NO_GPU : KR_PROFILE_CANDIDATE;
    return msg;
  }
  const char *line = error ? error : generic ? generic : none;
  size_t n = error ? error_n : generic ? generic_n : none_n;
  if (!line) return NULL;
  *failure = KR_PROFILE_NCU_FAILED;
  return kr_arena_strndup(a, line, n);
}

/* ---- Running ncu -------------------------------------------------------------------------------------- */

typedef KrVec(const char *) Argv;

static const char *self_exe(const KrProfileOptions *o, KrArena *a) {
  if (o->self_exe) return o->self_exe;
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? kr_arena_strndup(a, buf, (size_t)n) : NULL;
}

static Argv ncu_argv(const KrSpec *s, const KrProfileOptions *o, const char *ncu, const char *exe,
                     const char *arch, KrArena *a) {
  Argv v = {0};
  const char *fixed[] = {ncu, "--clock-control", "none", "--csv", "--page", "raw", "--metrics",
                         kr_profile_metric_list(a), "--target-processes", "all", exe, "profile",
                         "--launch-once", s->path, "--arch", arch};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) kr_vec_push(a, &v, fixed[i]);
  const char *which = o->recipe ? "--recipe" : o->candidate ? "--candidate" : NULL;
  if (which) {
    kr_vec_push(a, &v, which);
    kr_vec_push(a, &v, o->recipe ? o->recipe : o->candidate);
  }
  for (size_t i = 0; i < s->build.include_dirs.len; i++) {   /* the spec's and the command line's */
    kr_vec_push(a, &v, "-I");
    kr_vec_push(a, &v, s->build.include_dirs.data[i]);
  }
  for (size_t i = 0; i < s->build.defines.len; i++) {
    kr_vec_push(a, &v, "--define");
    kr_vec_push(a, &v, s->build.defines.data[i]);
  }
  const KrRecipeOptions *ro = o->recipe_opts;
  for (size_t i = 0; ro && i < ro->defines.len; i++) {
    const KrDefine *def = &ro->defines.data[i];
    kr_vec_push(a, &v, "-D");
    kr_vec_push(a, &v, kr_arena_printf(a, "%s=%s", def->name, def->value.text));
  }
  kr_vec_push(a, &v, (const char *)NULL);
  return v;
}

static KrStatus fail(KrProfile *p, KrProfileFailure f) {
  p->failure = f;
  return KR_ERR;
}

/* What ncu's run says, turned into one error; KR_OK when it holds a table to read. */
static KrStatus ncu_outcome(KrProfile *p, const KrProcResult *res, const KrBuf *out,
                            const KrBuf *err, double timeout, KrArena *a, KrDiags *d) {
  const char *all = kr_arena_printf(a, "%s\n%s", out->data ? out->data : "", err->data ? err->data : "");
  KrProfileFailure kind;
  const char *line = kr_profile_failure_line(all, a, &kind);
  if (res->timed_out) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "ncu did not finish within %g s, so it was killed%s%s",
                timeout, line ? ": " : "", line ? line : "");
    return fail(p, KR_PROFILE_NCU_FAILED);
  }
  if (kind == KR_PROFILE_NO_GPU) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s (in the run under ncu)", line);
    return fail(p, kind);
  }
  if (kind == KR_PROFILE_CANDIDATE) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "the candidate failed in the run under ncu: %s", line);
    return fail(p, kind);
  }
  if (kind == KR_PROFILE_NCU_FAILED) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "ncu failed (%s): %s", kr_proc_describe(res, a), line);
    if (strstr(line, "ERR_NVGPUCTRPERM"))
      kr_diag_pos(d, KR_DIAG_NOTE, NULL, 0, 0,
                  "reading the GPU's performance counters needs permission: run as root, or load "
                  "the driver with NVreg_RestrictProfilingToAdminUsers=0 "
                  "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
    return fail(p, kind);
  }
  return KR_OK;
}

/* Runs ncu on the launch-once mode and reads its table into p->launches. */
static KrStatus profile_under_ncu(const KrSpec *s, const KrProfileOptions *o, const char *ncu,
                                  const char *arch, KrProfile *p, KrArena *a, KrDiags *d) {
  const char *exe = self_exe(o, a);
  if (!exe) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "cannot find krewrite's own executable (/proc/self/exe)");
    return fail(p, KR_PROFILE_NCU_FAILED);
  }
  Argv argv = ncu_argv(s, o, ncu, exe, arch, a);
  double timeout = o->timeout_s > 0 ? o->timeout_s : KR_PROFILE_DEFAULT_TIMEOUT_S;
  KrBuf out = {0}, err = {0};
  KrProcResult res;
  KrStatus st = KR_OK;
  if (kr_proc_run(argv.data, NULL, timeout, &out, &err, &res) != KR_OK) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s", err.data ? err.data : "cannot run ncu");
    st = fail(p, KR_PROFILE_NCU_FAILED);
  } else if ((st = ncu_outcome(p, &res, &out, &err, timeout, a, d)) == KR_OK &&
             kr_profile_parse_csv(out.data ? out.data : "", out.len, a, p, d) != KR_OK) {
    bool ok = WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0;
    if (!ok)
      kr_diag_pos(d, KR_DIAG_NOTE, NULL, 0, 0, "ncu ended with %s", kr_proc_describe(&res, a));
    st = fail(p, ok ? KR_PROFILE_BAD_OUTPUT : KR_PROFILE_NCU_FAILED);
  }
  kr_buf_free(&out);
  kr_buf_free(&err);
  return st;
}

KrStatus kr_profile_run(const KrSpec *s, const KrProfileOptions *o, KrArena *a, KrProfile **out,
                        KrDiags *d) {
  KrProfile *p = kr_arena_alloc(a, sizeof *p);
  *out = p;
  const char *ncu;
  if (kr_profile_find_ncu(o->ncu, getenv("PATH"), KR_NCU_DEFAULT_PATH, &ncu, a, d) != KR_OK)
    return fail(p, KR_PROFILE_NO_NCU);
  const char *arch = o->arch;
  if (!arch) {
    int major = 0, minor = 0;
    if (kr_cuda_probe(NULL, 0, &major, &minor, d) != KR_OK) return fail(p, KR_PROFILE_NO_GPU);
    arch = kr_arena_printf(a, "sm_%d%d", major, minor);
  }
  /* The candidate, made once to check that it builds (ncu's child makes its own) unless made already. */
  KrRecipeRun *made = NULL;
  if (o->recipe && !o->run && kr_candidate_from_recipe(s, o->recipe, o->recipe_opts, a, &made, d) != KR_OK)
    return fail(p, KR_PROFILE_CANDIDATE);
  KrLaunchOnceOptions lo = {o->run ? o->run : made, o->candidate, arch};
  KrStatus built = kr_cuda_once_build(s, &lo, a, &p->candidate, d);
  if (made) kr_recipe_run_free(made);
  if (built != KR_OK) return fail(p, KR_PROFILE_CANDIDATE);
  if (profile_under_ncu(s, o, ncu, arch, p, a, d) != KR_OK) return KR_ERR;
  if (!s->entry && p->launches.len != s->launches.len)   /* an entry makes as many as its host code does */
    kr_diag_pos(d, KR_DIAG_WARNING, NULL, 0, 0, "ncu reported %zu kernel launches; the problem has %zu",
                p->launches.len, s->launches.len);
  if (kr_profile_classify(p, a, d) != KR_OK) return fail(p, KR_PROFILE_BAD_OUTPUT);
  return KR_OK;
}
