package dev.courier.lab;

import dev.courier.testing.Http;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** What the comparison lab and the failover lab both do to the scenario and its processes. */
final class LabScenario {

    private LabScenario() {}

    /** Sets the stock of {@code sku} to {@code quantity} through the scenario's API; returns the sku. */
    static String stock(Http http, String sku, int quantity) {
        Http.Response stocked =
                http.post("api/scenario/stock", "{\"sku\": \"" + sku + "\", \"quantity\": " + quantity + "}");
        if (stocked.status() != 200) {
            throw new IllegalStateException("setting stock failed: " + stocked);
        }
        return sku;
    }

    /** Sends {@code signal} (STOP, CONT, KILL, …) to the processes. */
    static void signal(String signal, List<Long> pids) throws Exception {
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.forEach(pid -> command.add(Long.toString(pid)));
        Process kill = new ProcessBuilder(command).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed");
        }
    }

    /**
     * Freezes the process (SIGSTOP) at a moment a database holds one of its prepared transactions: the moment
     * {@code prepared} counts one the process is stopped and the count read again; if the commit came first, the
     * process goes on (SIGCONT) and the next is awaited, up to {@code attempts} times. Answers how many were
     * prepared with the process left frozen, or 0 with it running.
     */
    static int freezeWhilePrepared(long pid, Callable<Integer> prepared, int attempts) throws Exception {
        for (int attempt = 1; attempt <= attempts; attempt++) {
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (prepared.call() == 0 && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            signal("STOP", List.of(pid));
            int now = prepared.call();
            if (now > 0) {
                return now;
            }
            signal("CONT", List.of(pid));
        }
        return 0;
    }
}
