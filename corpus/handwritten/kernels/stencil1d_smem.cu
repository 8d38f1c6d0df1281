// 7-point 1-D stencil with a static shared tile of BLOCK + 2*RADIUS floats:
// every thread loads its point, the first RADIUS threads load both halos.
__constant__ float c_w[7] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};

template <int BLOCK, int RADIUS>
__global__ void __launch_bounds__(BLOCK) stencil1d_smem(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float tile[BLOCK + 2 * RADIUS];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const int t = threadIdx.x + RADIUS;
    tile[t] = (i < n) ? x[i] : 0.0f;
    if (threadIdx.x < RADIUS) {
        const int l = i - RADIUS;
        tile[threadIdx.x] = (l >= 0 && l < n) ? x[l] : 0.0f;
        const int r = i + BLOCK;
        tile[t + BLOCK] = (r < n) ? x[r] : 0.0f;
    }
    __syncthreads();
    if (i >= n) return;
    if (i < RADIUS || i >= n - RADIUS) {
        y[i] = tile[t];
        return;
    }
    float acc = 0.0f;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k)
        acc += c_w[k + RADIUS] * tile[t + k];
    y[i] = acc;
}

template __global__ void stencil1d_smem<256, 3>(const float* __restrict__, float* __restrict__, int);
template __global__ void stencil1d_smem<512, 3>(const float* __restrict__, float* __restrict__, int);
