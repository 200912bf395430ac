package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.DatabaseIndependent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/credentials} writes each run's registry with that run's users only: a product run after a lab run
 * has no lab user, and every user keeps the password it was given first. The registry holds hashes only; the
 * passwords the server's own callers present (the demo services', the tests') are in an owner-only file of their
 * own. Needs the built Liberty (its securityUtility hashes the passwords), hence an integration test.
 */
@DatabaseIndependent
class CredentialsIT {

    @TempDir
    Path data;

    @Test
    void should_register_the_lab_users_for_a_lab_run_only() throws Exception {
        run();
        String product = registry();
        assertTrue(product.contains("<user name=\"admin\""), product);
        assertFalse(product.contains("scenario-"), product);
        String admin = password("admin");

        run("--lab");
        String lab = registry();
        assertTrue(lab.contains("<user name=\"scenario-orders\""), lab);
        assertTrue(lab.contains("<user name=\"scenario-inventory\""), lab);
        assertTrue(services().contains("courier.scenario.orders.password"), services());
        assertEquals(admin, password("admin"), "admin keeps its password");
        String orders = password("scenario-orders");

        run();
        String again = registry();
        assertFalse(again.contains("scenario-"), again);
        assertEquals(product, again, "the product's registry as before");
        run("--lab");
        assertEquals(orders, password("scenario-orders"), "a lab user keeps its password between lab runs");
        assertEquals(lab, registry());
        assertFalse(services().contains(admin), "no admin password for a lab run");

        run("--test");
        String test = registry();
        for (String line : Files.readAllLines(data.resolve("security/credentials.properties"))) {
            if (!line.startsWith("#") && line.contains("=")) {
                String secret = line.substring(line.indexOf('=') + 1);
                assertFalse(
                        test.contains(secret),
                        "users.xml holds " + line.substring(0, line.indexOf('=')) + "'s password in clear");
            }
        }
        assertTrue(services().contains("courier.test.password"), services());
        assertEquals(
                java.util.Set.of(
                        java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE),
                Files.getPosixFilePermissions(data.resolve("security/services.xml")),
                "the services' passwords are readable by their owner only");
        run();
        assertFalse(services().contains("value="), "a product run keeps no service password: " + services());
    }

    private String services() throws Exception {
        return Files.readString(data.resolve("security/services.xml"));
    }

    @Test
    void should_refuse_an_unknown_argument() throws Exception {
        Process process = start("--everyone");
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, process.exitValue(), output);
        assertTrue(output.contains("unknown argument '--everyone'"), output);
        assertFalse(Files.exists(data.resolve("security/users.xml")));
    }

    private String registry() throws Exception {
        return Files.readString(data.resolve("security/users.xml"));
    }

    private String password(String user) throws Exception {
        return Files.readAllLines(data.resolve("security/credentials.properties")).stream()
                .filter(line -> line.startsWith(user + "="))
                .map(line -> line.substring(user.length() + 1))
                .findFirst()
                .orElseThrow();
    }

    private void run(String... arguments) throws Exception {
        Process process = start(arguments);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "bin/credentials did not end");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), output);
    }

    private Process start(String... arguments) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("bin/credentials"));
        command.addAll(java.util.List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("COURIER_DATA_DIR", data.toString());
        return builder.start();
    }
}
