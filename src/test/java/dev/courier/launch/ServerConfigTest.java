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

    @Test
    void should_name_every_activation_spec_after_the_fixed_module_name() throws Exception {
        // Courier's module, and the lab's orders service's (an application of its own with one bean of its own).
        String module = moduleName("src/main/webapp/WEB-INF/web.xml");
        String orders = moduleName("src/lab/orders-webapp/WEB-INF/web.xml");
        List<String> elsewhere = new ArrayList<>();
        for (Path file : files("src/main/liberty/config", "src/lab/liberty", "src/test/liberty")) {
            var specs = DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(file.toFile())
                    .getElementsByTagName("jmsActivationSpec");
            for (int i = 0; i < specs.getLength(); i++) {
                String id = ((org.w3c.dom.Element) specs.item(i)).getAttribute("id");
                boolean ordersBean = id.startsWith(orders + "/")
                        && Files.exists(Path.of(
                                "src/lab/java/dev/courier/orders", id.substring(orders.length() + 1) + ".java"));
                if (!id.startsWith(module + "/") && !ordersBean) {
                    elsewhere.add(file.getFileName() + ": " + id);
                }
            }
        }
        assertEquals(List.of(), elsewhere, "activation specs that no module named " + module + " would find");
    }

    /** The module name {@code webXml} fixes (a WAR's file name varies, and activation specs are found by it). */
    private static String moduleName(String webXml) throws Exception {
        var names = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(Path.of(webXml).toFile())
                .getElementsByTagName("module-name");
        assertEquals(1, names.getLength(), webXml + " fixes the module name");
        return names.item(0).getTextContent().trim();
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
