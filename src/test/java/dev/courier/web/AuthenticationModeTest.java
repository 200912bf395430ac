package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuthenticationModeTest {

    @Test
    void should_start_under_basic_and_under_jwt_with_an_audience() {
        assertNull(AuthenticationMode.refusal("basic", Optional.empty()));
        assertNull(AuthenticationMode.refusal("jwt", Optional.of("courier")));
    }

    @Test
    void should_not_start_under_jwt_without_an_audience() {
        for (Optional<String> none : java.util.List.of(Optional.<String>empty(), Optional.of(" "))) {
            String refused = AuthenticationMode.refusal("jwt", none);
            assertTrue(refused != null && refused.contains("MP_JWT_VERIFY_AUDIENCES"), String.valueOf(refused));
        }
    }

    @Test
    void should_not_start_under_a_mode_that_does_not_exist_nor_say_its_value() {
        String refused = AuthenticationMode.refusal("admin:s3cret", Optional.of("courier"));
        assertTrue(refused != null && refused.contains("COURIER_AUTH") && !refused.contains("s3cret"), refused);
    }
}
