package dev.courier.client;

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
 * The helpers ship alone in {@code courier-client.jar}: they may use the Jakarta APIs and the JDK only, never a
 * Courier server class. Checked on the compiled classes' constant pools.
 */
class ClientIndependenceTest {

    private static final Pattern COURIER_CLASS = Pattern.compile("dev/courier/(\\w+)/");

    @Test
    void should_reference_no_courier_class_outside_the_client_package() throws Exception {
        Path classes = Path.of("target/classes/dev/courier/client");
        List<Path> files;
        try (var stream = Files.list(classes)) {
            files = stream.filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertTrue(files.size() >= 8, "the client classes are compiled: " + files);
        for (Path file : files) {
            Matcher references =
                    COURIER_CLASS.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
            while (references.find()) {
                assertFalse(
                        !references.group(1).equals("client"),
                        file.getFileName() + " uses dev.courier." + references.group(1));
            }
        }
    }
}
