/*
 * Comment torture test — UTF‑8 text, odd characters and both comment styles.
 * Timing target: < 5 µs per launch → “fast enough”.  Greek: α β γ Δ Σ π.
 * Characters that look like code inside comments: } { ) ( ; <<< >>> */ /* again
 * Math: ∑ᵢ xᵢ² ≤ ∞, arrows ← ↑ → ↓, box ┌─┐, emoji-free on purpose.
 */
#include <cuda_runtime.h>

// Single-line comment with a trailing backslash is NOT used here on purpose.
// Strings with comment markers: see below.   «quotes» ‘single’ ¿question?

__global__ void /* inline comment between tokens */ scale_mu(float *x, int n); // forward decl (µ)

__global__ void scale_mu(float *x /* µ-scaled */, int n) // → multiplies by µ
{
    int i = blockIdx.x * blockDim.x /* × */ + threadIdx.x; // i ∈ [0, n)
    const char *s = "not a // comment, nor /* this */";
    if (i == 0 && s[0] == 'x') return;
    if (i < n) {
        x[i] *= 1e-6f; /* µ = 10⁻⁶ */
    }
    // } stray brace in a comment should not confuse anyone {
}

/** Doxygen-style block: @param y output (°C), @return nothing. */
__global__ void to_celsius(const float *f, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (f[i] - 32.0f) * (5.0f / 9.0f); // °F → °C
}

/*/ tricky: this is still a comment /*/
void launch(float *x, float *y, int n) // launches both ⇒ 2 kernels
{
    scale_mu<<<(n + 255) / 256, 256>>>(x, n); /* <<< inside comment >>> */
    to_celsius<<<(n + 255) / 256, 256>>>(x, y, n);
}
