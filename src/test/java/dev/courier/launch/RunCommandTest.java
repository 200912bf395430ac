package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/courier} builds only when what goes into the server changed since its last build: a copy of the
 * script in a tree of its own is asked ({@code bin/courier status}) as files appear and change.
 */
class RunCommandTest {

    @TempDir
    Path root;

    private Path source;

    @BeforeEach
    void tree() throws IOException {
        Files.createDirectories(root.resolve("bin"));
        Path script = Files.copy(Path.of("bin/courier"), root.resolve("bin/courier"));
        assertTrue(script.toFile().setExecutable(true));
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        source = root.resolve("src/main/java/A.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "class A {}");
    }

    @Test
    void should_build_before_the_first_start() throws Exception {
        assertEquals("the next start builds: no build yet", run("status"));
    }

    @Test
    void should_start_the_built_server_when_nothing_changed_since_its_build() throws Exception {
        built(Instant.now());
        assertEquals("the next start runs the built server (up to date)", run("status"));
    }

    @Test
    void should_build_when_a_source_or_the_pom_changed_after_the_build() throws Exception {
        Instant build = built(Instant.now().minusSeconds(60));
        Files.setLastModifiedTime(source, FileTime.from(build.plusSeconds(30)));
        assertEquals("the next start builds: src/main/java/A.java changed since the last build", run("status"));

        Files.setLastModifiedTime(source, FileTime.from(build.minusSeconds(30)));
        Files.setLastModifiedTime(root.resolve("pom.xml"), FileTime.from(build.plusSeconds(30)));
        assertEquals("the next start builds: pom.xml changed since the last build", run("status"));
    }

    @Test
    void should_build_when_the_lab_changed_after_the_build() throws Exception {
        Instant build = built(Instant.now().minusSeconds(60));
        Path lab = root.resolve("src/lab/java/B.java");
        Files.createDirectories(lab.getParent());
        Files.writeString(lab, "class B {}");
        Files.setLastModifiedTime(lab, FileTime.from(build.plusSeconds(30)));
        assertEquals("the next start builds: src/lab/java/B.java changed since the last build", run("status"));
    }

    @Test
    void should_not_count_a_change_to_the_tests() throws Exception {
        Instant build = built(Instant.now().minusSeconds(60));
        Path test = root.resolve("src/test/java/ATest.java");
        Files.createDirectories(test.getParent());
        Files.writeString(test, "class ATest {}");
        Files.setLastModifiedTime(test, FileTime.from(build.plusSeconds(30)));
        assertEquals("the next start runs the built server (up to date)", run("status"));
    }

    @Test
    void should_build_again_when_the_built_application_is_gone() throws Exception {
        built(Instant.now());
        Files.delete(root.resolve("target/liberty/wlp/usr/servers/courier/apps/courier.war"));
        assertEquals("the next start builds: no build yet", run("status"));
    }

    @Test
    void should_refuse_an_unknown_argument() throws Exception {
        Process process = start("--rebuild");
        String output = output(process);
        assertEquals(2, process.exitValue(), output);
        assertTrue(output.contains("unknown argument '--rebuild'"), output);
    }

    /** A built server as bin/courier leaves it, its stamp at {@code at}, every source older. */
    private Instant built(Instant at) throws IOException {
        Path server = root.resolve("target/liberty/wlp/bin/server");
        Files.createDirectories(server.getParent());
        Files.writeString(server, "#!/bin/sh\nexit 1\n");
        assertTrue(server.toFile().setExecutable(true));
        Path war = root.resolve("target/liberty/wlp/usr/servers/courier/apps/courier.war");
        Files.createDirectories(war.getParent());
        Files.writeString(war, "war");
        Path stamp = Files.writeString(root.resolve("target/liberty/courier-built.stamp"), "");
        Files.setLastModifiedTime(stamp, FileTime.from(at));
        Files.setLastModifiedTime(source, FileTime.from(at.minusSeconds(3600)));
        Files.setLastModifiedTime(root.resolve("pom.xml"), FileTime.from(at.minusSeconds(3600)));
        return at;
    }

    private String run(String argument) throws Exception {
        Process process = start(argument);
        String output = output(process);
        assertEquals(0, process.exitValue(), output);
        return output.strip();
    }

    private Process start(String argument) throws IOException {
        ProcessBuilder builder =
                new ProcessBuilder(root.resolve("bin/courier").toString(), argument).redirectErrorStream(true);
        builder.environment().remove("COURIER_AUTH");
        return builder.start();
    }

    private static String output(Process process) throws Exception {
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "bin/courier did not end");
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
