// Sum of n floats: each block reduces 256 values in shared memory, then one atomic per block.
#define BLOCK 256

// Interleaved addressing: the modulo test splits every warp in every step.
__global__ void reduce_interleaved(const float* in, float* out, int n) {
  __shared__ float s[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned k = 1; k < blockDim.x; k *= 2) {
    if (tid % (2 * k) == 0) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, s[0]);
}

// Strided index instead of a modulo: no divergence, but 2- to 16-way bank conflicts.
__global__ void reduce_strided_index(const float* in, float* out, int n) {
  __shared__ float s[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned k = 1; k < blockDim.x; k *= 2) {
    unsigned index = 2 * k * tid;
    if (index < blockDim.x) s[index] += s[index + k];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, s[0]);
}

// Sequential addressing and warp shuffles for the last 32 values.
__global__ void reduce_shuffle(const float* in, float* out, int n) {
  __shared__ float s[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid < 32) {
    float v = s[tid] + s[tid + 32];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    if (tid == 0) atomicAdd(out, v);
  }
}

// Every thread adds into one address: a million serialized atomics.
__global__ void reduce_atomic(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(out, in[i]);
}

void launch(const float* in, float* out, int n) {
  int blocks = (n + BLOCK - 1) / BLOCK;
  reduce_interleaved<<<blocks, BLOCK>>>(in, out, n);
  reduce_strided_index<<<blocks, BLOCK>>>(in, out, n);
  reduce_shuffle<<<blocks, BLOCK>>>(in, out, n);
  reduce_atomic<<<1024, BLOCK>>>(in, out, n);
}
