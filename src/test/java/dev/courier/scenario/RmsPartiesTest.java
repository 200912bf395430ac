package dev.courier.scenario;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.client.HttpCourierApi;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RmsPartiesTest {

    private final RmsParties parties = new RmsParties();

    @Test
    void over_http_each_service_calls_the_rest_api() {
        parties.transport = "http";
        parties.courierUrl = "http://localhost:9080/";

        assertInstanceOf(HttpCourierApi.class, parties.api(RmsParties.ORDERS_SERVICE, Optional.of("secret")));
    }

    @Test
    void a_transport_that_is_neither_http_nor_local_is_refused_by_name() {
        parties.transport = "tcp";

        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class, () -> parties.api(RmsParties.ORDERS_SERVICE, Optional.empty()));
        assertTrue(refused.getMessage().contains("courier.scenario.courier-transport"), refused::getMessage);
        assertTrue(refused.getMessage().contains("'tcp'"), refused::getMessage);
    }

    @Test
    void the_reply_goes_direct_or_reliable_and_anything_else_is_refused_by_name() {
        assertTrue(RmsParties.direct("direct"));
        assertFalse(RmsParties.direct("reliable"));

        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> RmsParties.direct("Direct"));
        assertTrue(refused.getMessage().contains("courier.scenario.rms-reply"), refused::getMessage);
        assertTrue(refused.getMessage().contains("'Direct'"), refused::getMessage);
    }
}
