package dev.courier.lab;

import dev.courier.testing.Http;
import java.util.ArrayList;
import java.util.List;

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
}
