package dev.courier.queue.jdbc;

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
 * The queue library ships alone in {@code courier-queue.jar} and goes into any application: it may use
 * the JDK only — no Courier server class, no Jakarta or MicroProfile API, no broker. Checked on the compiled
 * classes' constant pools.
 */
class QueueLibraryIndependenceTest {

    private static final Pattern FOREIGN =
            Pattern.compile("(dev/courier/(?!queue/jdbc/)\\w+|jakarta/\\w+|org/eclipse/microprofile|org/apache/\\w+)");

    @Test
    void should_reference_nothing_but_the_jdk_and_its_own_package() throws Exception {
        Path classes = Path.of("target/classes/dev/courier/queue/jdbc");
        List<Path> files;
        try (var stream = Files.list(classes)) {
            files = stream.filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertTrue(files.size() >= 6, "the library's classes are compiled: " + files);
        for (Path file : files) {
            Matcher found = FOREIGN.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
            assertFalse(found.find(), () -> file.getFileName() + " uses " + found.group(1));
        }
    }
}
