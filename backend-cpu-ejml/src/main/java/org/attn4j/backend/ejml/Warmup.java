package org.attn4j.backend.ejml;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.attn4j.api.Activation;
import org.attn4j.api.AttentionOptions;
import org.attn4j.api.Epilogue;
import org.attn4j.api.Mask;
import org.attn4j.api.Ops;
import org.attn4j.api.Scope;
import org.attn4j.api.Shape;
import org.attn4j.api.Tensor;
import org.attn4j.api.Weight;
import org.attn4j.api.WeightType;

/**
 * Compiles the SIMD kernels before the first real call: until C2 has compiled them, Vector API code runs its Java
 * fallbacks, hundreds of times slower, and a first request would pay seconds for it. When the first backend of a
 * JVM is created, a daemon thread calls every SIMD kernel on small operands, through the same ops a model calls
 * and along the same branches (edge tiles, accumulated inner blocks, every activation, the gated form, masks, the
 * packed projection, decoding), for at most {@link #BUDGET_NANOS} of its CPU time or {@link #ROUNDS} rounds,
 * whichever ends first (about 0.85 s of CPU for all rounds on the 2-core Zen 4 of issue 30, loaded); C2 compiles
 * the kernels meanwhile on its own threads while the caller goes on (loading a model, for instance).
 * {@code -D}{@value #PROPERTY}{@code =false} turns it off. Runs only when {@link Simd#enabled()}. An op that
 * arrives on another thread while the warm-up runs (a model's own warm-up, or its first call) waits for it to end
 * ({@link #await}), all such calls together for at most {@link #WAIT_NANOS}: on a model's shapes a kernel that C2
 * has not compiled yet costs several times the rest of the warm-up, and both would share the same cores. The
 * kernels of the weights narrower than F32 are warmed apart, when the first weight of their type is bound
 * ({@link NarrowPanels#warmUp}).
 */
final class Warmup {
    /** The system property that turns the warm-up off when {@code false}. */
    static final String PROPERTY = "attn4j.ejml.warmup";
    /** At most this much CPU time on the warm-up thread. */
    static final long BUDGET_NANOS = 1_000_000_000L;
    /** Rounds after which every kernel has been called often enough for C2 to compile it. */
    static final int ROUNDS = 1000;
    /** At most this long the calls wait for the warm-up, should the warm-up thread get little of the CPU. */
    static final long WAIT_NANOS = 2 * BUDGET_NANOS;
    private static final System.Logger LOG = System.getLogger(Warmup.class.getName());

    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final CountDownLatch ENDED = new CountDownLatch(1);
    private static volatile Thread thread;
    /** When every wait for the warm-up ends ({@link System#nanoTime}); 0 until the first wait. */
    private static final AtomicLong WAIT_END = new AtomicLong();

    private Warmup() {
    }

