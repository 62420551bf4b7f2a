__global__ void spin(int n, float v) {
  float s = v;
  for (int i = 0; i < n; i++) s = s * 0.5f + 1.0f;
  if (s < 0.0f) __trap();
}
