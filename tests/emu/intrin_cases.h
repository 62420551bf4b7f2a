/* tests/emu/intrin_cases.h: the inputs, references and documented error bounds of the fast math
 * intrinsics in tests/emu/intrin.cu, shared by tests/unit/test_emu_intrin.c (the CPU emulator
 * against double precision) and tests/gpu/gpu_intrin.c (the emulator against the GPU). The
 * bounds are the CUDA C++ Programming Guide's ("Intrinsic Functions" and, for rsqrtf, the
 * standard function table), stated as there: ulp against the correctly rounded fp32 result, or an
 * absolute error on a range. Where the Guide says only that an intrinsic is derived from others
 * (__tanf, __powf), the bound is derived the same way and says so. */
#ifndef KR_TESTS_INTRIN_CASES_H
#define KR_TESTS_INTRIN_CASES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { KR_IN_N = 1 << 15 };

typedef struct IntrinCase {
  const char *name;
  int op;                                   /* the switch case in intrin.cu */
  int domain;                               /* which inputs (gen below) */
  double (*ref)(double x, double y);        /* the exact value */
  float (*strict)(float x, float y);        /* what an accurate fp32 implementation gives */
  /* The error allowed at (x, y); *ulps says whether it is in ulp (else absolute). */
  double (*allowed)(float x, float y, int *ulps);
  int must_differ;                          /* an approximation must differ from strict */
} IntrinCase;

/* ---- References and strict fp32 forms --------------------------------------------------------------- */

static double r_exp(double x, double y) { (void)y; return exp(x); }
static double r_exp10(double x, double y) { (void)y; return pow(10.0, x); }
static double r_log(double x, double y) { (void)y; return log(x); }
static double r_log2(double x, double y) { (void)y; return log2(x); }
static double r_log10(double x, double y) { (void)y; return log10(x); }
static double r_sin(double x, double y) { (void)y; return sin(x); }
static double r_cos(double x, double y) { (void)y; return cos(x); }
static double r_tan(double x, double y) { (void)y; return tan(x); }
static double r_pow(double x, double y) { return pow(x, y); }
static double r_div(double x, double y) { return x / y; }
static double r_rsqrt(double x, double y) { (void)y; return 1.0 / sqrt(x); }
static double r_sat(double x, double y) { (void)y; return x != x ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x; }
static double r_sincos(double x, double y) { (void)y; return sin(x) + cos(x); }

static float s_exp(float x, float y) { (void)y; return expf(x); }
static float s_exp10(float x, float y) { (void)y; return powf(10.0f, x); }
static float s_log(float x, float y) { (void)y; return logf(x); }
static float s_log2(float x, float y) { (void)y; return log2f(x); }
static float s_log10(float x, float y) { (void)y; return log10f(x); }
static float s_sin(float x, float y) { (void)y; return sinf(x); }
static float s_cos(float x, float y) { (void)y; return cosf(x); }
static float s_tan(float x, float y) { (void)y; return tanf(x); }
static float s_pow(float x, float y) { return powf(x, y); }
static float s_div(float x, float y) { return x / y; }
static float s_rsqrt(float x, float y) { (void)y; return 1.0f / sqrtf(x); }
static float s_sat(float x, float y) { (void)y; return (float)r_sat(x, 0); }
static float s_sincos(float x, float y) { (void)y; return sinf(x) + cosf(x); }

/* ---- Bounds ----------------------------------------------------------------------------------------- */

static int near_one(float x) { return x >= 0.5f && x <= 2.0f; }
static double b_exp(float x, float y, int *u) { (void)y; *u = 1; return 2 + floor(fabs(1.173 * x)); }
static double b_exp10(float x, float y, int *u) { (void)y; *u = 1; return 2 + floor(fabs(2.97 * x)); }
static double b_log(float x, float y, int *u) {
  (void)y;
  *u = !near_one(x);
  return *u ? 3 : pow(2, -21.41);
}
static double b_log2(float x, float y, int *u) { (void)y; *u = !near_one(x); return *u ? 2 : pow(2, -22); }
static double b_log10(float x, float y, int *u) { (void)y; *u = !near_one(x); return *u ? 3 : pow(2, -24); }
static double b_sin(float x, float y, int *u) { (void)x, (void)y; *u = 0; return pow(2, -21.41); }
static double b_cos(float x, float y, int *u) { (void)x, (void)y; *u = 0; return pow(2, -21.19); }
/* Derived: tan = sin * (1 / cos) with sin and cos within their absolute bounds, then 2 ulp (the
 * reciprocal and the product) of the result. */
static double b_tan(float x, float y, int *u) {
  (void)y;
  *u = 0;
  double s = fabs(sin(x)), c = fabs(cos(x)), t = s / c;
  return (pow(2, -21.41) + t * pow(2, -21.19)) / c + 2 * t * 0x1p-23;
}
/* Derived: ex2 (2 ulp) of y * lg2(x), where lg2 has the absolute error 2^-22 and the product is
 * rounded to fp32: an exponent error e gives ln(2) e relative, at most ln(2) e / 2^-24 ulp. */
