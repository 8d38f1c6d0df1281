// Kernels with real bugs the analyzer reports as errors or warnings.

// A barrier only some threads reach (SY301).
__global__ void barrier_in_branch(const float* x, float* y, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    s[threadIdx.x] = x[i];
    __syncthreads();
    y[i] = s[255 - threadIdx.x];
  }
}

// A neighbour's shared value read with no barrier (SM202), no bounds guard (GM104),
// and a double literal in float arithmetic (FP501).
__global__ void smooth(const float* x, float* y, int n) {
  __shared__ float s[257];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = x[i];
  y[i] = 0.5 * s[threadIdx.x] + 0.5 * s[threadIdx.x + 1];
}

// The launch's block is not a whole number of warps (OC603), and the
// column-major walk makes every load touch 32 sectors (GM101).
__global__ void column_sum(const float* a, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= rows) return;
  float acc = 0.0f;
  for (int r = 0; r < cols; ++r) acc += a[c * cols + r];
  out[c] = acc;
}

void launch(const float* a, float* out, int rows, int cols) {
  column_sum<<<(rows + 99) / 100, 100>>>(a, out, rows, cols);
}
