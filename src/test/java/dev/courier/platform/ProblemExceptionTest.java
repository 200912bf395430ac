package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ProblemExceptionTest {

    @Test
    void should_derive_a_stable_type_uri_from_the_title() {
        ProblemException problem = new ProblemException(409, "Stale lease token", "lease 7 expired");

        assertEquals("urn:courier:problem:stale-lease-token", problem.type());
        assertEquals(409, problem.status());
        assertEquals("lease 7 expired", problem.getMessage());
    }

    @Test
    void should_refuse_a_status_that_is_not_an_error() {
        assertThrows(IllegalArgumentException.class, () -> new ProblemException(200, "Fine", "all good"));
        assertThrows(NullPointerException.class, () -> new ProblemException(400, "Invalid request", null));
    }
}
