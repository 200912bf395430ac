package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.Eventually;
import dev.courier.testing.LibertyProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code COURIER_AUTH} holding something other than an authentication mode (credentials exported for curl under
 * that name, the quick start's old trap): {@code bin/courier} refuses before it builds anything, and a server
 * started another way logs why and does not start Courier. Neither says the value, which may be a password (Liberty's
 * own warning about the missing {@code auth-<value>.xml} does). Tokens without an audience to require are refused
 * the same way ({@link AuthenticationModeTest} for the server's rule).
 */
class AuthenticationModeIT {

    private static final String CREDENTIALS = "admin:not-a-mode-s3cret";

    @Test
    void bin_courier_should_refuse_credentials_in_courier_auth_without_showing_them() throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bin/courier").redirectErrorStream(true);
        builder.environment().put("COURIER_AUTH", CREDENTIALS);
        Process process = builder.start();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "bin/courier did not stop");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, process.exitValue(), output);
        assertTrue(output.contains("COURIER_AUTH must be the authentication mode, basic or jwt"), output);
        assertFalse(output.contains("s3cret"), output);
    }

    @Test
    void bin_courier_should_refuse_tokens_without_an_audience_to_require() throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bin/courier").redirectErrorStream(true);
        builder.environment().put("COURIER_AUTH", "jwt");
        builder.environment().remove("MP_JWT_VERIFY_AUDIENCES");
        Process process = builder.start();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "bin/courier did not stop");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, process.exitValue(), output);
        assertTrue(output.contains("COURIER_AUTH=jwt needs MP_JWT_VERIFY_AUDIENCES"), output);
    }

    @Test
    void a_server_should_not_start_courier_under_an_authentication_mode_that_does_not_exist() throws Exception {
        // A second server needs a shared database: on the embedded one the test server holds Derby's lock, and
        // the second server's schema check may fail first (seen in CI). Once per CI run is enough for this check.
        Assumptions.assumeTrue("postgres".equals(System.getProperty("courier.db")), "needs a shared database");
        int port = Integer.parseInt(System.getProperty("it.http.port", "19080"));
        LibertyProcess server =
                new LibertyProcess("courier-badauth", port + 7, port + 8).environment("COURIER_AUTH", CREDENTIALS);
        Path log = server.messagesLog();
        Files.deleteIfExists(log);
        server.deploy();
        try {
            server.launch();
            Eventually.until(
                    "the refusal in the log",
                    Duration.ofSeconds(150),
                    () -> read(log).contains("COURIER_AUTH (courier.auth) is a value that is not a mode"));
            Eventually.until(
                    "the application failed",
                    Duration.ofSeconds(30),
                    () -> read(log).contains("CNTR4006E") || read(log).contains("CWWKZ0002E"));
            assertNotEquals(200, readiness(server));
            // Courier's own lines never show the value (Liberty's CWWKG0090E names the file it could not include).
            assertFalse(
                    read(log).lines().filter(l -> l.contains("dev.courier")).anyMatch(l -> l.contains("s3cret")),
                    "Courier's message shows the value");
        } finally {
            LibertyProcess.stopAll(server);
        }
    }

    private static int readiness(LibertyProcess server) {
        try {
            return server.management().get("health/ready").status();
        } catch (RuntimeException refused) {
            return -1; // nothing listens: not ready either
        }
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
