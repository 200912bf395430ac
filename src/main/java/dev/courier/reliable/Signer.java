package dev.courier.reliable;

import dev.courier.client.CallSignature;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Instant;

/** Puts Courier's signature ({@link CallSignature}) on a call to a producer: a check-back or a notification. */
final class Signer {

    private Signer() {}

    /**
     * Adds the timestamp and signature headers for {@code secret}; a producer registered before signing existed
     * has none, and its calls go unsigned. The timestamp is the wall clock's, not Courier's business clock: it is
     * compared with the producer's clock.
     */
    static HttpRequest.Builder sign(HttpRequest.Builder request, String secret, String method, URI uri, String body) {
        if (secret == null) {
            return request;
        }
        long now = Instant.now().getEpochSecond();
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        return request.header(CallSignature.TIMESTAMP, Long.toString(now))
                .header(CallSignature.SIGNATURE, CallSignature.sign(secret, now, method, target, body));
    }
}
