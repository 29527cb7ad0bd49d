// JavaLogWriter.java - the Java reference's side of latlab's histogram interop
// test (tests/core/test_hist_interop.c compiles it with javac at test time).
//
//   java JavaLogWriter write OUT.hlog  writes a tagged 1.3 log with BaseTime
//                                      (HistogramLogWriter) and prints, per tag,
//                                      the merged histogram's figures;
//   java JavaLogWriter v2example       prints the uncompressed V2 bytes of the
//                                      SPEC-hdr.md example histogram in hex;
//   java JavaLogWriter read IN.hlog    reads a log (HistogramLogReader) and
//                                      prints the same figures per tag;
//   java JavaLogWriter autoresize OUT  writes a log of auto-resizing
//                                      histograms (new Histogram(3)), whose
//                                      intervals each declare a different range,
//                                      and prints the merged figures.
import java.io.*;
import java.nio.ByteBuffer;
import java.util.*;
import org.HdrHistogram.*;

public class JavaLogWriter {
    static final double[] PS = {0, 25, 50, 90, 99, 99.9, 99.99, 99.999, 100};

    static String figures(String tag, Histogram h) {
        StringBuilder sb = new StringBuilder();
        sb.append(tag == null ? "-" : tag).append(' ').append(h.getTotalCount());
        sb.append(' ').append(h.getMinValue()).append(' ').append(h.getMaxValue());
        for (double p : PS) sb.append(' ').append(h.getValueAtPercentile(p));
        sb.append(' ').append(Double.doubleToLongBits(h.getMean()));
        sb.append(' ').append(Double.doubleToLongBits(h.getStdDeviation()));
        return sb.toString();
    }

    static void print(TreeMap<String, Histogram> acc) {
        for (Map.Entry<String, Histogram> e : acc.entrySet())
            System.out.println(figures(e.getKey().isEmpty() ? null : e.getKey(), e.getValue()));
    }

    static void add(TreeMap<String, Histogram> acc, String tag, Histogram h) {
        String k = tag == null ? "" : tag;
        Histogram a = acc.get(k);
        if (a == null) { // as HistogramLogProcessor accumulates: auto-resizing
            a = h.copy();
            a.reset();
            a.setAutoResize(true);
            acc.put(k, a);
        }
        a.add(h);
    }

    // One second-long interval starting at startMs: logged and accumulated.
    static void emit(HistogramLogWriter w, TreeMap<String, Histogram> acc, Histogram h, String tag,
                     long startMs) {
        h.setTag(tag);
        h.setStartTimeStamp(startMs);
        h.setEndTimeStamp(startMs + 1000L);
        w.outputIntervalHistogram(h);
        add(acc, tag, h);
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("v2example")) {
            Histogram h = new Histogram(1, 3600000000L, 3);
            h.recordValue(1); h.recordValue(2); h.recordValue(2); h.recordValue(5);
            h.recordValueWithCount(1000, 100); h.recordValue(100000);
            ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
            int n = h.encodeIntoByteBuffer(b);
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < n; i++) sb.append(String.format("%02x", b.get(i)));
            System.out.println(sb);
            return;
        }
        TreeMap<String, Histogram> acc = new TreeMap<>();
        if (args[0].equals("read")) {
            HistogramLogReader r = new HistogramLogReader(args[1]);
            EncodableHistogram e;
            while ((e = r.nextIntervalHistogram()) != null) add(acc, e.getTag(), (Histogram) e);
            print(acc);
            return;
        }
        if (args[0].equals("autoresize")) {
            PrintStream out = new PrintStream(new FileOutputStream(args[1]));
            HistogramLogWriter w = new HistogramLogWriter(out);
            long startMs = 1700000000000L;
            w.outputLogFormatVersion();
            w.outputStartTime(startMs);
            w.outputLegend();
            Random rnd = new Random(7);
            // Interval 0 holds small values only, so its encoded range is the
            // smallest; later intervals resize to far larger values.
            long[][] shapes = {{1000, 100, 50}, {1000, 2000, 90000}, {50, 1000000, 49000000}};
            for (int i = 0; i < shapes.length; i++) {
                for (String tag : new String[] {null, "A"}) {
                    Histogram h = new Histogram(3);
                    for (int k = 0; k < shapes[i][0]; k++)
                        h.recordValue(shapes[i][1] + (long) (rnd.nextDouble() * shapes[i][2]));
                    if (i == 2 && tag == null) h.recordValue(50_000_000);
                    emit(w, acc, h, tag, startMs + 1000L * i);
                }
            }
            out.close();
            print(acc);
            return;
        }
        // write: three tags (none, A, B) over 6 intervals, latency-like values in ns
        PrintStream out = new PrintStream(new FileOutputStream(args[1]));
        HistogramLogWriter w = new HistogramLogWriter(out);
        long startMs = 1700000000123L;
        w.outputLogFormatVersion();
        w.outputStartTime(startMs);
        w.setBaseTime(startMs);
        w.outputBaseTime(startMs);
        w.outputLegend();
        Random rnd = new Random(42);
        for (int i = 0; i < 6; i++) {
            for (String tag : new String[] {null, "A", "B"}) {
                Histogram h = new Histogram(1, 3600L * 1000 * 1000 * 1000, 3);
                int n = 20000 + 1000 * i;
                for (int k = 0; k < n; k++) {
                    long v = 150 + (long) (Math.exp(rnd.nextGaussian() * 0.6) * 400);
                    if (tag != null && tag.equals("B")) v *= 7;
                    if (rnd.nextInt(5000) == 0) v += 2_000_000 + rnd.nextInt(50_000_000);
                    h.recordValue(v);
                }
                if (i == 3 && tag == null) h.recordValueWithCount(3_000_000_000L, 3);
                emit(w, acc, h, tag, startMs + 1000L * i);
            }
        }
        out.close();
        print(acc);
    }
}
