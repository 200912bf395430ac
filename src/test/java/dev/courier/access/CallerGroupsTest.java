package dev.courier.access;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CallerGroupsTest {

    @Test
    void should_read_a_registry_group_and_a_tokens_group_path_whole() {
        assertEquals("payments", CallerGroups.name("group:courier/payments", "courier"));
        String issuer = "https://idp.example/realms/acme";
        assertEquals("payments", CallerGroups.name("group:" + issuer + "/payments", issuer));
        assertEquals("/emea/payments", CallerGroups.name("group:" + issuer + "//emea/payments", issuer));
        assertEquals("/apac/payments", CallerGroups.name("group:" + issuer + "//apac/payments", issuer));
    }
}