    /**
     * Starts the warm-up thread once per JVM, if the SIMD kernels run and the warm-up is not turned off.
     *
     * @param capabilities the backend's capabilities, for the private one-thread backend the warm-up calls
     * @return whether this call started it
     */
    static boolean start(org.attn4j.api.Capabilities capabilities) {
        if (!Simd.enabled() || !Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))
                || !STARTED.compareAndSet(false, true)) {
            return false;
        }
        Thread warming = new Thread(() -> {
            try {
                run(new EjmlBackend("ejml-warmup", capabilities, new Parallel(1)), BUDGET_NANOS, ROUNDS);
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.WARNING, "attn4j ejml: the kernels' warm-up failed; the first calls will"
                        + " run slower", e);
            } finally {
                ENDED.countDown();
            }
        }, "attn4j-ejml-warmup");
        warming.setDaemon(true);
        thread = warming;
        warming.start();
        return true;
    }

    /**
     * Waits for the warm-up to end, if it has started and the caller is not the warm-up itself; returns at once
     * otherwise. Every wait ends at the latest {@link #WAIT_NANOS} after the first one began, so a warm-up that gets
     * little of the CPU delays the first call alone, not each one. An interrupt ends the wait and is kept on the
     * thread.
     *
     * @return whether the warm-up has ended or never started
     */
    static boolean await() {
        return await(thread, ENDED, WAIT_END, WAIT_NANOS);
    }

    /**
     * {@link #await()} on a given warm-up.
     *
     * @param warming its thread, or null if it never started
     * @param ended counted down when it ends
     * @param waitEnd when every wait ends ({@link System#nanoTime}), 0 until the first wait sets it
     * @param nanos how long after the first wait began every wait ends
     * @return whether it has ended or never started
     */
    static boolean await(Thread warming, CountDownLatch ended, AtomicLong waitEnd, long nanos) {
        if (warming == null || ended.getCount() == 0) {
            return true;
        }
        if (warming == Thread.currentThread()) {
            return false;
        }
        long now = System.nanoTime();
        waitEnd.compareAndSet(0, now + nanos);
        try {
            return ended.await(waitEnd.get() - now, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Calls every kernel, round after round.
     *
     * @param backend a backend whose ops run on the calling thread
     * @param budgetNanos the CPU time of this thread (wall time where the JVM does not measure it) after which it stops
     * @param rounds the rounds after which it stops
     * @return the rounds run
     */
    static int run(EjmlBackend backend, long budgetNanos, int rounds) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        boolean cpu = threads.isCurrentThreadCpuTimeSupported();
        long start = cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime();
        try (Scope bound = backend.newScope()) {
            Operands o = new Operands(bound);
            int round = 0;
            while (round < rounds
                    && (cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime()) - start < budgetNanos) {
                try (Scope scope = backend.newScope()) {
                    o.call(scope.ops(), round);
                }
                round++;
            }
            return round;
        }
    }

    /**
     * Small operands whose shapes cross the edges of the kernels' tiles and blocks; small, because until C2 has
     * compiled a kernel every vector operation costs a fallback's allocations, and the point is to reach C2's call
     * and loop counts quickly.
     */
    private static final class Operands {
        private static final int IN = 4;
        private static final int OUT = VectorGemmF32.NR + 3;
        private static final int ROWS = Math.max(VectorGemmF32.MR, VectorGemmF32.ROWS) + 1;
        /** Two vectors per row and five rows: each pass of an activation is called five times a round. */
        private static final int ROW = 2 * Vectors.F32.length();
        private static final int EPILOGUE_ROWS = 5;
        private static final int LENGTH = VectorFlashAttentionF32.QUERY_BLOCK / 4 + 1;
        private static final int HEAD = 4;
        private static final Activation[] NONLINEAR = {Activation.GELU, Activation.GELU_TANH, Activation.SILU,
            Activation.RELU};

        final Tensor x;
        final Tensor residual;
        final Tensor bias;
        final Tensor gatedBias;
        final Weight weight;
        final Weight gated;
        final Tensor a;
        final Tensor b;
        final Tensor deep;
        final Tensor qkv;
        final Tensor query;
        final Tensor cache;
        final Mask padding;
        final float[] row = values(EPILOGUE_ROWS * ROW);
        final float[] rows = new float[EPILOGUE_ROWS * ROW];
        /** Operands of the decoding kernels, called directly: a decoding op makes too few calls per round. */
        final float[] keys = values(6 * 5 * Vectors.F32.length());
        final float[] dots = new float[6];
        final float[] sums = new float[5 * Vectors.F32.length()];

        Operands(Scope scope) {
            x = scope.tensor(values(ROWS * IN), Shape.of(ROWS, IN));
            residual = scope.tensor(values(ROWS * OUT), Shape.of(ROWS, OUT));
            bias = scope.tensor(values(OUT), Shape.of(OUT));
            gatedBias = scope.tensor(values(2 * OUT), Shape.of(2 * OUT));
            weight = scope.weight(bytes(values(OUT * IN)), WeightType.F32, Shape.of(OUT, IN));
            gated = scope.weight(bytes(values(2 * OUT * IN)), WeightType.F32, Shape.of(2 * OUT, IN));
            a = scope.tensor(values(ROWS * IN), Shape.of(ROWS, IN));
            b = scope.tensor(values(OUT * IN), Shape.of(OUT, IN));
            deep = scope.tensor(values(ROWS * (VectorGemmF32.KC + 1)), Shape.of(ROWS, VectorGemmF32.KC + 1));
            qkv = scope.tensor(values(LENGTH * 8 * HEAD), Shape.of(1, LENGTH, 8 * HEAD));
            int d = Vectors.F32.length();
            query = scope.tensor(values(2 * d), Shape.of(1, 2, 1, d));
            int keys = 2 * FlashDecoding.MIN_SPLIT + 1;
            cache = scope.tensor(values(2 * keys * d), Shape.of(1, 2, keys, d));
            boolean[] allowed = new boolean[LENGTH];
            for (int i = 0; i < LENGTH; i++) {
                allowed[i] = i < LENGTH - 3;
            }
            padding = Mask.of(Shape.of(1, 1, 1, LENGTH), allowed);
        }

        void call(Ops ops, int round) {
            Activation act = Activation.values()[round % Activation.values().length];
            ops.linear(x, weight, bias, Epilogue.none().withActivation(act).withResidual(residual));
            ops.linear(x, gated, gatedBias, Epilogue.gated(act));
            for (Activation f : NONLINEAR) {
                System.arraycopy(row, 0, rows, 0, rows.length);
                Epilogues.f32(f, rows, 0, ROW, EPILOGUE_ROWS, ROW, null, 0, null, 0, 0, 0, null, 0, 0);
            }
            ops.matmul(a, b, false, true);
            if (round % 16 == 0) {
                ops.matmul(deep, deep, true, false);
            }
            AttentionOptions options = round % 3 == 0 ? AttentionOptions.defaults()
                    : round % 3 == 1 ? AttentionOptions.defaults().withMask(padding)
                    : AttentionOptions.defaults().withCausal(true);
            ops.packedAttention(qkv, 4, 2, options);
            int lanes = Vectors.F32.length();
            VectorDecodingF32.scores(row, 0, keys, 0, lanes, dots, 0, 5);
            VectorDecodingF32.accumulate(dots, keys, 0, 5 * lanes, sums, 0, 1 + round % 3);
            if (round % 8 == 1) {
                ops.attention(query, cache, cache, AttentionOptions.defaults());
            }
        }

        private static float[] values(int n) {
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = (float) Math.sin(i * 0.7) * 2;
            }
            return v;
        }

        private static ByteBuffer bytes(float[] values) {
            ByteBuffer buffer = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
            buffer.asFloatBuffer().put(values);
            return buffer;
        }
    }
}
