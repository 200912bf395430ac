package dev.courier.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
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

    /** An answer is signed for the very call it answers: not another call's, not by another secret, not a call. */
    @Test
    void should_verify_an_answer_for_its_call_only() {
        String call = CallSignature.sign(secret, at, "GET", "/c?id=1", "");
        String other = CallSignature.sign(secret, at, "GET", "/c?id=2", "");
        String body = "{\"status\":\"COMMITTED\"}";
        Map<String, String> headers = CallSignature.answerHeaders(secret, call, body);
        String ts = headers.get(CallSignature.TIMESTAMP);
        String signature = headers.get(CallSignature.SIGNATURE);
        Instant clock = Instant.now();
        assertTrue(CallSignature.verifyAnswer(secret, ts, signature, call, body, clock, TOLERANCE));
        assertFalse(CallSignature.verifyAnswer(secret, ts, signature, other, body, clock, TOLERANCE), "another call");
        assertFalse(
                CallSignature.verifyAnswer(
                        secret, ts, signature, call, "{\"status\":\"ROLLED_BACK\"}", clock, TOLERANCE),
                "another body");
        assertFalse(
                CallSignature.verifyAnswer(CallSignature.newSecret(), ts, signature, call, body, clock, TOLERANCE),
                "another secret");
        assertFalse(CallSignature.verifyAnswer(secret, ts, signature, null, body, clock, TOLERANCE), "no call");
        // Courier's own signature of the call is no answer's: the method line differs.
        assertFalse(CallSignature.verifyAnswer(
                secret, Long.toString(at), call, call, "", Instant.ofEpochSecond(at), TOLERANCE));
    }

    @Test
    void should_make_a_different_secret_each_time() {
        assertNotEquals(CallSignature.newSecret(), CallSignature.newSecret());
        assertTrue(CallSignature.newSecret().length() >= 43);
    }
}
