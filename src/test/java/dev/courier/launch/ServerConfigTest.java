package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

/**
 * Every Liberty configuration file the build installs is well-formed XML: Liberty reads a broken one (a "--" in a
 * comment is enough) as no configuration at all and starts a server with no features, which then never gets ready.
 */
class ServerConfigTest {

    @Test
    void should_parse_every_server_configuration_file() throws Exception {
        List<String> broken = new ArrayList<>();
        for (Path file : files("src/main/liberty/config", "src/lab/liberty", "src/lab/webapp", "src/test/liberty")) {
            try {
                DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
            } catch (org.xml.sax.SAXException e) {
                broken.add(file + ": " + e.getMessage());
            }
        }
        assertEquals(List.of(), broken);
    }

    private static List<Path> files(String... folders) throws IOException {
        List<Path> found = new ArrayList<>();
        for (String folder : folders) {
            try (Stream<Path> files = Files.walk(Path.of(folder))) {
                files.filter(f -> f.toString().endsWith(".xml")).forEach(found::add);
            }
        }
        return found;
    }
}