static double b_pow(float x, float y, int *u) {
  *u = 1;
  double e = fabs(y) * pow(2, -22) + fabs(y * log2(x)) * 0x1p-24;
  return 2 + ceil(log(2.0) * e / 0x1p-24);
}
static double b_2ulp(float x, float y, int *u) { (void)x, (void)y; *u = 1; return 2; }
static double b_exact(float x, float y, int *u) { (void)x, (void)y; *u = 1; return 0; }
static double b_sincos(float x, float y, int *u) { (void)x, (void)y; *u = 0; return pow(2, -21.41) + pow(2, -21.19) + 0x1p-24; }

enum { D_EXP, D_EXP10, D_LOG, D_TRIG, D_TAN, D_POW, D_DIV, D_RSQRT, D_SAT };

static const IntrinCase kIntrinCases[] = {
  {"__expf", 0, D_EXP, r_exp, s_exp, b_exp, 1},
  {"__exp10f", 1, D_EXP10, r_exp10, s_exp10, b_exp10, 1},
  {"__logf", 2, D_LOG, r_log, s_log, b_log, 1},
  {"__log2f", 3, D_LOG, r_log2, s_log2, b_log2, 1},
  {"__log10f", 4, D_LOG, r_log10, s_log10, b_log10, 1},
  {"__sinf", 5, D_TRIG, r_sin, s_sin, b_sin, 1},
  {"__cosf", 6, D_TRIG, r_cos, s_cos, b_cos, 1},
  {"__tanf", 7, D_TAN, r_tan, s_tan, b_tan, 1},
  {"__powf", 8, D_POW, r_pow, s_pow, b_pow, 1},
  {"__fdividef", 9, D_DIV, r_div, s_div, b_2ulp, 1},
  {"rsqrtf", 10, D_RSQRT, r_rsqrt, s_rsqrt, b_2ulp, 1},
  {"__saturatef", 11, D_SAT, r_sat, s_sat, b_exact, 0},
  {"__sincosf", 12, D_TRIG, r_sincos, s_sincos, b_sincos, 1},
};
enum { KR_IN_CASES = sizeof kIntrinCases / sizeof *kIntrinCases };

/* ---- Inputs ----------------------------------------------------------------------------------------- */

static double in_unit(uint64_t *s) { /* [0, 1) */
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) * 0x1p-53;
}
static double in_range(uint64_t *s, double lo, double hi) { return lo + (hi - lo) * in_unit(s); }
static double in_log(uint64_t *s, double lo, double hi) { return exp2(in_range(s, log2(lo), log2(hi))); }

/* The i-th argument pair of a domain: half of each on the range where the error is smallest
 * (|x| small, x near 1), half over the whole range the bound covers with normal results. */
static void intrin_input(int domain, int i, float *x, float *y) {
  uint64_t s = (uint64_t)domain * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull;
  int wide = i & 1;
  double v = 0, w = 1;
  switch (domain) {
  case D_EXP: v = wide ? in_range(&s, -87, 88) : in_range(&s, -4, 4); break;
  case D_EXP10: v = wide ? in_range(&s, -37, 38) : in_range(&s, -2, 2); break;
  case D_LOG: v = wide ? in_log(&s, 1e-37, 1e38) : in_range(&s, 0.5, 2); break;
  case D_TRIG: v = in_range(&s, -M_PI, M_PI); break;
  case D_TAN: v = in_range(&s, -1.2, 1.2); break;
  case D_POW:
    v = in_range(&s, 0.5, 4);
    w = in_range(&s, -8, 8);
    break;
  case D_DIV:
    v = in_range(&s, -100, 100);
    w = in_unit(&s) < 0.5 ? -1 : 1;  /* the sign first: the draws are sequenced */
    w *= in_log(&s, 0x1p-120, 0x1p120);
    break;
  case D_RSQRT: v = in_log(&s, 1e-37, 1e37); break;
  case D_SAT: v = in_range(&s, -0.5, 1.5); break;
  }
  *x = (float)v, *y = (float)w;
}

/* ---- Measuring -------------------------------------------------------------------------------------- */

/* One ulp at a float's magnitude (subnormal spacing below 2^-126). */
static double intrin_ulp(float f) {
  int e;
  frexpf(fabsf(f), &e);
  if (f == 0 || e - 1 < -126) e = -125;
  return ldexp(1.0, e - 1 - 23);
}

/* The error of `got` at (x, y) for case c, in the bound's unit, and the bound. */
static double intrin_error(const IntrinCase *c, float x, float y, float got, double *bound) {
  int ulps;
  *bound = c->allowed(x, y, &ulps);
  double ref = c->ref(x, y);
  if (ulps) {
    float cr = (float)ref;
    return got == cr ? 0 : fabs((double)got - (double)cr) / intrin_ulp(cr);
  }
  return fabs((double)got - ref);
}

#endif
