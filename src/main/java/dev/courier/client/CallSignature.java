package dev.courier.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature Courier puts on every call it makes to a producer (check-back and notification), so that the
 * producer can tell Courier's calls from anybody else's. Each call carries {@value #TIMESTAMP} (seconds since
 * the epoch) and {@value #SIGNATURE} ({@code v1=} and the hex HMAC-SHA256, keyed with the producer's signing
 * secret, of the timestamp, the method, the path with its query, and the body, each on a line of its own). A
 * producer accepts a call only if {@link #verify} says so: the right secret signed exactly this request, within
 * the tolerance of now, so a recorded call cannot be replayed later or for another message.
 *
 * <p>A producer signs its <em>answer</em> to a check-back the same way ({@link #answerHeaders}): the same two
 * headers on the response, the signature over the answer's timestamp, the word {@code ANSWER}, the call's own
 * {@value #SIGNATURE} value and the answer's body. Courier takes no answer that the producer's secret did not sign
 * for this very call, so nobody on the path can forge an outcome or a final payload, nor replay one recorded for
 * another call.
 */
public final class CallSignature {

    /** The header with the time of signing, in seconds since the epoch. */
    public static final String TIMESTAMP = "Courier-Timestamp";
    /** The header with the signature: {@code v1=<hex HMAC-SHA256>}. */
    public static final String SIGNATURE = "Courier-Signature";
    /** How far a call's timestamp may be from the producer's clock by default. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    /** The method line of an answer's signature: no request has it, so no call's signature passes as an answer's. */
    private static final String ANSWER = "ANSWER";

    private static final SecureRandom RANDOM = new SecureRandom();

    private CallSignature() {}

    /** A new signing secret: 32 random bytes, base64url. */
    public static String newSecret() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The {@value #SIGNATURE} header value of a call.
     *
     * @param target the path and, if any, {@code ?} and the query, raw (as sent on the request line)
     * @param body the request body, empty for none
     */
    public static String sign(String secret, long timestamp, String method, String target, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] signed = mac.doFinal((timestamp + "\n" + method + "\n" + target + "\n" + (body == null ? "" : body))
                    .getBytes(StandardCharsets.UTF_8));
            return "v1=" + HexFormat.of().formatHex(signed);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /**
     * The headers a producer puts on its answer to a call of Courier's ({@value #TIMESTAMP} and {@value
     * #SIGNATURE}).
     *
     * @param requestSignature the call's {@value #SIGNATURE} header, as received
     * @param body the answer's body, exactly as sent
     */
    public static Map<String, String> answerHeaders(String secret, String requestSignature, String body) {
        long now = Instant.now().getEpochSecond();
        return Map.of(TIMESTAMP, Long.toString(now), SIGNATURE, sign(secret, now, ANSWER, requestSignature, body));
    }

    /**
     * Whether an answer to a call is the producer's: its {@value #TIMESTAMP} within {@code tolerance} of {@code
     * now}, and its {@value #SIGNATURE} the one {@code secret} gives this body for this call ({@link
     * #answerHeaders}).
     */
    public static boolean verifyAnswer(
            String secret,
            String timestamp,
            String signature,
            String requestSignature,
            String body,
            Instant now,
            Duration tolerance) {
        return requestSignature != null
                && verify(secret, timestamp, signature, ANSWER, requestSignature, body, now, tolerance);
    }

    /**
     * Whether a received call is Courier's: both headers present, the timestamp within {@code tolerance} of
     * {@code now}, and the signature that {@code secret} gives this very request. Compares in constant time.
     *
     * @param timestamp the {@value #TIMESTAMP} header, or null
     * @param signature the {@value #SIGNATURE} header, or null
     * @param target the path and query of the request as received, raw
     */
    public static boolean verify(
            String secret,
            String timestamp,
            String signature,
            String method,
            String target,
            String body,
            Instant now,
            Duration tolerance) {
        if (secret == null || timestamp == null || signature == null) {
            return false;
        }
        long seconds;
        try {
            seconds = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(now.getEpochSecond() - seconds) > tolerance.toSeconds()) {
            return false;
        }
        return MessageDigest.isEqual(
                sign(secret, seconds, method, target, body).getBytes(StandardCharsets.US_ASCII),
                signature.trim().getBytes(StandardCharsets.US_ASCII));
    }
}
