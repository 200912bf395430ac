package dev.courier.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CallSignatureTest {

    private static final Duration TOLERANCE = CallSignature.DEFAULT_TOLERANCE;
    private final String secret = CallSignature.newSecret();
    private final Instant now = Instant.parse("2026-11-30T12:00:00Z");
    private final long at = now.getEpochSecond();

    @Test
    void should_accept_exactly_the_signed_request() {
        String signature = CallSignature.sign(secret, at, "GET", "/orders/check-back?id=42", "");
        assertTrue(CallSignature.verify(
                secret, Long.toString(at), signature, "GET", "/orders/check-back?id=42", "", now, TOLERANCE));
        assertTrue(
                CallSignature.verify(
                        secret, Long.toString(at), signature, "GET", "/orders/check-back?id=42", null, now, TOLERANCE),
                "no body is an empty body");
    }

    @Test
    void should_refuse_any_change_to_what_was_signed() {
        String signature = CallSignature.sign(secret, at, "POST", "/orders/notifications", "{\"id\":\"42\"}");
        String ts = Long.toString(at);
        assertFalse(
                CallSignature.verify(
                        secret, ts, signature, "POST", "/orders/notifications", "{\"id\":\"43\"}", now, TOLERANCE),
                "body");
        assertFalse(
                CallSignature.verify(
                        secret, ts, signature, "POST", "/other/notifications", "{\"id\":\"42\"}", now, TOLERANCE),
                "path");
        assertFalse(
                CallSignature.verify(
                        secret, ts, signature, "PUT", "/orders/notifications", "{\"id\":\"42\"}", now, TOLERANCE),
                "method");
        assertFalse(
                CallSignature.verify(
                        secret,
                        Long.toString(at + 1),
                        signature,
                        "POST",
                        "/orders/notifications",
                        "{\"id\":\"42\"}",
                        now,
                        TOLERANCE),
                "timestamp");
        assertFalse(
                CallSignature.verify(
                        CallSignature.newSecret(),
                        ts,
                        signature,
                        "POST",
                        "/orders/notifications",
                        "{\"id\":\"42\"}",
                        now,
                        TOLERANCE),
                "another secret");
    }

    @Test
    void should_refuse_a_call_signed_too_long_ago_or_missing_its_headers() {
        long old = at - TOLERANCE.toSeconds() - 1;
        String signature = CallSignature.sign(secret, old, "GET", "/c?id=1", "");
        assertFalse(
                CallSignature.verify(secret, Long.toString(old), signature, "GET", "/c?id=1", "", now, TOLERANCE),
                "a replay");
        assertFalse(CallSignature.verify(secret, null, signature, "GET", "/c?id=1", "", now, TOLERANCE));
        assertFalse(CallSignature.verify(secret, Long.toString(at), null, "GET", "/c?id=1", "", now, TOLERANCE));
        assertFalse(CallSignature.verify(secret, "yesterday", signature, "GET", "/c?id=1", "", now, TOLERANCE));
        assertFalse(CallSignature.verify(null, Long.toString(at), signature, "GET", "/c?id=1", "", now, TOLERANCE));
    }

    @Test
    void should_make_a_different_secret_each_time() {
        assertNotEquals(CallSignature.newSecret(), CallSignature.newSecret());
        assertTrue(CallSignature.newSecret().length() >= 43);
    }
}
