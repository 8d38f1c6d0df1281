// GELU where each thread takes CHUNK consecutive elements: simple to reason
// about, but a warp's loads are CHUNK*4 bytes apart (uncoalesced).
#define CHUNK 16

extern "C" __global__ void gelu_chunked(const float* x, float* y, int n)
{
    int start = (blockIdx.x * blockDim.x + threadIdx.x) * CHUNK;
    for (int k = 0; k < CHUNK; ++k) {
        int i = start + k;
        if (i < n) {
            float v = x[i];
            float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
            y[i] = 0.5f * v * (1.0f + tanhf(inner));
        }
    }
}
