/* cli/main.c: the krewrite command line. Each subcommand reads its flags, calls the libraries
 * and prints; the pipeline itself lives in the libraries (DESIGN.md). Exit codes:
 *   0  success
 *   1  the input had errors (syntax errors, a recipe that failed, a check that did not pass)
 *   2  usage or environment trouble (bad flags, missing files, a tool that is not installed) */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char *usage_text =
  "usage: krewrite <command> [options]\n"
  "\n"
  "Static CUDA kernel rewriting: named, checked, source-to-source passes driven by Lua recipes.\n"
  "\n"
  "commands:\n"
  "  kernels FILE.cu [--json]          list kernels, parameters, shared arrays, loops, launches\n"
  "  parse FILE.cu                     print the syntax tree (S-expression), for debugging\n"
  "  apply RECIPE.lua FILE.cu [-o OUT] [--diff] [--log RUN.json] [-D name=value]...\n"
  "                                    run a recipe's passes and print (or write) the new source\n"
  "  passes [NAME]                     list the passes, or describe one in full\n"
  "  compile FILE.cu [--arch sm_XX] [--json]\n"
  "                                    nvcc to a cubin; ptxas resources per kernel\n"
  "  replay RUN.json [-o OUT]          rebuild an apply run's output from its log\n"
  "  verify PROBLEM.lua (--recipe R.lua | --candidate F.cu) [--json]\n"
  "                                    check a rewrite against the original on random inputs\n"
  "  bench PROBLEM.lua (--recipe R.lua | --candidate F.cu) [--json]\n"
  "                                    time a rewrite against the original on the GPU\n"
  "  bench PROBLEM.lua --recipe R.lua --steps [--json]\n"
  "                                    verify and time every prefix of the recipe, pass by pass\n"
  "  profile PROBLEM.lua [--recipe R.lua | --candidate F.cu] [--json]\n"
  "                                    Nsight Compute metrics: compute, memory or latency bound\n"
  "  optimize PROBLEM.lua [--rounds R] [--branch B] [--out DIR]\n"
  "                                    search for a faster kernel: propose, verify, time, keep\n"
  "  report RUN.json [-o REPORT.html]  a search's trajectory (optimize's run.json) as an HTML page\n"
  "  report PROBLEM.lua --recipe R.lua [--timings STEPS.json] [-o REPORT.html]\n"
  "                                    a recipe's steps as an HTML page (times: bench --steps --json)\n"
  "\n"
  "options:\n"
  "  -h, --help      this text (also: krewrite <command> --help)\n"
  "  --version       print the version\n"
  "\n"
  "exit status: 0 success, 1 the input had errors, 2 usage or environment trouble\n";

static const KrCommand commands[] = {
  {"kernels", kr_cmd_kernels},
  {"parse", kr_cmd_parse},
  {"apply", kr_cmd_apply},
  {"passes", kr_cmd_passes},
  {"replay", kr_cmd_replay},
  {"verify", kr_cmd_verify},
  {"bench", kr_cmd_bench},
  {"compile", kr_cmd_compile},
  {"optimize", kr_cmd_optimize},
  {"profile", kr_cmd_profile},
  {"report", kr_cmd_report},

};

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_text, stderr);
    return KR_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    return KR_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("krewrite %s\n", KR_VERSION);
    return KR_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(cmd, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "krewrite: unknown command '%s' (see krewrite --help)\n", cmd);
  return KR_EXIT_USAGE;
}
