package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class SecurityProblemsTest {

    private static String basic(String pair) {
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void should_record_the_name_a_login_tried_and_never_its_password() {
        assertEquals("admin", SecurityProblems.triedName(basic("admin:wrong")));
        assertEquals(
                "admin", SecurityProblems.triedName("basic " + basic("admin:x").substring(6)));
        assertEquals("no-colon", SecurityProblems.triedName(basic("no-colon")));
        assertEquals("a?b", SecurityProblems.triedName(basic("a\nb:secret")));
        assertEquals("(bearer token)", SecurityProblems.triedName("Bearer eyJhbGciOi"));
        assertEquals("(malformed Basic credentials)", SecurityProblems.triedName("Basic %%%"));
    }
}
