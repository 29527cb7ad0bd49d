// JavaHistBench.java - the Java reference's figures for bench_hist (compiled
// with javac into the build directory by bench_hist at run time, run in the
// same session).  Same streams as bench_hist (xorshift64 with the same seed
// and the same transforms), same histogram geometry.
//   java JavaHistBench N REPS
// prints lines "key value" that bench_hist parses:
//   record_<stream>_ns[_cpu|_stream]  median ns per recordValue over REPS
//                       passes of N values after JIT warm-up: in 64 Ki-value
//                       chunks read untimed first (wall, thread CPU time), and
//                       streamed from the whole array
//   summary6_ns         six getValueAtPercentile calls on a 1e9/3-figure
//                       histogram holding N latency-like values (median)
//   encode_ns, decode_ns, encoded_bytes   compressed V2 of 1 M latency-like values
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.HdrHistogram.Histogram;

public class JavaHistBench {
    static long x;
    static final int CHUNK = 65536;
    static final java.lang.management.ThreadMXBean mx =
        java.lang.management.ManagementFactory.getThreadMXBean();

    static long next() {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return x;
    }

    static double unit() { return (next() >>> 11) * 0x1.0p-53; }

    // Keep in step with gen() in bench_hist.c.
    static long[] gen(int kind, int n) {
        x = 0x9E3779B97F4A7C15L + kind;
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            switch (kind) {
            case 0: v[i] = Long.remainderUnsigned(next(), 1000000L); break;            // uniform 0..1e6
            case 1: v[i] = (long) Math.exp(unit() * Math.log(1e9)); break;           // log-uniform 1..1e9
            default: {                                                                // latency-like
                double u = unit();
                long base = 200 + (long) (-Math.log(1.0 - unit()) * 150);
                if (u > 0.999) base += (long) (unit() * 5_000_000);
                else if (u > 0.99) base += (long) (unit() * 50_000);
                v[i] = base;
            }
            }
        }
        return v;
    }

    static double median(double[] a) {
        double[] c = a.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        int reps = Integer.parseInt(args[1]);
        String[] names = {"uniform", "loguniform", "latency"};
        long sink = 0;
        for (int k = 0; k < 3; k++) {
            long[] v = gen(k, n);
            Histogram h = new Histogram(1, 3600L * 1000 * 1000 * 1000, 3);
            for (int w = 0; w < 3; w++) { // JIT warm-up passes (both loop shapes)
                h.reset();
                for (long e : v) h.recordValue(e);
                h.reset();
                for (int off = 0; off < n; off += CHUNK)
                    for (int i = off, end = Math.min(n, off + CHUNK); i < end; i++) h.recordValue(v[i]);
            }
            double[] t = new double[reps], tc = new double[reps], ts = new double[reps];
            for (int r = 0; r < reps; r++) {
                // chunked, as bench_hist: each 64 Ki-value chunk read untimed, then recorded
                h.reset();
                long w = 0, c = 0;
                for (int off = 0; off < n; off += CHUNK) {
                    int end = Math.min(n, off + CHUNK);
                    for (int i = off; i < end; i++) sink += v[i];
                    long c0 = mx.getCurrentThreadCpuTime(), w0 = System.nanoTime();
                    for (int i = off; i < end; i++) h.recordValue(v[i]);
                    long w1 = System.nanoTime(), c1 = mx.getCurrentThreadCpuTime();
                    w += w1 - w0;
                    c += c1 - c0;
                }
                t[r] = (double) w / n;
                tc[r] = (double) c / n;
                h.reset();
                long t0 = System.nanoTime();
                for (long e : v) h.recordValue(e);
                ts[r] = (double) (System.nanoTime() - t0) / n;
                sink += h.getTotalCount();
            }
            System.out.printf("record_%s_ns %.3f%n", names[k], median(t));
            System.out.printf("record_%s_ns_cpu %.3f%n", names[k], median(tc));
            double best = tc[0];
            for (double c : tc) best = Math.min(best, c);
            System.out.printf("record_%s_ns_cpu_best %.3f%n", names[k], best);
            System.out.printf("record_%s_ns_stream %.3f%n", names[k], median(ts));
        }
        long[] lat = gen(2, n);
        Histogram s = new Histogram(1, 1000000000L, 3);
        for (long e : lat) s.recordValue(Math.min(e, 1000000000L));
        double[] ps = {50, 90, 99, 99.9, 99.99, 100};
        double[] t = new double[2000];
        for (int r = 0; r < t.length; r++) {
            long t0 = System.nanoTime();
            for (double p : ps) sink += s.getValueAtPercentile(p);
            t[r] = System.nanoTime() - t0;
        }
        System.out.printf("summary6_ns %.0f%n", median(Arrays.copyOfRange(t, 1000, 2000)));
        long[] m = gen(2, 1000000);
        Histogram e = new Histogram(1, 3600L * 1000 * 1000 * 1000, 3);
        for (long val : m) e.recordValue(val);
        ByteBuffer buf = ByteBuffer.allocate(e.getNeededByteBufferCapacity());
        double[] te = new double[200], td = new double[200];
        int len = 0;
        for (int r = 0; r < te.length; r++) {
            buf.clear();
            long t0 = System.nanoTime();
            len = e.encodeIntoCompressedByteBuffer(buf);
            te[r] = System.nanoTime() - t0;
            buf.rewind();
            t0 = System.nanoTime();
            Histogram d = Histogram.decodeFromCompressedByteBuffer(buf, 0);
            td[r] = System.nanoTime() - t0;
            sink += d.getTotalCount();
        }
        System.out.printf("encode_ns %.0f%n", median(Arrays.copyOfRange(te, 100, 200)));
        System.out.printf("decode_ns %.0f%n", median(Arrays.copyOfRange(td, 100, 200)));
        System.out.printf("encoded_bytes %d%n", len);
        System.out.printf("sink %d%n", sink);
    }
}
