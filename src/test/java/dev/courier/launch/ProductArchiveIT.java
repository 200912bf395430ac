package dev.courier.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * What the build packs, read from the files it made: {@code courier.war} is the product alone (no class, script,
 * web fragment or descriptor entry of the lab), {@code courier-lab.war} is the same product with the lab inside,
 * and the server's product configuration defines no lab datasource.
 */
class ProductArchiveIT {

    private static final Path TARGET = Path.of("target");
    private static final Path SERVER = TARGET.resolve("liberty/wlp/usr/servers/courier");

    @Test
    void should_keep_the_lab_out_of_the_product_war() throws IOException {
        try (ZipFile war = new ZipFile(TARGET.resolve("courier.war").toFile())) {
            List<String> lab = war.stream()
                    .map(ZipEntry::getName)
                    .filter(name -> name.startsWith("WEB-INF/classes/dev/courier/scenario/")
                            || name.startsWith("WEB-INF/classes/dev/courier/bench/")
                            || name.startsWith("WEB-INF/classes/db/inventory/")
                            || name.startsWith("WEB-INF/classes/db/lab-orders/")
                            || name.startsWith("WEB-INF/classes/dev/courier/orders/")
                            || name.startsWith("WEB-INF/lib/courier-lab"))
                    .toList();
            assertEquals(List.of(), lab, "lab entries in courier.war");
            assertTrue(war.getEntry("WEB-INF/classes/dev/courier/queue/TransactionalQueue.class") != null);
            String webXml = text(war, "WEB-INF/web.xml");
            assertFalse(webXml.contains("scenario"), "web.xml names nothing of the lab");
            assertFalse(text(war, "WEB-INF/classes/META-INF/openapi.yaml").contains("/api/scenario"));
        }
    }

    @Test
    void should_pack_the_product_and_the_lab_into_the_lab_war() throws IOException {
        try (ZipFile product = new ZipFile(TARGET.resolve("courier.war").toFile());
                ZipFile lab = new ZipFile(TARGET.resolve("courier-lab.war").toFile())) {
            List<String> missing = product.stream()
                    .map(ZipEntry::getName)
                    .filter(name -> lab.getEntry(name) == null)
                    .toList();
            assertEquals(List.of(), missing, "product entries missing from courier-lab.war");
            for (String entry : List.of(
                    "WEB-INF/classes/dev/courier/scenario/ScenarioResource.class",
                    "WEB-INF/classes/dev/courier/scenario/LabSchema.class",
                    "WEB-INF/classes/dev/courier/bench/BenchResource.class",
                    "WEB-INF/classes/db/lab-orders/postgresql/V1__scenario_orders.sql",
                    "WEB-INF/classes/db/inventory/derby/V1__inventory.sql",
                    "WEB-INF/lib/courier-lab-web.jar")) {
                assertTrue(lab.getEntry(entry) != null, entry + " in courier-lab.war");
            }
            assertTrue(lab.stream().noneMatch(e -> e.getName().startsWith("WEB-INF/classes/dev/courier/testing/")));
            assertTrue(
                    lab.stream().noneMatch(e -> e.getName().startsWith("WEB-INF/classes/dev/courier/orders/")),
                    "the orders service is an application of its own");
        }
    }

    @Test
    void should_pack_the_orders_service_as_an_application_with_the_two_client_jars_and_nothing_of_the_server()
            throws IOException {
        try (ZipFile orders = new ZipFile(TARGET.resolve("lab-orders.war").toFile())) {
            List<String> foreign = orders.stream()
                    .map(ZipEntry::getName)
                    .filter(name -> !name.endsWith("/"))
                    .filter(name ->
                            !(name.startsWith("WEB-INF/classes/dev/courier/orders/") && !name.endsWith("Test.class"))
                                    && !name.matches("WEB-INF/(web|ibm-web-bnd|ibm-web-ext)\\.xml")
                                    && !name.equals("WEB-INF/lib/courier-client.jar")
                                    && !name.equals("WEB-INF/lib/courier-queue.jar"))
                    .toList();
            assertEquals(List.of(), foreign, "lab-orders.war holds its own classes, its descriptors and the two jars");
            for (String entry : List.of(
                    "WEB-INF/classes/dev/courier/orders/QueueChannel.class",
                    "WEB-INF/lib/courier-client.jar",
                    "WEB-INF/lib/courier-queue.jar")) {
                assertTrue(orders.getEntry(entry) != null, entry + " in lab-orders.war");
            }
            assertTrue(text(orders, "WEB-INF/web.xml").contains("<module-name>lab-orders</module-name>"));
        }
        assertTrue(Files.exists(SERVER.resolve("apps/lab-orders.war")));
    }

    @Test
    void should_define_the_inventory_datasource_in_the_lab_configuration_only() throws IOException {
        for (String file : List.of("server.xml", "datasource-derby.xml", "datasource-postgres.xml", "app.xml")) {
            assertFalse(Files.readString(SERVER.resolve(file)).contains("jdbc/inventory"), file);
        }
        assertTrue(
                Files.readString(SERVER.resolve("lab/inventory-postgres.xml")).contains("jdbc/inventory"));
        assertTrue(Files.readString(SERVER.resolve("lab/inventory-derby.xml")).contains("jdbc/inventory"));
        assertTrue(Files.exists(SERVER.resolve("apps/courier-lab.war")));
        for (String file : List.of("server.xml", "datasource-derby.xml", "datasource-postgres.xml", "app.xml")) {
            assertFalse(Files.readString(SERVER.resolve(file)).contains("jdbc/labOrders"), file);
        }
        assertTrue(Files.readString(SERVER.resolve("lab/orders-postgres.xml")).contains("jdbc/labOrders"));
        assertTrue(Files.readString(SERVER.resolve("lab/orders-derby.xml")).contains("jdbc/labOrders"));
    }

    private static String text(ZipFile zip, String entry) throws IOException {
        ZipEntry found = zip.getEntry(entry);
        assertTrue(found != null, entry);
        return new String(zip.getInputStream(found).readAllBytes(), StandardCharsets.UTF_8);
    }
}
