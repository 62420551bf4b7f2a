/* search/profile.h: profiling feedback from Nsight Compute (DESIGN.md, Search: "Nsight Compute
 * metrics classified as compute-bound / memory-bandwidth-bound / latency-bound when ncu
 * exists"). A candidate (a recipe, a .cu, or the problem's own kernel) is run once under
 *
 *   ncu --clock-control none --csv --page raw --metrics <the table in profile.c>
 *       --target-processes all <krewrite> profile --launch-once PROBLEM.lua --arch sm_XX
 *       [--recipe R.lua | --candidate F.cu] [-D name=value]...
 *
 * (runtime/cuda_once.h: one set of the spec's launches at the benchmark sizes, nothing else).
 * Clocks are left as they run normally (--clock-control none), as bench times them. ncu's CSV
 * gives one row per launch; the longest launch (gpu__time_duration.sum) is classified by its
 * speed-of-light (SOL) throughputs, and only the metrics that matter for that class are kept
 * for the proposer: `text` for the LLM prompt, `json` for run.json. Every launch is recorded.
 *
 * Classes (thresholds in profile.c, with where they come from):
 *   memory-bandwidth-bound  memory SOL >= 60% and >= compute SOL
 *   compute-bound           compute SOL >= 60% and > memory SOL
 *   latency-bound           otherwise: neither unit near its peak; occupancy and stalls matter */
#ifndef KR_PROFILE_H
#define KR_PROFILE_H

#include "recipes/recipe.h"
#include "runtime/spec.h"

typedef enum { KR_BOUND_COMPUTE, KR_BOUND_MEMORY, KR_BOUND_LATENCY } KrBound;

/* Where ncu is looked for when it is not in PATH. */
#define KR_NCU_DEFAULT_PATH "/usr/local/cuda/bin/ncu"

/* Why kr_profile_run failed; the message itself is in the diagnostics. */
typedef enum {
  KR_PROFILE_OK,
  KR_PROFILE_NO_NCU,         /* ncu not found, or --ncu names no executable */
  KR_PROFILE_NO_GPU,         /* the probe, or the run under ncu, found no GPU */
  KR_PROFILE_NCU_FAILED,     /* ncu could not profile: counters not permitted, time-out, crash */
  KR_PROFILE_BAD_OUTPUT,     /* ncu ran but its CSV could not be read */
  KR_PROFILE_CANDIDATE,      /* the candidate: recipe error, compile error, a launch that failed */
} KrProfileFailure;

typedef struct KrProfileOptions {
  const char *recipe;        /* the candidate is this recipe applied to the problem's source */
  const KrRecipeRun *run;    /* (made already: this run of it, which the profiled child makes
                                    * again, being another process), */
  const char *candidate;     /* or this .cu; both NULL: the problem's own kernel */
  const KrRecipeOptions *recipe_opts;   /* its -D values go to the profiled run; NULL: none */
  const char *arch;          /* nvcc target; NULL: the GPU's (kr_cuda_probe) */
  const char *ncu;           /* NULL: `ncu` in PATH, then /usr/local/cuda/bin/ncu */
  double timeout_s;          /* for the whole ncu run; 0: KR_PROFILE_DEFAULT_TIMEOUT_S */
  const char *self_exe;      /* the krewrite executable ncu starts; NULL: /proc/self/exe */
} KrProfileOptions;

#define KR_PROFILE_DEFAULT_TIMEOUT_S 600.0

typedef struct KrProfileMetric {
  const char *name;          /* ncu's name: "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed" */
  const char *label;         /* for people and prompts: "DRAM"; the name for metrics not in the table */
  const char *unit;          /* ncu's unit, normalised: "%", "byte", "nsecond", "" */
  double value;              /* NAN when ncu printed "n/a" or nothing */
} KrProfileMetric;

typedef KrVec(KrProfileMetric) KrProfileMetrics;

/* One row of ncu's CSV: one kernel launch. */
typedef struct KrProfileLaunch {
  const char *id;            /* ncu's ID column */
  const char *kernel;        /* ncu's Kernel Name */
  const char *grid, *block;  /* "(65536, 1, 1)", as ncu prints them; "" when absent */
  double duration_ms;        /* gpu__time_duration.sum; NAN when missing */
  KrProfileMetrics metrics;  /* every metric column, in ncu's order */
} KrProfileLaunch;

