package dev.courier.bench;

import jakarta.enterprise.concurrent.ManagedExecutorService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;

/** Runs one measured phase of a benchmark: {@code workers} tasks at once, each answering its latencies. */
final class Workers {

    private Workers() {}

    static QueueBenchmark.Phase run(
            ManagedExecutorService executor, int workers, Callable<List<Long>> work, int messages) throws Exception {
        long start = System.nanoTime();
        List<Future<List<Long>>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            running.add(executor.submit(work));
        }
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> future : running) {
            all.addAll(future.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new QueueBenchmark.Phase(
                messages,
                seconds,
                new Latencies(all.stream().mapToLong(Long::longValue).toArray()));
    }
}
