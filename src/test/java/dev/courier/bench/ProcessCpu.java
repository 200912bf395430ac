package dev.courier.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * CPU time of the processes a benchmark compares, read from {@code /proc} (Linux, clock ticks of 10 ms): the
 * Liberty server running Courier, PostgreSQL (every live {@code postgres} process, plus what the postmaster
 * has collected from backends that ended), and the benchmark's own process, where its clients run.
 */
public final class ProcessCpu {

    private static final double MILLIS_PER_TICK = 10;

    private ProcessCpu() {}

    /**
     * CPU milliseconds used so far by the Liberty server named {@code server} of this build's installation
     * ({@code target/liberty}), or NaN if it is not running.
     */
    public static double liberty(String server) {
        String launcher = Path.of("target/liberty/wlp/bin/tools/ws-server.jar")
                .toAbsolutePath()
                .toString();
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            return processes
                    .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> {
                        List<String> args = arguments(p);
                        return args.contains(launcher) && args.contains(server);
                    })
                    .mapToDouble(p -> ticks(p, false))
                    .findFirst()
                    .orElse(Double.NaN);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** CPU milliseconds used so far by the Artemis broker (its JVM runs {@code org.apache.activemq.artemis.boot.Artemis}), or NaN. */
    public static double broker() {
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            return processes
                    .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> arguments(p).contains("org.apache.activemq.artemis.boot.Artemis"))
                    .mapToDouble(p -> ticks(p, false))
                    .findFirst()
                    .orElse(Double.NaN);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** CPU milliseconds used so far by this process: the benchmark's clients, with this JVM's GC and JIT. */
    public static double client() {
        return ticks(Path.of("/proc/self"), false);
    }

    /** CPU milliseconds used so far by PostgreSQL: live processes, and ended backends the postmaster reaped. */
    public static double postgres() {
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            return processes
                    .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> "postgres"
                            .equals(stat(p).map(s -> s.substring(s.indexOf('(') + 1, s.lastIndexOf(')')))
                                    .orElse("")))
                    .mapToDouble(p -> ticks(p, isPostmaster(p)))
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * CPU milliseconds used so far by one PostgreSQL server (the Debian cluster {@code cluster}, e.g. "main" or
     * "inventory"): its postmaster with what it reaped, and its live children; NaN if it is not running.
     */
    public static double postgresCluster(String cluster) {
        List<Path> processes = clusterProcesses(cluster);
        if (processes.isEmpty()) {
            return Double.NaN;
        }
        return ticks(processes.get(0), true)
                + processes.subList(1, processes.size()).stream()
                        .mapToDouble(p -> ticks(p, false))
                        .sum();
    }

    /**
     * The process ids of one PostgreSQL server (the Debian cluster {@code cluster}): its postmaster first, then its
     * children; empty if it is not running. What the lab stops with SIGSTOP to make the server hang.
     */
    public static List<Long> postgresClusterPids(String cluster) {
        return clusterProcesses(cluster).stream()
                .map(p -> Long.parseLong(p.getFileName().toString()))
                .toList();
    }

    private static List<Path> clusterProcesses(String cluster) {
        String config = "/" + cluster + "/postgresql.conf";
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            List<Path> all = processes
                    .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .toList();
            Path postmaster = all.stream()
                    .filter(p ->
                            arguments(p).stream().anyMatch(a -> a.startsWith("config_file=") && a.endsWith(config)))
                    .findFirst()
                    .orElse(null);
            if (postmaster == null) {
                return List.of();
            }
            String pid = postmaster.getFileName().toString();
            List<Path> server = new ArrayList<>();
            server.add(postmaster);
            all.stream()
                    .filter(p -> stat(p).map(s -> s.substring(s.lastIndexOf(')') + 2)
                                    .split(" ")[1]
                                    .equals(pid))
                            .orElse(false))
                    .forEach(server::add);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isPostmaster(Path process) {
        return arguments(process).stream().anyMatch(a -> a.equals("-D") || a.startsWith("config_file="));
    }

    private static double ticks(Path process, boolean withChildren) {
        return stat(process)
                .map(s -> {
                    String[] fields = s.substring(s.lastIndexOf(')') + 2).split(" ");
                    // after the command: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
                    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                    if (withChildren) {
                        ticks += Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
                    }
                    return ticks * MILLIS_PER_TICK;
                })
                .orElse(0.0);
    }

    private static java.util.Optional<String> stat(Path process) {
        try {
            return java.util.Optional.of(Files.readString(process.resolve("stat")));
        } catch (IOException e) {
            return java.util.Optional.empty(); // ended meanwhile
        }
    }

    private static List<String> arguments(Path process) {
        try {
            return List.of(
                    new String(Files.readAllBytes(process.resolve("cmdline")), StandardCharsets.UTF_8).split("\0"));
        } catch (IOException e) {
            return List.of();
        }
    }
}
