package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.DatabaseIndependent;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scripts that make passwords never pass one as an argument: every process's command line is readable by every
 * user of the host ({@code /proc/<pid>/cmdline}). Each script runs here with {@code java} replaced by a wrapper that
 * writes down its arguments and then runs the real one: no password the script made may appear in them.
 */
@DatabaseIndependent
class SecretsOffCommandLinesIT {

    private static final Path ROOT = Path.of(System.getProperty("user.dir"));

    @TempDir
    Path dir;

    @Test
    void bin_credentials_hashes_the_passwords_it_makes_without_an_argument_naming_one() throws Exception {
        Path data = dir.resolve("data");
        Path calls = run(List.of("bash", ROOT.resolve("bin/credentials").toString(), "--test"), data, Map.of());

        Properties passwords = properties(data.resolve("security/credentials.properties"));
        assertTrue(passwords.size() >= 5, passwords::toString);
        String arguments = Files.readString(calls);
        assertTrue(arguments.contains("PasswordHash"), "the passwords were hashed by a wrapped java: " + arguments);
        for (String user : passwords.stringPropertyNames()) {
            assertFalse(arguments.contains(passwords.getProperty(user)), user + "'s password was an argument");
        }
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(data.resolve("security/credentials.properties"))));
    }

    @Test
    void bin_broker_creates_its_user_without_an_argument_naming_the_password() throws Exception {
        Path data = dir.resolve("data");
        String port = Integer.toString(freePort());
        try {
            Path calls = run(
                    List.of("bash", ROOT.resolve("bin/broker").toString(), "start"),
                    data,
                    Map.of("COURIER_BROKER_PORT", port));
            String password =
                    properties(data.resolve("security/broker.properties")).getProperty("password");
            assertTrue(password != null && password.length() >= 20, "a generated password");
            String arguments = Files.readString(calls);
            assertTrue(arguments.contains(" create "), "the instance was created by a wrapped java: " + arguments);
            assertFalse(arguments.contains(password), "the broker's password was an argument");
        } finally {
            run(
                    List.of("bash", ROOT.resolve("bin/broker").toString(), "kill"),
                    data,
                    Map.of("COURIER_BROKER_PORT", port));
        }
    }

    /** Runs {@code command} with java wrapped. @return the file of the wrapped java's arguments, a line a call */
    private Path run(List<String> command, Path data, Map<String, String> env)
            throws IOException, InterruptedException {
        Path calls = dir.resolve("java-calls.txt");
        Path bin = dir.resolve("bin");
        Files.createDirectories(bin);
        Path wrapper = bin.resolve("java");
        String real = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(
                wrapper,
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + calls + "'\nexec '" + real + "' \"$@\"\n",
                StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        ProcessBuilder process =
                new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true);
        process.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        process.environment().put("JAVACMD", wrapper.toString());
        process.environment().put("COURIER_DATA_DIR", data.toString());
        process.environment().remove("COURIER_BROKER_PASSWORD");
        process.environment().putAll(env);
        Process started = process.start();
        String output = new String(started.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(started.waitFor(3, TimeUnit.MINUTES), command + " ran too long");
        assertEquals(0, started.exitValue(), command + ": " + output);
        return calls;
    }

    private static Properties properties(Path file) throws IOException {
        Properties properties = new Properties();
        try (var in = Files.newBufferedReader(file)) {
            properties.load(in);
        }
        return properties;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