typedef struct KrProfile {
  KrProfileFailure failure;  /* KR_PROFILE_OK after a successful run */
  const char *candidate;     /* what was profiled, for reports */
  KrVec(KrProfileLaunch) launches;  /* every launch ncu reported, in order */
  /* The classification of the longest launch (set by kr_profile_classify): */
  size_t launch;             /* its index in `launches` */
  KrBound bound;
  const char *bound_name;    /* "compute-bound", "memory-bandwidth-bound", "latency-bound" */
  const char *why;           /* "memory SOL 87.1% >= 60% and >= compute SOL 12.0%" */
  const char *kernel;
  double duration_ms;
  double compute_sol, memory_sol;   /* percent of peak */
  KrProfileMetrics metrics;  /* only the class's metrics, in the table's order */
  const char *text;          /* a few lines for the LLM prompt, ending in a newline */
  const char *json;          /* {"tool": "ncu", "class": ..., "kernel": ..., "duration_ms": ...,
                                "metrics": {name: {"label", "unit", "value"}}, ...} */
} KrProfile;

/* Profiles one candidate of `spec` (above). *out is always set (from `arena`): on KR_ERR its
 * `failure` says which kind, and `diags` holds the message, e.g. "ncu not found (looked in PATH
 * and /usr/local/cuda/bin)", or "ncu failed (exit status 1): ==ERROR== ERR_NVGPUCTRPERM - ...". */
KrStatus kr_profile_run(const KrSpec *spec, const KrProfileOptions *o, KrArena *arena,
                        KrProfile **out, KrDiags *diags);

/* ---- The steps, exported for tests ------------------------------------------------------------ */

/* Finds ncu: `explicit_path` when given (a path, or a name looked up in `path_var`), else "ncu" in
 * the colon-separated `path_var`, else `default_path`. KR_ERR with one error when none is an
 * executable file. */
KrStatus kr_profile_find_ncu(const char *explicit_path, const char *path_var,
                             const char *default_path, const char **path, KrArena *arena,
                             KrDiags *diags);

/* The --metrics argument: every metric of the table, comma-separated. */
const char *kr_profile_metric_list(KrArena *arena);

/* Reads ncu's `--csv --page raw` output into p->launches: lines before the header row ("ID",
 * ..., "Kernel Name", ...) and lines that are not CSV (==PROF== lines, the program's own output)
 * are skipped; the row after the header is the units row when its ID is empty; then one row per
 * launch. Fields may be quoted ("" inside quotes is a quote); values may carry thousands
 * separators ("1,234.5"); "n/a" and empty values read as NAN. Time units are normalised to
 * nsecond, byte units (Kbyte, Mbyte, ...) to byte. KR_ERR with one error naming the line when the
 * output has no header, a row of the wrong width, or no launches. */
KrStatus kr_profile_parse_csv(const char *text, size_t len, KrArena *arena, KrProfile *p,
                              KrDiags *diags);

/* The class for a pair of SOL percentages (the rules above). */
KrBound kr_profile_bound(double compute_sol, double memory_sol);
const char *kr_profile_bound_name(KrBound b);

/* Classifies the longest of p->launches and fills the rest of *p: the class, the kept metrics,
 * text and json. KR_ERR with one error when that launch lacks a SOL metric. */
KrStatus kr_profile_classify(KrProfile *p, KrArena *arena, KrDiags *diags);

/* The line of ncu's output (stdout and stderr together) that says why it failed: the profiled
 * run's own error ("krewrite launch-once: ..."), else ncu's first ==ERROR== line that is not
 * the generic "The application returned an error code", else that one, else ncu's "No kernels
 * were profiled" warning; NULL when there is none. *failure gets the kind it points to. */
const char *kr_profile_failure_line(const char *output, KrArena *arena, KrProfileFailure *failure);

/* The prefix the hidden launch-once mode puts before each of its errors on stderr. */
#define KR_LAUNCH_ONCE_PREFIX "krewrite launch-once: "

#endif
