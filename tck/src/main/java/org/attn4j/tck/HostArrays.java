package org.attn4j.tck;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.attn4j.api.Shape;
import org.attn4j.models.parameters.HostTensor;

/** Host-side inputs and rearrangements for the laws and the differential checks. */
final class HostArrays {

    private HostArrays() {
    }

    /**
     * @param random the seeded source
     * @param sigma the standard deviation
     * @param dims the shape
     * @return normally distributed values
     */
    static HostTensor randn(Random random, double sigma, int... dims) {
        Shape shape = Shape.of(dims);
        double[] d = new double[(int) shape.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = sigma * random.nextGaussian();
        }
        return new HostTensor(shape, d);
    }

    /**
     * @param value the fill value
     * @param shape the shape
     * @return a tensor of {@code value}
     */
    static HostTensor filled(double value, Shape shape) {
        double[] d = new double[(int) shape.size()];
        Arrays.fill(d, value);
        return new HostTensor(shape, d);
    }

    /**
     * Gathers slices along one axis: result slice {@code i} is {@code t}'s slice {@code indices[i]}. With
     * {@code 0..p-1} it is a prefix, with a permutation it permutes.
     *
     * @param t the source
     * @param axis the axis, non-negative
     * @param indices source positions along {@code axis}
     * @return the gathered tensor
     */
    static HostTensor take(HostTensor t, int axis, int[] indices) {
        int[] dims = t.shape().toArray();
        int outer = 1;
        for (int i = 0; i < axis; i++) {
            outer *= dims[i];
        }
        int inner = (int) t.shape().stride(axis);
        int size = dims[axis];
        dims[axis] = indices.length;
        double[] src = t.data();
        double[] out = new double[outer * indices.length * inner];
        for (int o = 0; o < outer; o++) {
            for (int i = 0; i < indices.length; i++) {
                System.arraycopy(src, (o * size + indices[i]) * inner, out, (o * indices.length + i) * inner, inner);
            }
        }
        return new HostTensor(Shape.of(dims), out);
    }

    /**
     * @param parts tensors whose shapes agree except along {@code axis}
     * @param axis the axis to join along, non-negative
     * @return the parts joined in order
     */
    static HostTensor concat(List<HostTensor> parts, int axis) {
        int[] dims = parts.get(0).shape().toArray();
        int outer = 1;
        for (int i = 0; i < axis; i++) {
            outer *= dims[i];
        }
        int total = 0;
        for (HostTensor p : parts) {
            total += p.shape().dim(axis);
        }
        int inner = (int) parts.get(0).shape().stride(axis);
        double[] out = new double[outer * total * inner];
        int at = 0;
        for (HostTensor p : parts) {
            int block = p.shape().dim(axis) * inner;
            for (int o = 0; o < outer; o++) {
                System.arraycopy(p.data(), o * block, out, (o * total) * inner + at, block);
            }
            at += block;
        }
        dims[axis] = total;
        return new HostTensor(Shape.of(dims), out);
    }

    /**
     * @param n the count
     * @return {@code 0, 1, ..., n-1}
     */
    static int[] range(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = i;
        }
        return r;
    }

    /**
     * @param random the seeded source
     * @param n the count
     * @return a random permutation of {@code 0..n-1} (Fisher–Yates)
     */
    static int[] permutation(Random random, int n) {
        int[] p = range(n);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int tmp = p[i];
            p[i] = p[j];
            p[j] = tmp;
        }
        return p;
    }

    /**
     * @param text a case id
     * @param seed the kit's seed
     * @return a random source that depends on both, so every case has its own reproducible inputs
     */
    static Random random(String text, long seed) {
        return new Random(seed * 31 + text.hashCode());
    }
}
