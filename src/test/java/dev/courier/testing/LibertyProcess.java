package dev.courier.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The test run's Liberty server driven as a process, for tests that must kill it: deploys the built WAR into
 * dropins, starts the server, kills it with SIGKILL, starts it again. The environment (database profile, ports)
 * is this JVM's, which Failsafe sets.
 */
public final class LibertyProcess {

    private final Path wlp = Path.of(System.getProperty("wlp.home", "target/liberty/wlp"));
    private final Path server = wlp.resolve("usr/servers/courier");
    private final Http http = Http.server();

    public void deploy() throws IOException {
        Files.createDirectories(server.resolve("dropins"));
        Files.copy(Path.of(System.getProperty("it.war", "target/courier.war")), server.resolve("dropins/courier.war"),
                StandardCopyOption.REPLACE_EXISTING);
    }

    public void undeploy() throws IOException {
        Files.deleteIfExists(server.resolve("dropins/courier.war"));
    }

    /** Starts the server and waits until Courier is ready. */
    public void start() throws IOException, InterruptedException {
        run("start");
        Eventually.until("Courier ready", Duration.ofSeconds(180), () -> {
            try {
                return http.get("health/ready").status() == 200;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    public void stop() throws IOException, InterruptedException {
        run("stop");
    }

    /** Kills the server JVM with SIGKILL: no shutdown hook, no graceful anything. */
    public void kill() throws IOException, InterruptedException {
        long pid = Long.parseLong(Files.readString(wlp.resolve("usr/servers/.pid/courier.pid")).trim());
        ProcessHandle handle = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no server pid " + pid));
        new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
        handle.onExit().join();
    }

    private void run(String command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(wlp.resolve("bin/server").toString(), command, "courier")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("server " + command + " did not finish");
        }
    }
}
