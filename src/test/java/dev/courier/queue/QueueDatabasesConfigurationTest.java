package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code courier.queue.databases}: what it names, and the precise refusal of what it cannot. */
class QueueDatabasesConfigurationTest {

    @Test
    void names_each_database_with_its_datasource_in_order() {
        Map<String, String> named = QueueDatabases.configured(" orders=jdbc/orders, billing = jdbc/billing ,");
        assertEquals(List.of("orders", "billing"), List.copyOf(named.keySet()));
        assertEquals("jdbc/billing", named.get("billing"));
        assertTrue(QueueDatabases.configured("").isEmpty(), "none: Courier's own database alone");
    }

    @Test
    void refuses_what_is_not_a_name_and_a_datasource() {
        for (String bad : List.of("orders", "orders=", "=jdbc/orders", "Orders=jdbc/orders", "or-ders=jdbc/o")) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> QueueDatabases.configured(bad), bad);
            assertTrue(e.getMessage().startsWith("courier.queue.databases: "), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> QueueDatabases.configured("courier=jdbc/other"))
                .getMessage()
                .contains("Courier's own"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> QueueDatabases.configured("a=jdbc/a,a=jdbc/b"))
                .getMessage()
                .contains("twice"));
    }
}
