package dev.courier.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The test run's Liberty server driven as a process, for tests that must kill it: deploys the built WAR into
 * apps (app.xml), starts the server, kills it with SIGKILL, starts it again. The environment (database profile, ports)
 * is this JVM's, which Failsafe sets.
 */
public final class LibertyProcess {

    private final Path wlp = Path.of(System.getProperty("wlp.home", "target/liberty/wlp"));
    private final String name;
    private final Path server;
    private final Http http;
    private final Http management;
    private int managementPort = Integer.parseInt(System.getProperty("it.management.port", "19180"));
    private final java.util.Map<String, String> environment = new java.util.HashMap<>();
    private boolean clean;

    /** The test run's server, {@code courier}, on the test ports. */
    public LibertyProcess() {
        this.name = "courier";
        this.server = wlp.resolve("usr/servers/courier");
        this.http = Http.server();
        this.management = Http.management();
    }

    /**
     * Another server of the same installation, with the configuration of {@code courier} (same database and
     * broker) on its own HTTP ports, and its management port 100 above its HTTP port.
     */
    public LibertyProcess(String name, int httpPort, int httpsPort) throws IOException {
        this.name = name;
        this.server = wlp.resolve("usr/servers/" + name);
        this.http = new Http("http://localhost:" + httpPort + "/");
        environment.put("COURIER_HTTP_PORT", Integer.toString(httpPort));
        environment.put("COURIER_HTTPS_PORT", Integer.toString(httpsPort));
        this.managementPort = Http.managementPort(httpPort);
        this.management = new Http("http://localhost:" + managementPort + "/").anonymous();
        environment.put("COURIER_MANAGEMENT_PORT", Integer.toString(managementPort));
        Path template = wlp.resolve("usr/servers/courier");
        Files.createDirectories(server);
        try (var files = Files.list(template)) {
            for (Path file : files.filter(
                            f -> f.getFileName()
                                    .toString()
                                    .matches(
                                            "server\\.xml|server\\.env|jvm\\.options|app\\.xml|(datasource|auth|broker|management)-.*\\.xml"))
                    .toList()) {
                Files.copy(file, server.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        // The lab's configuration (server.xml includes it when courier.lab is on, as in the test run).
        Path lab = template.resolve("lab");
        if (Files.isDirectory(lab)) {
            Files.createDirectories(server.resolve("lab"));
            try (var files = Files.list(lab)) {
                for (Path file : files.toList()) {
                    Files.copy(
                            file,
                            server.resolve("lab").resolve(file.getFileName()),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** The second server of two: {@code courier2}, on the two ports after the test server's. */
    public static LibertyProcess second() throws IOException {
        int port = Integer.parseInt(System.getProperty("it.http.port", "19080"));
        return new LibertyProcess("courier2", port + 1, port + 2);
    }

    /** Deploys Courier to each server and starts it, in turn. */
    public static void startAll(LibertyProcess... servers) throws IOException, InterruptedException {
        for (LibertyProcess server : servers) {
            server.deploy();
            server.start();
        }
    }

    /** Stops each server and removes Courier from it; null entries (never created) are skipped. */
    public static void stopAll(LibertyProcess... servers) throws IOException, InterruptedException {
        for (LibertyProcess server : servers) {
            if (server != null) {
                server.stop();
                server.undeploy();
            }
        }
    }

    /** Sets an environment variable of the server's JVM from its next start (e.g. a MicroProfile Config value). */
    public LibertyProcess environment(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** The server's HTTP client. */
    public Http http() {
        return http;
    }

    /** The management port's number. */
    public int managementPort() {
        return managementPort;
    }

    /** The server's management port ({@code /health}, {@code /metrics}, {@code /openapi}), without credentials. */
    public Http management() {
        return management;
    }

    /** Puts the lab's WAR where app.xml deploys it from, as courier.war (the test run turns app.xml off for Arquillian). */
    public void deploy() throws IOException {
        deploy(Path.of(System.getProperty("it.war", "target/courier-lab.war")));
    }

    /** Deploys {@code war} as Courier, e.g. the tests' archive exported ({@link CourierDeployment#exported}). */
    public void deploy(Path war) throws IOException {
        Files.createDirectories(server.resolve("apps"));
        Files.copy(war, server.resolve("apps/courier.war"), StandardCopyOption.REPLACE_EXISTING);
        // The lab's orders service, an application of its own that lab-on.xml deploys beside Courier.
        Path orders = wlp.resolve("usr/servers/courier/apps/lab-orders.war");
        if (!server.resolve("apps/lab-orders.war").equals(orders) && Files.exists(orders)) {
            Files.copy(orders, server.resolve("apps/lab-orders.war"), StandardCopyOption.REPLACE_EXISTING);
        }
        environment.put("COURIER_APP", "app.xml");
        clean = name.equals("courier"); // the server Arquillian used, see start()
    }

    public void undeploy() throws IOException {
        Files.deleteIfExists(server.resolve("apps/courier.war"));
    }

    /** Starts the server and waits until Courier is ready. */
    public void start() throws IOException, InterruptedException {
        if (clean) {
            // The first start after a deploy drops the server's cached state: Arquillian's deployment of the
            // test archive, earlier in the run, left the cache without Courier's app.xml (seen: 404 for /api).
            clean = false;
            run("start", "--clean");
        } else {
            run("start");
        }
        boolean protectedPort = "protected".equals(environment.get("COURIER_MANAGEMENT_ACCESS"));
        Eventually.until("Courier ready", Duration.ofSeconds(180), () -> {
            try {
                return protectedPort
                        ? Http.httpsGet("localhost", managementPort, "health/ready", null)
                                        .status()
                                == 200
                        : management.get("health/ready").status() == 200;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    /** Starts the server without waiting for Courier: for a start that must fail. */
    public void launch() throws IOException, InterruptedException {
        run("start");
    }

    /** The server's {@code messages.log}. */
    public Path messagesLog() {
        return server.resolve("logs/messages.log");
    }

    public void stop() throws IOException, InterruptedException {
        run("stop");
    }

    /** The running server's JVM, to kill without the delay of {@link #kill()} (destroyForcibly is SIGKILL). */
    public ProcessHandle process() throws IOException {
        long pid = Long.parseLong(Files.readString(wlp.resolve("usr/servers/.pid/" + name + ".pid"))
                .trim());
        return ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no server pid " + pid));
    }

    /** Kills the server JVM with SIGKILL: no shutdown hook, no graceful anything. */
    public void kill() throws IOException, InterruptedException {
        long pid = Long.parseLong(Files.readString(wlp.resolve("usr/servers/.pid/" + name + ".pid"))
                .trim());
        ProcessHandle handle =
                ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no server pid " + pid));
        new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
        handle.onExit().join();
    }

    private void run(String command, String... options) throws IOException, InterruptedException {
        java.util.List<String> line = new java.util.ArrayList<>(
                java.util.List.of(wlp.resolve("bin/server").toString(), command, name));
        line.addAll(java.util.List.of(options));
        ProcessBuilder builder =
                new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(environment);
        Process process = builder.start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("server " + command + " did not finish");
        }
    }
}
