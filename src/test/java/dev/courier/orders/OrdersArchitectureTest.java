package dev.courier.orders;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The lab's orders service is an application of its own, not Courier: of Courier's classes it may use only what
 * any application gets, the client helpers ({@code courier-client.jar}) and the queue library ({@code
 * courier-queue.jar}), which {@code lab-orders.war} carries. Checked on the compiled classes' constant pools.
 */
class OrdersArchitectureTest {

    private static final Pattern COURIER_INSIDE = Pattern.compile("dev/courier/(?!orders/|client/|queue/jdbc/)[\\w/]+");

    @Test
    void uses_courier_only_through_the_client_helpers_and_the_queue_library() throws Exception {
        Path classes = Path.of("target/test-classes/dev/courier/orders");
        List<Path> files;
        try (var stream = Files.list(classes)) {
            files = stream.filter(p -> p.toString().endsWith(".class")
                            && !p.getFileName().toString().endsWith("Test.class"))
                    .toList();
        }
        assertTrue(files.size() >= 15, "the orders service's classes are compiled: " + files);
        for (Path file : files) {
            Matcher found = COURIER_INSIDE.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
            assertFalse(found.find(), () -> file.getFileName() + " uses " + found.group());
        }
    }
}
