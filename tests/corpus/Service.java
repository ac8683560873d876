// lk_java (argument "leak") / ok_java: a service-like JVM heap under G1 with
// -Xmx256m.  Every 50 ms a "request" makes some 200 KB of garbage and
// replaces 200 random entries of a 50,000-entry cache (old-generation
// garbage, so mixed collections run); the heap's regions are touched
// gradually, so the not-leak's resident memory rises for a while before it
// levels off (what a JVM warming up looks like from outside).  The leak
// also keeps a session object per request forever at a design rate of
// 10 MiB/h (bytes per object measured at start after System.gc()), logged
// once a minute to $CORPUS_LOG/<name>.log as "elapsed_ms leaked_bytes".
import java.io.FileWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class Service {
    static final class Session {
        final long id; final String user; final long seen; final int[] roles;
        Session(long i) { id = i; user = "user-" + i; seen = System.nanoTime(); roles = new int[] { (int) (i % 13) }; }
    }

    static long used() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    public static void main(String[] args) throws Exception {
        boolean leak = args.length > 0 && args[0].equals("leak");
        String name = args.length > 1 ? args[1] : (leak ? "lk_java" : "ok_java");
        String dir = System.getenv("CORPUS_LOG");
        FileWriter log = dir != null ? new FileWriter(dir + "/" + name + ".log") : null;
        System.gc();
        long a = used();
        List<Session> probe = new ArrayList<>();
        for (int i = 0; i < 50000; i++) probe.add(new Session(i));
        System.gc();
        double per = Math.max(32.0, (used() - a) / 50000.0);
        probe = null;
        final double rate = 10.0 * 1024 * 1024 / 3600.0;
        Random rnd = new Random(5);
        String[] cache = new String[50000];
        for (int i = 0; i < cache.length; i++) cache[i] = "v".repeat(200 + i % 600);
        List<Session> sessions = new ArrayList<>();
        long t0 = System.currentTimeMillis(), last = t0, n = 0, sink = 0;
        double owed = 0, nextLog = 0;
        for (;;) {
            long now = System.currentTimeMillis();
            List<int[]> req = new ArrayList<>();
            for (int k = 0; k < 2000; k++) req.add(new int[] { k, k + 1, k + 2, (int) now });
            for (int k = 0; k < 200; k++) cache[rnd.nextInt(cache.length)] = "v".repeat(200 + rnd.nextInt(600));
            sink += req.size();
            if (leak) {
                owed += rate * (now - last) / 1000.0;
                while (owed >= per) { sessions.add(new Session(n++)); owed -= per; }
            }
            last = now;
            double e = (now - t0) / 1000.0;
            if (log != null && e >= nextLog) {
                log.write(Math.round(e * 1000) + " " + Math.round(n * per) + "\n");
                log.flush();
                nextLog += 60;
            }
            Thread.sleep(50);
            if (sink < 0) System.out.println(req.size());
        }
    }
}
